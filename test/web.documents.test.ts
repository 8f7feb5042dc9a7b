// Documents in a real browser against a daemon with its worker: uploads by picker and by drag and
// drop with a progress bar per file (the API's limits and skip reasons shown as the API gives
// them), the document list with filters and live status, the document page (metadata, error,
// chunks with page numbers, download, replace, reprocess, delete), text and web-page documents,
// the plain-form upload without the page script, and the refusals.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { samplePath } from './fixtures/samples.js';
import { admin, launchBrowser, screenshot, signIn, type TestBrowser } from './helpers/browser.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { makeCollection, waitSettled } from './helpers/docs.js';

const PASSWORD = 'documents page passphrase';
const MB = 1024 * 1024;

/** Files to drop: made inside the page (no transfer of big buffers over the DevTools protocol). */
type DropFile = { name: string; type: string; size?: number; text?: string; base64?: string };

describe('web UI: documents', () => {
  let d: TestDaemon;
  let b: TestBrowser;
  let t: Tenant;
  let other: Tenant;
  let req: ReturnType<typeof http>;
  let page: Page;
  let context: BrowserContext;
  let col: { uuid: string; slug: string };
  let pdfId = '';
  let failedId = '';
  let site: Server;
  let siteUrl = '';

  before(async () => {
    site = createServer((_rq, rs) => {
      rs.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      rs.end('<html><head><title>Greenhouse log</title></head><body><p>The zephyrcactus blooms every spring.</p></body></html>');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/greenhouse.html`;
    [d, b] = await Promise.all([
      startTestDaemon({ label: 'web_docs', worker: true, env: { PROCESS_MAX_ATTEMPTS: '1', ALLOW_PRIVATE_URLS: 'true' } }),
      launchBrowser(),
    ]);
    req = http(d.url);
    t = await createTenant(d, 'web-docs');
    other = await createTenant(d, 'web-docs-other');
    for (const u of [t, other]) await admin(d, ['set-password', '--email', u.email, '--password-stdin'], PASSWORD);
    col = await makeCollection(req, t.key, 'Library');
    const broken = new FormData();
    broken.append('file', new Blob([Buffer.from('%PDF-1.4\nnot really a pdf\n')], { type: 'application/pdf' }), 'broken.pdf');
    failedId = (await req('POST', `/api/v1/collections/${col.uuid}/documents/`, { key: t.key, body: broken })).body.uuid;
    await waitSettled(req, t.key, [failedId]);
    ({ page, context } = await b.newPage());
    await signIn(page, d.url, t.email, PASSWORD);
  });
  after(async () => {
    await b?.close();
    await d?.close();
    site?.close();
  });

  const docs = async () =>
    (await req('GET', `/api/v1/documents/?collection=${col.slug}`, { key: t.key })).body as {
      uuid: string;
      title: string;
      tags: string[];
    }[];
  const openCollection = async () => {
    await page.goto(`${d.url}/app/collections/${col.uuid}`);
    // Every state text an upload row goes through, to check the per-file progress afterwards.
    await page.evaluate(() => {
      const w = window as unknown as { seen: string[]; stay: boolean };
      w.seen = [];
      w.stay = true;
      new MutationObserver(() => {
        for (const s of Array.from(document.querySelectorAll('.upload-item .state')))
          w.seen.push(`${s.parentElement?.querySelector('.name')?.textContent}=${s.textContent}`);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
  };
  const drop = (files: DropFile[], form = 'form[data-upload]') =>
    page.evaluate(
      ({ files, form }) => {
        const dt = new DataTransfer();
        for (const f of files) {
          const body = f.base64
            ? Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))
            : f.text !== undefined
              ? f.text
              : new Uint8Array(f.size ?? 0);
          dt.items.add(new File([body], f.name, { type: f.type }));
        }
        const zone = document.querySelector(`${form} [data-dropzone]`)!;
        zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
        zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      },
      { files, form },
    );
  const uploadDone = () =>
    page.waitForFunction(
      () =>
        !(document.querySelector('form[data-upload] button[type="submit"]') as HTMLButtonElement).disabled &&
        document.querySelector('[data-upload-summary]')?.textContent !== '' &&
        !/^Uploading/.test(document.querySelector('[data-upload-summary]')?.textContent ?? ''),
    );
  const rowText = (name: string) =>
    page
      .locator('.upload-item', { has: page.locator('.name', { hasText: name }) })
      .locator('.state')
      .textContent();
  const seen = () => page.evaluate(() => (window as unknown as { seen: string[] }).seen);

  it('uploads a file from the picker with its progress, then follows its status live', async () => {
    await openCollection();
    await page.getByLabel('Files', { exact: true }).setInputFiles(samplePath('sample.pdf'));
    await page.getByLabel('Tags').first().fill('manuals, pdf');
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await uploadDone();
    assert.match((await rowText('sample.pdf')) ?? '', /^uploaded pending · open$/);
    // The collection's document list shows the new document without a reload.
    await page.locator('#documents tbody tr', { hasText: 'sample.pdf' }).waitFor();
    assert.equal(await page.locator('#documents', { hasText: 'No documents here yet' }).count(), 0);
    assert.ok(
      (await seen()).some((s) => /^sample\.pdf=(sent|uploading \d+%)$/.test(s)),
      'the progress bar moved',
    );
    assert.equal(await page.locator('.upload-item progress').evaluate((p) => (p as HTMLProgressElement).value), 1);
    const [doc] = await docs().then((l) => l.filter((x) => x.title === 'sample.pdf'));
    assert.ok(doc);
    pdfId = doc.uuid;
    assert.deepEqual(doc.tags, ['manuals', 'pdf']);
    // The page polls the status: the row turns indexed without a reload.
    await page.locator('.upload-item .badge', { hasText: 'indexed' }).waitFor();
    assert.equal(await page.evaluate(() => (window as unknown as { stay: boolean }).stay), true, 'no reload');
    await screenshot(page, 'upload-one');
  });

  it('uploads dropped files in one batch; the API’s skip reasons show per file', async () => {
    await openCollection();
    await drop([
      { name: 'notes.txt', type: 'text/plain', text: 'Seed catalogue: the amberwort needs shade.' },
      { name: 'readme.md', type: 'text/markdown', text: '# Readme\n\nSow in March.' },
      { name: 'setup.exe', type: 'application/x-msdownload', text: 'MZ not a document' },
    ]);
    await uploadDone();
    assert.equal(await page.locator('[data-upload-summary]').textContent(), '2 uploaded, 1 skipped. Refresh the list');
    assert.match((await rowText('notes.txt')) ?? '', /^uploaded pending/);
    assert.match((await rowText('readme.md')) ?? '', /^uploaded pending/);
    // Exactly the reason the API gives for the same file.
    const f = new FormData();
    f.append('files', new Blob(['MZ not a document'], { type: 'application/x-msdownload' }), 'setup.exe');
    const api = await req('POST', `/api/v1/collections/${col.uuid}/documents/`, { key: t.key, body: f });
    assert.equal(api.body.skipped.length, 1);
    assert.equal(await rowText('setup.exe'), `skipped: ${api.body.skipped[0].reason}`);
    assert.equal(await page.locator('.upload-item.skipped').count(), 1);
    for (const name of ['notes.txt', 'readme.md'])
      assert.ok(
        (await seen()).some((s) => s.startsWith(`${name}=`) && /=(sent|uploading)/.test(s)),
        name,
      );
    await page.locator('.upload-item .badge', { hasText: 'indexed' }).nth(1).waitFor();
    await screenshot(page, 'upload-batch');
    const titles = (await docs()).map((x) => x.title);
    assert.ok(titles.includes('notes.txt') && titles.includes('readme.md') && !titles.includes('setup.exe'));
  });

  it('shows the 50 MiB limit as the API gives it: skipped in a batch, refused alone', async () => {
    const before = (await docs()).length;
    await openCollection();
    await drop([
      { name: 'huge.pdf', type: 'application/pdf', size: 50 * MB + 1 },
      { name: 'tiny.txt', type: 'text/plain', text: 'small enough' },
    ]);
    await uploadDone();
    assert.equal(await rowText('huge.pdf'), 'skipped: File exceeds the 50 MiB limit.');
    assert.match((await rowText('tiny.txt')) ?? '', /^uploaded/);

    await openCollection();
    await drop([{ name: 'huge.pdf', type: 'application/pdf', size: 50 * MB + 1 }]);
    await uploadDone();
    assert.equal(await rowText('huge.pdf'), 'FILE_TOO_LARGE: File "huge.pdf" exceeds the 50 MiB limit.');
    assert.match(
      (await page.locator('[data-upload-summary]').textContent()) ?? '',
      /^Upload refused: File "huge.pdf" exceeds the 50 MiB limit\.$/,
    );
    await screenshot(page, 'upload-too-large');
    assert.equal((await docs()).length, before + 1, 'only tiny.txt was stored');
  });

  it('shows the batch limit of 100 files as the API gives it, and stores none', async () => {
    const before = (await docs()).length;
    await openCollection();
    await drop(Array.from({ length: 101 }, (_, i) => ({ name: `part-${i}.txt`, type: 'text/plain', text: `part ${i}` })));
    await uploadDone();
    assert.equal(await page.locator('.upload-item.failed').count(), 101);
    assert.equal(await rowText('part-0.txt'), 'VALIDATION_FAILED: A batch holds at most 100 files.');
    assert.equal((await docs()).length, before);
  });

  it('lists documents with status and tag filters and live status', async () => {
    await openCollection();
    const rows = page.locator('#documents tbody tr');
    assert.ok((await rows.count()) >= 5);
    const failedRow = page.locator('#documents tbody tr', { hasText: 'broken.pdf' });
    assert.equal((await failedRow.locator('.badge').textContent())?.trim(), 'failed');
    const error_message = (await d.deps.sql<{ error_message: string }[]>`select error_message from documents where id = ${failedId}`)[0]!
      .error_message;
    assert.ok(((await failedRow.locator('.error-detail').textContent()) ?? '').includes(error_message.slice(0, 40)));
    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('button', { name: 'Filter' }).click();
    assert.deepEqual(await rows.locator('.doc-title').allTextContents(), ['broken.pdf']);
    await page.goto(`${d.url}/app/collections/${col.uuid}`);
    await page.getByLabel('Tag', { exact: true }).fill('manuals');
    await page.getByRole('button', { name: 'Filter' }).click();
    assert.deepEqual(await rows.locator('.doc-title').allTextContents(), ['sample.pdf']);
    assert.deepEqual(await rows.first().locator('.chip').allTextContents(), ['manuals', 'pdf']);
    await screenshot(page, 'documents-filtered');

    // Live status: a pending document's badge follows the database without a reload.
    await d.deps.sql`update documents set status = 'pending' where id = ${pdfId}`;
    await page.reload();
    await page.evaluate(() => ((window as unknown as { stay: boolean }).stay = true));
    const badge = page.locator(`tr[data-doc-id="${pdfId}"] .badge`);
    assert.equal(await badge.textContent(), 'pending');
    await d.deps.sql`update documents set status = 'indexed' where id = ${pdfId}`;
    await page.locator(`tr[data-doc-id="${pdfId}"]:not([data-live]) .badge`, { hasText: 'indexed' }).waitFor();
    assert.equal(await page.evaluate(() => (window as unknown as { stay: boolean }).stay), true, 'no reload');
  });

  it('shows a document: metadata, chunks with page numbers, and downloads it', async () => {
    await page.goto(`${d.url}/app/collections/${col.uuid}`);
    await page.getByRole('link', { name: 'sample.pdf', exact: true }).click();
    assert.equal(new URL(page.url()).pathname, `/app/documents/${pdfId}`);
    const facts = (await page.locator('dl.facts').textContent()) ?? '';
    for (const s of ['indexed', 'pdf (application/pdf)', 'sample.pdf', 'manuals', pdfId]) assert.ok(facts.includes(s), `${s} in ${facts}`);
    const chunks = page.locator('.chunk');
    assert.equal(await chunks.count(), 2);
    assert.match((await chunks.nth(0).textContent()) ?? '', /page 1.*quillfeather/s);
    assert.match((await chunks.nth(1).textContent()) ?? '', /page 2.*lanternmoss/s);
    await screenshot(page, 'document-page');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download' }).click()]);
    assert.deepEqual(await readFile((await download.path())!), await readFile(samplePath('sample.pdf')));
    assert.equal(download.suggestedFilename(), 'sample.pdf');
  });

  it('shows why a document failed', async () => {
    await page.goto(`${d.url}/app/documents/${failedId}`);
    const error_message = (await d.deps.sql<{ error_message: string }[]>`select error_message from documents where id = ${failedId}`)[0]!
      .error_message;
    assert.equal(await page.getByRole('alert').textContent(), `Processing failed: ${error_message}`);
    assert.match((await page.locator('#chunks').textContent()) ?? '', /No chunks/);
    await screenshot(page, 'document-failed');
  });

  it('replaces the file, keeping the document', async () => {
    await page.goto(`${d.url}/app/documents/${pdfId}`);
    await page.getByLabel('File', { exact: true }).setInputFiles(samplePath('sample.docx'));
    await Promise.all([page.waitForURL(/done=replaced/), page.getByRole('button', { name: 'Upload replacement' }).click()]);
    // Pending first; the page reloads itself when processing is done and shows the new chunks.
    await page.locator('.chunk', { hasText: 'brambleflute' }).waitFor({ timeout: 60_000 });
    assert.match((await page.locator('dl.facts').textContent()) ?? '', /sample\.docx/);
    const detail = await req('GET', `/api/v1/documents/${pdfId}/`, { key: t.key });
    assert.equal(detail.body.original_filename, 'sample.docx');
    assert.equal(detail.body.status, 'indexed');
  });

  it('reprocesses a document', async () => {
    const generation = (await d.deps.sql<{ generation: number }[]>`select generation from documents where id = ${pdfId}`)[0]!.generation;
    await page.goto(`${d.url}/app/documents/${pdfId}`);
    await Promise.all([page.waitForURL(/done=reprocessed/), page.getByRole('button', { name: 'Reprocess' }).click()]);
    const [row] = await d.deps.sql<{ generation: number }[]>`select generation from documents where id = ${pdfId}`;
    assert.equal(row!.generation, generation + 1);
    await waitSettled(req, t.key, [pdfId]);
  });

  it('adds a text document, with validation errors beside the fields first', async () => {
    await page.goto(`${d.url}/app/collections/${col.uuid}`);
    const form = page.locator('form[action$="/text#add"]');
    await form.getByLabel('Title').fill('Pruning notes');
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      form.getByRole('button', { name: 'Add text' }).click(),
    ]);
    assert.equal(res.status(), 400);
    assert.equal(await page.locator('#error-summary').textContent(), 'There is a problemText: Required.');
    assert.equal(await page.locator('#error-summary a').getAttribute('href'), '#text-content');
    assert.equal(await page.locator('#text-content-error').textContent(), 'Required.');
    assert.equal(await page.locator('#text-content').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('#text-title').inputValue(), 'Pruning notes');
    await screenshot(page, 'add-text-errors');
    await page.locator('#text-content').fill('Prune the roses in late winter, above an outward-facing bud.');
    await page.locator('#text-tags').fill('garden');
    await Promise.all([
      page.waitForURL(/\/app\/documents\/[0-9a-f-]{36}\?done=added/),
      page.locator('form[action$="/text#add"] button').click(),
    ]);
    await page.locator('.chunk', { hasText: 'outward-facing bud' }).waitFor();
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Pruning notes');
  });

  it('adds a web page by URL; other schemes are refused beside the field', async () => {
    await page.goto(`${d.url}/app/collections/${col.uuid}`);
    await page.locator('#url-url').fill('ftp://example.test/file.html');
    await page.getByRole('button', { name: 'Add web page' }).click();
    assert.match((await page.locator('#url-url-error').textContent()) ?? '', /Only http and https URLs are allowed/);
    assert.equal(await page.locator('#url-url').inputValue(), 'ftp://example.test/file.html');
    await page.locator('#url-url').fill(siteUrl);
    await Promise.all([page.waitForURL(/done=added/), page.getByRole('button', { name: 'Add web page' }).click()]);
    await page.locator('.chunk', { hasText: 'zephyrcactus' }).waitFor();
    assert.match((await page.locator('dl.facts').textContent()) ?? '', new RegExp(siteUrl.replace(/[.?]/g, '\\$&')));
  });

  it('deletes a document after a confirmation', async () => {
    const id = (await docs()).find((x) => x.title === 'readme.md')!.uuid;
    await page.goto(`${d.url}/app/documents/${id}`);
    await page.getByRole('link', { name: 'Delete' }).click();
    await screenshot(page, 'document-delete-confirm');
    await Promise.all([page.waitForURL(/done=document-deleted/), page.getByRole('button', { name: 'Delete document' }).click()]);
    assert.equal((await req('GET', `/api/v1/documents/${id}/`, { key: t.key })).status, 404);
  });

  it('uploads without the page script: a plain form post and a results page', async () => {
    const ctx = await b.browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    const p = await ctx.newPage();
    await signIn(p, d.url, t.email, PASSWORD);
    await p.goto(`${d.url}/app/collections/${col.uuid}`);
    await p.getByLabel('Files', { exact: true }).setInputFiles([samplePath('sample.txt'), samplePath('image.png')]);
    const [res] = await Promise.all([
      p.waitForResponse((r) => r.request().method() === 'POST'),
      p.getByRole('button', { name: 'Upload', exact: true }).click(),
    ]);
    assert.equal(res.status(), 201);
    assert.equal(await p.getByRole('heading', { level: 1 }).textContent(), 'Upload finished');
    assert.match((await p.locator('.page-head').textContent()) ?? '', /1 uploaded, 1 skipped/);
    assert.match((await p.locator('.notice').textContent()) ?? '', /image\.png: Unsupported file type/);
    await screenshot(p, 'upload-results-no-script');
    await ctx.close();
  });

  it('refuses other users, missing tokens and cross-site posts with the API’s answers', async () => {
    const o = await b.newPage();
    await signIn(o.page, d.url, other.email, PASSWORD);
    const cookieOf = async (c: BrowserContext) => (await c.cookies()).map((x) => `${x.name}=${x.value}`).join('; ');
    const otherCookie = await cookieOf(o.context);
    const otherToken = await o.page.locator('input[name="_csrf"]').first().inputValue();
    const upload = (cookie: string, token: string | null, extra: Record<string, string> = {}) => {
      const f = new FormData();
      f.append('file', new Blob(['sneaky'], { type: 'text/plain' }), 'sneaky.txt');
      return fetch(`${d.url}/app/collections/${col.uuid}/documents`, {
        method: 'POST',
        body: f,
        headers: { cookie, accept: 'application/json', ...(token ? { 'x-csrf-token': token } : {}), ...extra },
      });
    };
    const before = (await docs()).length;
    // Invisible collection: 404, as from the API; visible but subscribed: 403 WRITE_ACCESS_REQUIRED.
    let r = await upload(otherCookie, otherToken);
    assert.equal(r.status, 404);
    assert.equal((await r.json()).code, 'COLLECTION_NOT_FOUND');
    await req('PATCH', `/api/v1/collections/${col.uuid}/`, { key: t.key, json: { is_public: true } });
    await req('POST', `/api/v1/collections/${col.slug}/subscribe/`, { key: other.key });
    r = await upload(otherCookie, otherToken);
    assert.equal(r.status, 403);
    assert.equal((await r.json()).code, 'WRITE_ACCESS_REQUIRED');
    for (const path of [`/app/documents/${pdfId}/reprocess`, `/app/documents/${pdfId}/delete`]) {
      const x = await fetch(d.url + path, {
        method: 'POST',
        body: new URLSearchParams({ _csrf: otherToken }),
        headers: { cookie: otherCookie },
        redirect: 'manual',
      });
      assert.equal(x.status, 403, path);
    }
    const replace = new FormData();
    replace.append('file', new Blob(['x'], { type: 'text/plain' }), 'x.txt');
    const rep = await fetch(`${d.url}/app/documents/${pdfId}/replace`, {
      method: 'POST',
      body: replace,
      headers: { cookie: otherCookie, accept: 'application/json', 'x-csrf-token': otherToken },
    });
    assert.equal(rep.status, 403);
    // The owner's own session, without the token or from another site: 403 CSRF_FAILED, nothing stored.
    const ownCookie = await cookieOf(context);
    const ownToken = await page.locator('input[name="_csrf"]').first().inputValue();
    r = await upload(ownCookie, null);
    assert.equal(r.status, 403);
    assert.equal((await r.json()).code, 'CSRF_FAILED');
    r = await upload(ownCookie, 'forged');
    assert.equal(r.status, 403);
    r = await upload(ownCookie, ownToken, { 'sec-fetch-site': 'cross-site' });
    assert.equal(r.status, 403);
    assert.equal((await docs()).length, before);
    // Statuses are only told for documents the user can read.
    await req('DELETE', `/api/v1/collections/${col.slug}/subscribe/`, { key: other.key });
    const st = await fetch(`${d.url}/app/documents/status?ids=${pdfId},${failedId}`, { headers: { cookie: otherCookie } });
    assert.deepEqual(await st.json(), { documents: [] });
    assert.equal((await o.page.goto(`${d.url}/app/documents/${pdfId}`))?.status(), 404);
    await o.context.close();
  });
});
