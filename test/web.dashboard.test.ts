// The landing overview (collections, documents, search) and the usage dashboard in a real browser,
// against a daemon with its worker: ingestion results show up, traffic shows up in the totals,
// the chart and the request log; the plan and invoices come from the billing module.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { writeRecords } from '../daemon/src/usage/log-writer.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { admin, launchBrowser, screenshot, signIn, type TestBrowser } from './helpers/browser.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const PASSWORD = 'dashboard passphrase 7';
const num = (s: string | null) => Number((s ?? '').replace(/[^0-9.]/g, ''));

describe('web UI: overview and usage dashboard', () => {
  let d: TestDaemon;
  let b: TestBrowser;
  let t: Tenant;
  let req: ReturnType<typeof http>;
  let page: Page;
  const ids: string[] = [];
  let failedId = '';

  /** The tenant's usage totals once every answered request's log record is written (the writer flushed). */
  async function settledUsage(): Promise<{ requests: number; errors: number }> {
    await d.deps.usageLog.flush();
    const [row] = await d.deps.sql<{ requests: number; errors: number }[]>`
      select coalesce(sum(requests), 0)::int as requests, coalesce(sum(errors), 0)::int as errors from usage_daily where organization_id = ${t.orgId}`;
    return row!;
  }

  before(async () => {
    [d, b] = await Promise.all([
      startTestDaemon({ label: 'web_dash', worker: true, env: { PROCESS_MAX_ATTEMPTS: '1', USAGE_FLUSH_MS: '50' } }),
      launchBrowser(),
    ]);
    req = http(d.url);
    t = await createTenant(d, 'web-dash');
    await admin(d, ['set-password', '--email', t.email, '--password-stdin'], PASSWORD);
    const notes = await makeCollection(req, t.key, 'Field notes', { description: 'Observations from the garden' });
    await makeCollection(req, t.key, 'Empty shelf');
    const single = await makeCollection(req, t.key, 'Single page');
    ids.push((await addText(req, t.key, single.uuid, 'Lone note', 'One short note.')).uuid);
    ids.push((await addText(req, t.key, notes.uuid, 'Cats', 'The cat sat on the mat and purred all afternoon.', 'pets')).uuid);
    ids.push((await addText(req, t.key, notes.uuid, 'Tomatoes', 'Tomato plants need sun, water and a stake to climb.', 'garden')).uuid);
    const f = new FormData();
    f.append('file', new Blob([Buffer.from('%PDF-1.4\nthis is not really a pdf at all\n')], { type: 'application/pdf' }), 'broken.pdf');
    failedId = (await req('POST', `/api/v1/collections/${notes.uuid}/documents/`, { key: t.key, body: f })).body.uuid;
    await waitSettled(req, t.key, [...ids, failedId]);
    // Three days ago, written through the metering module's own writer: older bars for the chart.
    const old = new Date(Date.now() - 3 * 86_400_000);
    const keyId = (await d.deps.sql<{ id: string }[]>`select id from api_keys where user_id = ${t.userId}`)[0]!.id;
    await writeRecords(
      d.deps.sql,
      Array.from({ length: 40 }, (_, i) => ({
        ts: old,
        organizationId: t.orgId,
        userId: t.userId,
        keyId,
        method: 'POST',
        endpoint: '/api/v1/search',
        status: i < 6 ? 500 : 200,
        durationUs: 12_000,
        query: `older query ${i}`,
        resultCount: 3,
        billable: i >= 6,
      })),
    );
    const ctx = await b.newPage();
    page = ctx.page;
    await signIn(page, d.url, t.email, PASSWORD);
  });
  after(async () => {
    await b?.close();
    await d?.close();
  });

  it('lands on the overview: collections with counts, status badges, the failure reason', async () => {
    assert.equal(new URL(page.url()).pathname, '/app/');
    const card = page.locator('article', { hasText: 'Field notes' });
    const text = (await card.textContent()) ?? '';
    assert.match(text, /3 documents/);
    assert.match(text, /2 indexed/);
    assert.match(text, /1 failed/);
    assert.match((await page.locator('article', { hasText: 'Empty shelf' }).textContent()) ?? '', /0 documents/);
    // One of a thing is singular.
    const single = (await page.locator('article', { hasText: 'Single page' }).textContent()) ?? '';
    assert.match(single, /(?<!\d)1 document(?!s)/);
    assert.match(single, /(?<!\d)1 chunk(?!s)/);
    const failedRow = page.locator('tbody tr', { hasText: 'broken.pdf' });
    assert.equal((await failedRow.locator('.badge').textContent())?.trim(), 'failed');
    const [doc] = await d.deps.sql<{ error_message: string }[]>`select error_message from documents where id = ${failedId}`;
    assert.ok(doc!.error_message.length > 0);
    assert.ok(((await failedRow.locator('.error-detail').textContent()) ?? '').includes(doc!.error_message.slice(0, 40)));
    assert.equal((await page.locator('tbody tr', { hasText: 'Tomatoes' }).locator('.badge').textContent())?.trim(), 'indexed');
    await screenshot(page, 'overview');
    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('button', { name: 'Filter' }).click();
    assert.equal(await page.locator('#documents tbody tr').count(), 1);
  });

  it('searches from the overview and shows ranked results with scores, metered', async () => {
    const before = await settledUsage();
    await page.goto(`${d.url}/app/`);
    await page.getByLabel('Search', { exact: true }).fill('cat on the mat');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const results = page.locator('ol.results > li');
    assert.ok((await results.count()) >= 1);
    assert.match((await results.first().textContent()) ?? '', /Cats/);
    const scores = (await page.locator('ol.results .score').allTextContents()).map(num);
    assert.deepEqual(
      [...scores].sort((x, y) => y - x),
      scores,
      'ranked by score',
    );
    assert.ok(scores[0]! > 0);
    await screenshot(page, 'overview-search');
    // Searches from the UI are metered like API searches (quota and request log).
    assert.deepEqual(await settledUsage(), { requests: before.requests + 1, errors: before.errors }, 'the UI search was metered');
  });

  it('reflects new traffic in the totals, the chart and the request log', async () => {
    const base = await settledUsage();
    await page.goto(`${d.url}/app/usage?days=7`);
    assert.equal(num(await page.locator('#total-requests').textContent()), base.requests);
    assert.equal(num(await page.locator('#error-count').textContent()), base.errors);
    const today = page.locator('#volume-chart .col').last();
    const todayBefore = Number(await today.getAttribute('data-requests'));

    for (let i = 0; i < 11; i++)
      assert.equal((await req('POST', '/api/v1/search/', { key: t.key, json: { query: `tomato stake ${i}`, mode: 'text' } })).status, 200);
    for (let i = 0; i < 4; i++)
      assert.equal((await req('GET', `/api/v1/documents/00000000-0000-4000-8000-00000000000${i}/`, { key: t.key })).status, 404);
    const after = await settledUsage();
    assert.equal(after.requests, base.requests + 15);

    await page.goto(`${d.url}/app/usage?days=7`);
    assert.equal(num(await page.locator('#total-requests').textContent()), base.requests + 15);
    assert.equal(num(await page.locator('#error-count').textContent()), base.errors + 4);
    assert.equal(Number(await today.getAttribute('data-requests')), todayBefore + 15);
    assert.ok(Number(await today.getAttribute('data-errors')) >= 4);
    const threeDaysAgo = page.locator('#volume-chart .col').nth(3);
    assert.equal(await threeDaysAgo.getAttribute('data-requests'), '40');
    assert.equal(await threeDaysAgo.getAttribute('data-errors'), '6');
    assert.ok(Number(await page.locator('#volume-chart .bar-requests').count()) >= 2, 'bars drawn');
    assert.ok(((await page.locator('#avg-response').textContent()) ?? '').includes('ms'));

    const newest = page.locator('#log tbody tr').first();
    const cells = await newest.locator('td').allTextContents();
    assert.match(cells[2]!, /GET \/api\/v1\/documents\/\{uuid\}/);
    assert.equal(cells[6], '404');
    const searchRow = page.locator('#log tbody tr', { hasText: 'tomato stake 10' });
    const sc = await searchRow.locator('td').allTextContents();
    assert.match(sc[3]!, /tomato stake 10/);
    assert.match(sc[4]!, /^\d+$/, 'result count');
    assert.match(sc[5]!, /ms/);
    assert.equal(sc[6], '200');
    const perKey = (await page.locator('#per-key-title + .table-wrap tbody tr').first().textContent()) ?? '';
    assert.match(perKey, /first key/);

    // Keyboard: the newest day has focus stop; arrow keys move along the chart and the readout follows.
    await today.focus();
    await page.keyboard.press('ArrowLeft');
    assert.match((await page.locator('#volume-chart-readout').textContent()) ?? '', /requests, \d+ errors/);
    await screenshot(page, 'usage-7-days');
  });

  it('shows every column of the By key table at 1280 px, AVG TIME included', async () => {
    const narrow = await b.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await signIn(narrow.page, d.url, t.email, PASSWORD);
      await narrow.page.goto(`${d.url}/app/usage?days=7`);
      const wrap = narrow.page.locator('#per-key-title + .table-wrap');
      const fit = await wrap.evaluate((el) => ({
        scroll: el.scrollWidth,
        client: el.clientWidth,
        right: el.getBoundingClientRect().right,
      }));
      assert.ok(fit.scroll <= fit.client, `the By key table scrolls: ${fit.scroll} px of content in ${fit.client} px`);
      const avg = await wrap.locator('th', { hasText: /avg time/i }).boundingBox();
      assert.ok(avg && avg.x + avg.width <= fit.right + 0.5, `AVG TIME ends at ${avg && avg.x + avg.width}, the table at ${fit.right}`);
      await screenshot(narrow.page, 'usage-by-key-1280');
    } finally {
      await narrow.context.close();
    }
  });

  it('pages through the request log and switches periods', async () => {
    await page.goto(`${d.url}/app/usage?days=30`);
    assert.equal(await page.locator('#volume-chart .col').count(), 30);
    const stamps = async () =>
      (await page.locator('#log tbody tr time').evaluateAll((els) => els.map((e) => e.getAttribute('datetime') ?? ''))).map((t) =>
        Date.parse(t),
      );
    const first = await stamps();
    assert.equal(first.length, 25);
    assert.deepEqual(
      [...first].sort((a, b) => b - a),
      first,
      'newest first',
    );
    await page.getByRole('link', { name: /Older requests/ }).click();
    const second = await stamps();
    assert.ok(second.length > 0);
    // Rows render at minute precision, so distinct requests can look identical; the page order is what must hold.
    assert.ok(Math.max(...second) <= Math.min(...first), 'the older page continues where the first ended');
    await page.getByRole('link', { name: /Newest/ }).click();
    await page.getByRole('link', { name: '90 days' }).click();
    assert.equal(await page.locator('#volume-chart .col').count(), 90);
    assert.equal(await page.getByRole('link', { name: '90 days' }).getAttribute('aria-current'), 'true');
    await screenshot(page, 'usage-90-days');
  });

  it('shows the plan, quota use, projected overage and past invoices', async () => {
    await d.deps.sql`update organizations set billing_cycle_anchor = now() - interval '70 days' where id = ${t.orgId}`;
    assert.equal((await admin(d, ['set-plan', '--org', t.orgId, '--plan', 'starter'])).code, 0);
    assert.equal((await admin(d, ['close-invoices', '--org', t.orgId])).code, 0);
    await page.goto(`${d.url}/app/usage`);
    const plan = (await page.locator('#plan-title').locator('..').locator('..').textContent()) ?? '';
    assert.match(plan, /Plan: Starter/);
    assert.match(plan, /of 10,000 included searches used/);
    assert.match(plan, /\$0\.002 per query/);
    assert.match((await page.locator('#projected-overage').textContent()) ?? '', /^\$\d+\.\d\d$/);
    const invoices = page.locator('#invoices-title').locator('xpath=../..').locator('tbody tr');
    assert.equal(await invoices.count(), 2);
    assert.match((await invoices.first().textContent()) ?? '', /\$\d+\.\d\d/);
    await screenshot(page, 'usage-plan-invoices');
  });

  it('renders in dark mode too', async () => {
    const dark = await b.newPage({ colorScheme: 'dark' });
    await signIn(dark.page, d.url, t.email, PASSWORD);
    const bg = await dark.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.notEqual(bg, 'rgb(244, 242, 236)', 'not the light background');
    await screenshot(dark.page, 'overview-dark');
    await dark.page.goto(`${d.url}/app/usage?days=7`);
    const bar = await dark.page
      .locator('#volume-chart .bar-requests')
      .first()
      .evaluate((e) => getComputedStyle(e).fill);
    assert.equal(bar, 'rgb(63, 208, 173)', 'chart colours follow the scheme');
    await screenshot(dark.page, 'usage-dark');
    await dark.page.goto(`${d.url}/app/keys`);
    await screenshot(dark.page, 'keys-dark');
    await dark.context.close();
  });
});
