// Every page of the web UI at 1280 × 900 and 390 × 844, light and dark: a full-page screenshot of
// each in test/artifacts/screenshots/ (<page>-<width>-<scheme>.png) and the layout check on each:
// the page's scroll width equals the viewport's width (no horizontal page scroll; wide tables
// scroll in their own box or become cards).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { samplePath } from './fixtures/samples.js';
import { admin, COLOR_SCHEMES, launchBrowser, screenshot, signIn, type TestBrowser, VIEWPORTS } from './helpers/browser.js';
import { createMember, createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';

const PASSWORD = 'layout check passphrase';

interface Fixture {
  collection: { uuid: string; slug: string };
  pdfId: string;
  failedId: string;
  keyId: string;
  memberId: string;
  inviteLink: string;
}

/** A page to check: a path, or steps that end on the page (form errors, results of a post). */
type PageCase = { name: string; path?: string; steps?: (p: Page, base: string) => Promise<void> };

function pages(f: Fixture): PageCase[] {
  const c = `/app/collections/${f.collection.uuid}`;
  return [
    { name: 'overview', path: '/app/' },
    { name: 'collection', path: c },
    {
      name: 'collection-upload',
      path: c,
      steps: async (p) => {
        await p.evaluate(() => {
          const dt = new DataTransfer();
          dt.items.add(new File(['Soil notes: loam holds water.'], 'soil notes with a rather long file name.txt', { type: 'text/plain' }));
          dt.items.add(new File(['MZ'], 'installer.exe', { type: 'application/x-msdownload' }));
          document
            .querySelector('[data-dropzone]')!
            .dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
        });
        await p.locator('.upload-item.skipped').waitFor();
      },
    },
    { name: 'collection-new', path: '/app/collections/new' },
    {
      name: 'collection-new-errors',
      path: '/app/collections/new',
      steps: async (p) => {
        await p.getByRole('button', { name: 'Create collection' }).click();
        await p.locator('#error-summary').waitFor();
      },
    },
    { name: 'collection-edit', path: `${c}/edit` },
    { name: 'collection-delete', path: `${c}/delete` },
    { name: 'catalogue', path: '/app/catalogue' },
    { name: 'document', path: `/app/documents/${f.pdfId}` },
    { name: 'document-failed', path: `/app/documents/${f.failedId}` },
    { name: 'document-delete', path: `/app/documents/${f.pdfId}/delete` },
    { name: 'search', path: '/app/search' },
    { name: 'search-results', path: `/app/search?q=${encodeURIComponent('index stores every lexeme')}&mode=hybrid` },
    { name: 'search-errors', path: '/app/search?q=' },
    {
      name: 'search-metadata',
      path: `/app/search?q=${encodeURIComponent('index stores every lexeme')}&collection=${f.collection.slug}&mk=dept&mo=eq&mv=docs&mk=year&mo=gte&mv=2024`,
    },
    {
      name: 'search-collections-picker',
      path: '/app/search',
      steps: async (p) => {
        await p.locator('#search-collection summary').click();
        await p.locator('.picker-panel').waitFor();
      },
    },
    {
      name: 'document-edit-errors',
      path: `/app/documents/${f.pdfId}`,
      steps: async (p) => {
        await p.locator('#edit-metadata').fill('a rather long line that is not a key and value pair at all');
        await p.getByRole('button', { name: 'Save details' }).click();
        await p.locator('#error-summary').waitFor();
      },
    },
    { name: 'keys', path: '/app/keys' },
    {
      name: 'keys-errors',
      path: '/app/keys',
      steps: async (p) => {
        await p.getByRole('button', { name: 'Create key' }).click();
        await p.locator('#error-summary').waitFor();
      },
    },
    {
      name: 'key-created',
      path: '/app/keys',
      steps: async (p) => {
        await p.getByLabel('Name', { exact: true }).fill('layout check key with a long descriptive name');
        await p.getByLabel('Full access').check();
        await p.getByRole('button', { name: 'Create key' }).click();
        await p.locator('#new-secret').waitFor();
      },
    },
    { name: 'key-manage', path: `/app/keys/${f.keyId}` },
    { name: 'key-rotate', path: `/app/keys/${f.keyId}/rotate` },
    { name: 'usage', path: '/app/usage?days=30' },
    { name: 'admin-users', path: '/app/admin/users' },
    { name: 'admin-deactivate', path: `/app/admin/users/${f.memberId}/deactivate` },
    { name: 'not-found', path: '/app/no-such-page' },
  ];
}

describe('web UI: every page fits 1280 and 390 px, light and dark', () => {
  let d: TestDaemon;
  let b: TestBrowser;
  let t: Tenant;
  const f = {} as Fixture;

  before(async () => {
    [d, b] = await Promise.all([
      startTestDaemon({ label: 'web_layout', worker: true, env: { PROCESS_MAX_ATTEMPTS: '1' } }),
      launchBrowser(),
    ]);
    const req = http(d.url);
    t = await createTenant(d, 'web-layout-owner-with-a-long-address');
    await d.deps.sql`update users set is_admin = true where id = ${t.userId}`;
    const member = await createMember(d, t, 'web-layout-member');
    f.memberId = member.userId;
    await admin(d, ['set-password', '--email', t.email, '--password-stdin'], PASSWORD);
    f.inviteLink = JSON.parse((await admin(d, ['invite', '--email', member.email, '--json'])).out).link;
    f.collection = await makeCollection(req, t.key, 'Field notes and observations from the kitchen garden', {
      description: 'Everything we learned about soil, water, sun and the patience of tomatoes, season after season.',
      is_public: true,
    });
    await makeCollection(req, t.key, 'Empty shelf');
    const other = await createTenant(d, 'web-layout-other');
    await makeCollection(req, other.key, 'Recipes from a neighbour', { is_public: true, description: 'Public, not subscribed yet.' });
    const ids = [
      (
        await addText(
          req,
          t.key,
          f.collection.uuid,
          'Indexing guide',
          'Indexing makes search fast: the index stores every lexeme once.',
          'docs,reference',
        )
      ).uuid,
      (
        await addText(
          req,
          t.key,
          f.collection.uuid,
          'A note with an unusually long title that has to wrap on a phone screen',
          'Short body.',
          'garden',
        )
      ).uuid,
    ];
    const pdf = new FormData();
    pdf.append(
      'file',
      new Blob([await readFile(samplePath('sample.pdf'))], { type: 'application/pdf' }),
      'manual-with-a-long-file-name-2024-final-v2.pdf',
    );
    f.pdfId = (await req('POST', `/api/v1/collections/${f.collection.uuid}/documents/`, { key: t.key, body: pdf })).body.uuid;
    const broken = new FormData();
    broken.append('file', new Blob([Buffer.from('%PDF-1.4\nnot a pdf\n')], { type: 'application/pdf' }), 'broken.pdf');
    f.failedId = (await req('POST', `/api/v1/collections/${f.collection.uuid}/documents/`, { key: t.key, body: broken })).body.uuid;
    await waitSettled(req, t.key, [...ids, f.pdfId, f.failedId]);
    const metadata = {
      dept: 'docs',
      year: 2024,
      reviewers: ['ann', 'bob'],
      summary: 'A long value that has to wrap on a phone screen somehow.',
    };
    for (const id of [ids[0]!, f.pdfId])
      assert.equal((await req('PATCH', `/api/v1/documents/${id}/`, { key: t.key, json: { metadata } })).status, 200);
    const scoped = await req('POST', '/api/v1/keys/', {
      key: t.key,
      json: { name: 'support bot for the helpdesk integration', collections: [f.collection.slug], expires_in: '30d' },
    });
    f.keyId = scoped.body.uuid;
    for (let i = 0; i < 3; i++)
      await req('POST', '/api/v1/search/', { key: t.key, json: { query: `tomato soil water ${i}`, mode: 'text' } });
  });
  after(async () => {
    await b?.close();
    await d?.close();
  });

  // One browser context per variant; run one after the other (rendering and screenshots are
  // CPU-bound in Chromium, so running them side by side measured slower on two cores).
  const variants = VIEWPORTS.flatMap((size) => COLOR_SCHEMES.map((scheme) => ({ size, scheme })));
  for (const { size, scheme } of variants) {
    it(`${size.width} × ${size.height}, ${scheme}: every page fits (screenshots in test/artifacts/screenshots)`, async () => {
      const { context, page } = await b.newPage({ viewport: size, colorScheme: scheme });
      const failures: string[] = [];
      const check = async (name: string) => {
        try {
          await screenshot(page, `${name}-${size.width}-${scheme}`);
        } catch (err) {
          failures.push(`${name}: ${(err as Error).message.split('\n')[0]!}`);
        }
      };
      try {
        await page.goto(`${d.url}/app/sign-in`);
        await check('sign-in');
        await page.goto(f.inviteLink);
        await check('invite');
        await signIn(page, d.url, t.email, PASSWORD);
        const bg = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
        assert.equal(bg === 'rgb(244, 242, 236)', scheme === 'light', `${scheme} background: ${bg}`);
        for (const pc of pages(f)) {
          await page.goto(d.url + pc.path);
          if (pc.steps) await pc.steps(page, d.url);
          await check(pc.name);
        }
      } finally {
        await context.close();
      }
      assert.deepEqual(failures, [], failures.join('\n'));
    });
  }
});
