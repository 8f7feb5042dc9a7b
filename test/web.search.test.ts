// The search page in a real browser against a daemon with its worker, rate limits and metering on:
// matched passages with the query's words highlighted (stemmed like the search), the mode switch,
// the tag filter, validation errors; and metering like the API: UI searches count toward the
// plan's quota and the request log, and UI searches and session downloads toward the rate limit.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { TIER_LIMITS } from '../daemon/src/limits/windows.js';
import { samplePath } from './fixtures/samples.js';
import { admin, launchBrowser, screenshot, signIn, type TestBrowser } from './helpers/browser.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';

const PASSWORD = 'search page passphrase';
const NO_KEY = '00000000-0000-0000-0000-000000000000';

describe('web UI: search and metering', () => {
  let d: TestDaemon;
  let b: TestBrowser;
  let t: Tenant;
  let req: ReturnType<typeof http>;
  let page: Page;
  let context: BrowserContext;
  let pdfId = '';

  before(async () => {
    [d, b] = await Promise.all([
      startTestDaemon({ label: 'web_search', worker: true, env: { RATE_LIMITS_ENABLED: 'true', USAGE_FLUSH_MS: '50' } }),
      launchBrowser(),
    ]);
    req = http(d.url);
    t = await createTenant(d, 'web-search');
    // The Pro tier (300 requests a minute) leaves the set-up's API calls room; the limit tests fill the counter themselves.
    await d.deps.sql`update api_keys set rate_tier = 'pro' where user_id = ${t.userId}`;
    await admin(d, ['set-password', '--email', t.email, '--password-stdin'], PASSWORD);
    const garden = await makeCollection(req, t.key, 'Garden');
    const ids = [
      (await addText(req, t.key, garden.uuid, 'Indexing guide', 'Indexing makes search fast: the index stores every lexeme once.', 'docs'))
        .uuid,
      (await addText(req, t.key, garden.uuid, 'Tomatoes', 'Tomato plants need sun, water and a stake to climb.', 'garden')).uuid,
      (await addText(req, t.key, garden.uuid, 'Cats', 'The cat sat on the mat and purred all afternoon.', 'pets')).uuid,
    ];
    const f = new FormData();
    f.append('file', new Blob([await readFile(samplePath('sample.pdf'))], { type: 'application/pdf' }), 'manual.pdf');
    pdfId = (await req('POST', `/api/v1/collections/${garden.uuid}/documents/`, { key: t.key, body: f })).body.uuid;
    await waitSettled(req, t.key, [...ids, pdfId]);
    ({ page, context } = await b.newPage());
    await signIn(page, d.url, t.email, PASSWORD);
  });
  after(async () => {
    await b?.close();
    await d?.close();
  });

  const search = async (q: string, opts: { mode?: 'Hybrid' | 'Text' | 'Vector'; tags?: string } = {}) => {
    await page.goto(`${d.url}/app/search`);
    await page.getByLabel('Search', { exact: true }).fill(q);
    if (opts.mode) await page.getByLabel(new RegExp(`^${opts.mode}`)).check();
    if (opts.tags !== undefined) await page.getByLabel('Tags').fill(opts.tags);
    const [res] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === '/app/search' && r.request().method() === 'GET'),
      page.getByRole('button', { name: 'Search', exact: true }).click(),
    ]);
    await page.waitForLoadState();
    return res;
  };
  const titles = () => page.locator('ol.results .doc-title').allTextContents();
  const userRequestLog = () =>
    d.deps.sql<
      { key_id: string; endpoint: string; method: string; status: number; query: string; billable: boolean; result_count: number | null }[]
    >`
      select key_id, endpoint, method, status, query, billable, result_count from request_log where user_id = ${t.userId} and endpoint = '/app/search' order by id`;
  /**
   * The request log is written in batches, after the response: waits until it holds a UI search
   * for q. An earlier test's row may land in the same wait, so callers pick their rows by query.
   */
  const loggedWith = async (q: string) => {
    for (;;) {
      const rows = await userRequestLog();
      if (rows.some((r) => r.query === q)) return rows;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const quotaUsed = async () =>
    (
      await d.deps.sql<
        { n: number }[]
      >`select coalesce(sum(searches), 0)::int as n from search_quota_usage where organization_id = ${t.orgId}`
    )[0]!.n;
  const limitCount = async () =>
    (
      await d.deps.sql<{ n: number }[]>`select coalesce(sum(day_count), 0)::int as n from rate_limit_counters where user_id = ${t.userId}`
    )[0]!.n;

  it('highlights the query’s words in the matched passage, stemmed like the search', async () => {
    assert.equal((await search('indexes', { mode: 'Text' })).status(), 200);
    assert.deepEqual(await titles(), ['Indexing guide']);
    const marks = await page.locator('ol.results .snippet mark').allTextContents();
    assert.deepEqual(marks, ['Indexing', 'index'], 'both forms of the word are marked, nothing else');
    assert.equal(
      (await page.locator('ol.results .snippet').first().textContent())?.trim(),
      'Indexing makes search fast: the index stores every lexeme once.',
    );
    await screenshot(page, 'search-highlight');
    await page.locator('ol.results .doc-title').first().click();
    assert.match(page.url(), /\/app\/documents\/[0-9a-f-]{36}$/);
  });

  it('shows the page of a PDF passage, and escapes what it highlights', async () => {
    await search('lanternmoss <b>bold</b>', { mode: 'Text' });
    const first = page.locator('ol.results > li').first();
    assert.match((await first.textContent()) ?? '', /manual\.pdf · Garden · page 2/);
    assert.deepEqual(await first.locator('mark').allTextContents(), ['lanternmoss']);
    assert.equal(await page.locator('ol.results b').count(), 0, 'query text is never markup');
  });

  it('switches modes: text needs the words, vector finds by meaning', async () => {
    await search('kitten resting on a rug', { mode: 'Text' });
    assert.match((await page.locator('#results-title').locator('..').textContent()) ?? '', /0 ranked results · text/);
    assert.match((await page.locator('.empty').textContent()) ?? '', /Nothing matched/);
    await search('kitten resting on a rug', { mode: 'Vector' });
    assert.equal(new URL(page.url()).searchParams.get('mode'), 'vector');
    assert.equal(await page.getByLabel(/^Vector/).isChecked(), true, 'the chosen mode stays selected');
    // The selected segment's radio is drawn filled (a dot in the label's colour), never an empty ring
    // on the accent background; the others are empty rings.
    const drawn = await page.locator('.segmented-radio input').evaluateAll((inputs) =>
      inputs.map((i) => {
        const dot = getComputedStyle(i);
        return { checked: (i as HTMLInputElement).checked, fill: dot.backgroundColor, ink: getComputedStyle(i.closest('label')!).color };
      }),
    );
    for (const r of drawn) {
      if (r.checked) assert.equal(r.fill, r.ink, `the selected mode's radio is filled: ${JSON.stringify(r)}`);
      else assert.match(r.fill, /rgba\(0, 0, 0, 0\)|transparent/, `an unselected mode's radio is an empty ring: ${JSON.stringify(r)}`);
    }
    assert.match((await page.locator('#results-title').locator('..').textContent()) ?? '', /ranked results? · vector/);
    assert.equal((await titles())[0], 'Cats');
    await screenshot(page, 'search-vector');
  });

  it('filters by tag, also from a result’s tag chip', async () => {
    await search('plants cat index', { mode: 'Text' });
    assert.deepEqual((await titles()).sort(), ['Cats', 'Indexing guide', 'Tomatoes']);
    await search('plants cat index', { tags: 'garden' });
    assert.deepEqual(await titles(), ['Tomatoes']);
    await search('plants cat index', { tags: 'pets, docs' });
    assert.deepEqual((await titles()).sort(), ['Cats', 'Indexing guide']);
    await page.locator('ol.results .chip', { hasText: 'pets' }).click();
    assert.equal(await page.getByLabel('Tags').inputValue(), 'pets');
    assert.deepEqual(await titles(), ['Cats']);
  });

  it('explains a refused search at the top and beside the field', async () => {
    const res = await search('   ');
    assert.equal(res.status(), 400);
    assert.equal(await page.locator('#error-summary').textContent(), 'There is a problemSearch: Query must not be empty.');
    assert.equal(await page.locator('#error-summary a').getAttribute('href'), '#q');
    assert.equal(await page.locator('#q-error').textContent(), 'Query must not be empty.');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'error-summary');
    await screenshot(page, 'search-errors');
    const unknown = await page.goto(`${d.url}/app/search?q=cat&collection=not-mine`);
    assert.equal(unknown?.status(), 404);
    assert.equal(await page.locator('#search-collection-error').textContent(), 'Collection not found.');
    assert.match((await page.locator('#error-summary').textContent()) ?? '', /Collection: Collection not found/);
  });

  it('counts UI searches toward the plan quota and the request log, like API searches', async () => {
    const before = await quotaUsed();
    await search('tomato stake', { mode: 'Text' });
    assert.equal(await quotaUsed(), before + 1);
    const rows = await loggedWith('tomato stake');
    const mine = rows.filter((r) => r.query === 'tomato stake');
    assert.equal(mine.length, 1, 'one row per search');
    assert.deepEqual(mine[0], {
      key_id: NO_KEY,
      endpoint: '/app/search',
      method: 'GET',
      status: 200,
      query: 'tomato stake',
      billable: true,
      result_count: 1,
    });
    const [daily] = await d.deps.sql<{ billable: number }[]>`
      select billable_searches::int as billable from usage_daily where key_id = ${NO_KEY} and organization_id = ${t.orgId}`;
    assert.equal(daily!.billable, rows.filter((r) => r.billable).length, 'billed through the daily rollups');
    // A search refused as invalid is neither charged nor counted.
    await search('   ');
    assert.equal(await quotaUsed(), before + 1);
    await page.goto(`${d.url}/app/usage?days=7`);
    const row = page.locator('#log tbody tr', { hasText: 'tomato stake' }).first();
    assert.deepEqual((await row.locator('td').allTextContents()).slice(1, 4), ['web UI', 'GET /app/search', '“tomato stake”']);
  });

  it('refuses UI searches once the Free plan’s quota is used up (429), keeping the form', async () => {
    await d.deps.sql`update search_quota_usage set searches = 1000 where organization_id = ${t.orgId}`;
    try {
      const res = await search('tomato stake', { mode: 'Text' });
      assert.equal(res.status(), 429);
      assert.ok(Number(res.headers()['retry-after']) > 0);
      assert.match((await page.locator('#error-summary').textContent()) ?? '', /Plan quota used up: the Free plan includes 1,000 searches/);
      assert.equal(await page.getByLabel('Search', { exact: true }).inputValue(), 'tomato stake');
      assert.equal(await page.locator('ol.results').count(), 0);
      await screenshot(page, 'search-quota-used');
      assert.equal(await quotaUsed(), 1000, 'a refused search uses nothing');
    } finally {
      await d.deps.sql`update search_quota_usage set searches = 10 where organization_id = ${t.orgId}`;
    }
  });

  it('does not run a search opened from another site until the person confirms it', async () => {
    const before = await quotaUsed();
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const r = await fetch(`${d.url}/app/search?q=tomato`, { headers: { cookie, 'sec-fetch-site': 'cross-site' } });
    assert.equal(r.status, 200);
    const html = await r.text();
    assert.match(html, /opened from another site\. Press Search to run it/);
    assert.doesNotMatch(html, /class="results"/);
    assert.equal(await quotaUsed(), before);
  });

  it('counts UI searches and session downloads against the rate limit, and refuses them when it is reached', async () => {
    await d.deps.sql`delete from rate_limit_counters where user_id = ${t.userId}`;
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    await search('tomato', { mode: 'Text' });
    assert.equal(await limitCount(), 1, 'one UI search, one request');
    await page.goto(`${d.url}/app/documents/${pdfId}`);
    assert.equal(await limitCount(), 1, 'page views are not counted');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download' }).click()]);
    assert.equal(download.suggestedFilename(), 'manual.pdf');
    assert.equal(await limitCount(), 2, 'a session download counts');
    const viaApi = await fetch(`${d.url}/api/v1/documents/${pdfId}/download/`, { headers: { cookie }, redirect: 'manual' });
    assert.equal(viaApi.status, 302);
    assert.equal(viaApi.headers.get('x-ratelimit-limit'), String(TIER_LIMITS.pro.minute));
    assert.equal(await limitCount(), 3, 'the API download route with the session cookie counts too');

    // The day's allowance used up: everything metered is refused with 429 until it resets.
    await d.deps.sql`update rate_limit_counters set day_count = ${TIER_LIMITS.pro.day} where user_id = ${t.userId}`;
    const res = await search('tomato', { mode: 'Text' });
    assert.equal(res.status(), 429);
    assert.match(
      (await page.locator('#error-summary').textContent()) ?? '',
      /Rate limit exceeded: 100000 requests per day on the pro tier/,
    );
    const page429 = await page.goto(`${d.url}/app/documents/${pdfId}/download`);
    assert.equal(page429?.status(), 429);
    assert.ok(Number(page429?.headers()['retry-after']) > 0);
    assert.match((await page.locator('main').textContent()) ?? '', /429 · RATE_LIMIT_EXCEEDED/);
    await screenshot(page, 'download-rate-limited');
    const api429 = await fetch(`${d.url}/api/v1/documents/${pdfId}/download/`, { headers: { cookie }, redirect: 'manual' });
    assert.equal(api429.status, 429);
    assert.equal((await api429.json()).code, 'RATE_LIMIT_EXCEEDED');
    await d.deps.sql`delete from rate_limit_counters where user_id = ${t.userId}`;
  });
});
