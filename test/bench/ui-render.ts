// `npm run bench:ui`: server-side render time of every web UI page with 90 days of usage data
// for 1M logged requests (plus keys, collections, documents and invoices), on a fresh database.
//
// The usage tables are seeded with SQL generate_series (request_log, then usage_daily rolled up
// from it exactly as the log writer would), the daemon runs in-process (API only), a real session
// is obtained through the sign-in form, and each page is fetched over HTTP. The figure reported
// is the page's Server-Timing (`app;dur`: from the web middleware to the finished HTML, database
// queries and JSX rendering included); the full HTTP round trip is shown next to it.
// Knobs (env): BENCH_UI_REQUESTS (1000000), BENCH_UI_RUNS (20), BENCH_UI_DOCS (5000).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setUserPassword } from '../../daemon/src/auth/sessions.js';
import { closeInvoices } from '../../daemon/src/billing/invoices.js';
import { loadConfig, resolvedConfig } from '../../daemon/src/config.js';
import { createLogger } from '../../daemon/src/logger.js';
import { startDaemon, type Daemon } from '../../daemon/src/server.js';
import { createUserWithKey } from '../../daemon/src/accounts/create.js';
import { issueKey } from '../../daemon/src/auth/issue-key.js';
import { benchDatabase } from './lib/env.js';
import { machineInfo, printTable, writeResults } from './lib/report.js';

const envInt = (name: string, def: number) => (process.env[name] ? Number(process.env[name]) : def);
const REQUESTS = envInt('BENCH_UI_REQUESTS', 1_000_000);
const RUNS = envInt('BENCH_UI_RUNS', 20);
const DOCS = envInt('BENCH_UI_DOCS', 5000);
const WARMUP = 3;
const PASSWORD = 'bench passphrase for the ui';
const log = (m: string) => process.stderr.write(`[bench:ui] ${m}\n`);

async function seed(d: Daemon): Promise<{ email: string; orgId: string; keyId: string }> {
  const sql = d.deps.sql;
  const now = d.deps.clock.now();
  const email = 'bench-ui@example.test';
  const owner = await createUserWithKey(sql, { email, newOrganization: 'Bench org', tier: 'pro', now });
  const orgId = owner.organization.id;
  await sql.begin((tx) => setUserPassword(tx, owner.user.id, PASSWORD, now));
  for (const name of ['ingest worker', 'support bot', 'analytics', 'staging', 'mobile app', 'partner feed']) {
    await issueKey(sql, { userId: owner.user.id, name, isFullAccess: name === 'ingest worker', tier: 'pro', expiresIn: '1y', now });
  }
  const keys = (await sql<{ id: string }[]>`select id from api_keys where user_id = ${owner.user.id} order by created_at`).map((k) => k.id);

  // Collections and documents (mixed statuses, a few failures with reasons), straight into the tables.
  for (const [i, name] of ['Handbook', 'Contracts', 'Support tickets', 'Research'].entries()) {
    await sql`insert into collections (owner_id, organization_id, name, slug, description) values (${owner.user.id}, ${orgId}, ${name}, ${name.toLowerCase().replace(/ /g, '-')}, ${`Bench collection ${i + 1}`})`;
  }
  await sql`
    insert into documents (collection_id, uploaded_by, title, source_type, status, tags, metadata, original_filename, file_size, error_message, chunks_count, created_at)
    select c.id, ${owner.user.id}, 'Document ' || g, 'pdf',
           case when g % 50 = 0 then 'failed' when g % 17 = 0 then 'pending' else 'indexed' end,
           array['bench', 'tag' || (g % 7)],
           jsonb_build_object('dept', (array['legal', 'hr', 'finance', 'ops'])[1 + g % 4], 'year', 2020 + g % 6, 'ref', 'REF-' || g,
                              'parties', jsonb_build_array('party' || (g % 9), 'party' || (g % 5))),
           'document-' || g || '.pdf', 10000 + g * 37,
           case when g % 50 = 0 then 'The PDF file is corrupt or unreadable: Invalid PDF structure.' else '' end,
           case when g % 50 = 0 or g % 17 = 0 then 0 else 3 + g % 20 end,
           ${now}::timestamptz - (g || ' minutes')::interval
      from generate_series(1, ${DOCS}) g
      join lateral (select id from collections where organization_id = ${orgId} order by created_at offset (g % 4) limit 1) c on true`;

  // 1M requests spread evenly over 90 days, newest now: ~30% searches with query text, ~4% errors.
  const t0 = Date.now();
  const span = 90 * 86_400;
  await sql`
    insert into request_log (ts, organization_id, user_id, key_id, method, endpoint, status, duration_us, query, result_count, billable)
    select ${now}::timestamptz - ((g::float8 / ${REQUESTS}) * ${span}) * interval '1 second',
           ${orgId}, ${owner.user.id}, (${sql.array(keys)}::uuid[])[1 + (g::bigint * 7919) % ${keys.length}],
           case when g % 10 < 3 then 'POST' else 'GET' end,
           case when g % 10 < 3 then '/api/v1/search' when g % 10 < 6 then '/api/v1/documents/{uuid}' when g % 10 < 8 then '/api/v1/collections' else '/mcp' end,
           case when g % 25 = 0 then 404 when g % 97 = 0 then 429 when g % 499 = 0 then 500 else 200 end,
           2000 + ((g::bigint * 104729) % 90000)::int,
           case when g % 10 < 3 then 'how do I configure ' || (array['sso', 'billing', 'webhooks', 'retention', 'exports'])[1 + g % 5] end,
           case when g % 10 < 3 then (g % 11) end,
           g % 10 < 3 and g % 25 <> 0
      from generate_series(1, ${REQUESTS}) g`;
  await sql`
    insert into usage_daily (key_id, day, organization_id, user_id, requests, errors, total_duration_us, searches, billable_searches)
    select key_id, (ts at time zone 'UTC')::date, organization_id, user_id, count(*), count(*) filter (where status >= 400),
           sum(duration_us), count(query), count(*) filter (where billable)
      from request_log group by 1, 2, 3, 4`;
  await sql`vacuum analyze request_log`;
  await sql`vacuum analyze usage_daily`;
  log(`seeded ${REQUESTS.toLocaleString('en-US')} requests in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  // Invoices for the cycles that ended inside the 90 days, made by the billing module itself.
  await sql`update organizations set plan = 'pro', billing_cycle_anchor = ${now}::timestamptz - interval '95 days' where id = ${orgId}`;
  await closeInvoices({ sql, clock: d.deps.clock, logger: d.deps.logger, stripe: null }, { orgId });
  const cycleSearches = await sql<{ n: number }[]>`
    select count(*)::int as n from request_log where organization_id = ${orgId} and billable
       and ts >= (select max(period_end) from invoices where organization_id = ${orgId})`;
  await sql`
    insert into search_quota_usage (organization_id, cycle_start, searches)
    select ${orgId}, max(period_end), ${cycleSearches[0]!.n} from invoices where organization_id = ${orgId}`;
  return { email, orgId, keyId: keys[1]! };
}

async function signIn(base: string, email: string): Promise<string> {
  const form = await fetch(`${base}/app/sign-in`);
  const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const pre = form.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const r = await fetch(`${base}/app/sign-in`, {
    method: 'POST',
    body: new URLSearchParams({ _csrf: token, email, password: PASSWORD }),
    headers: { cookie: pre },
    redirect: 'manual',
  });
  const session = r.headers.getSetCookie().find((c) => c.startsWith('docsift_session='));
  if (r.status !== 303 || !session) throw new Error(`sign-in failed: ${r.status}`);
  return session.split(';')[0]!;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const r1 = (n: number) => Math.round(n * 10) / 10;

async function main(): Promise<void> {
  const db = await benchDatabase('ui_render');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'docsift-bench-ui-'));
  const config = loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    DATABASE_URL: db.url,
    SIGNING_SECRET: 'bench-signing-secret-0123456789abcdef0123456789',
    RATE_LIMITS_ENABLED: 'false',
  });
  const d = await startDaemon(resolvedConfig(config), createLogger('warn'), { api: true, worker: false, migrate: false });
  try {
    const { email, keyId } = await seed(d);
    const [col] = await d.deps.sql<{ id: string }[]>`select id from collections where slug = 'handbook'`;
    const [doc] = await d.deps.sql<{ id: string }[]>`select id from documents where collection_id = ${col!.id} limit 1`;
    await d.deps.sql`update users set is_admin = true where lower(email) = ${email}`;
    await d.deps.sql`update collections set is_public = true where slug in ('handbook', 'research')`;
    const cookie = await signIn(d.url, email);
    const page2 = await fetch(`${d.url}/app/usage?days=90`, { headers: { cookie } });
    const cursor = /cursor=([^"&#]+)/.exec(await page2.text())?.[1];
    const pages: [string, string][] = [
      ['sign-in (signed out)', '/app/sign-in'],
      ['overview: collections + documents', '/app/'],
      ['overview, failed filter', '/app/?status=failed'],
      ['API keys list', '/app/keys'],
      ['API key manage', `/app/keys/${keyId}`],
      ['usage, 7 days', '/app/usage?days=7'],
      ['usage, 30 days', '/app/usage?days=30'],
      ['usage, 90 days', '/app/usage?days=90'],
      ['usage, 90 days, log page 2', `/app/usage?days=90&cursor=${cursor}`],
      ['collection page (documents, tags)', `/app/collections/${col!.id}`],
      ['collection page, tag filter', `/app/collections/${col!.id}?tag=tag3`],
      ['document page', `/app/documents/${doc!.id}`],
      ['search form (metadata keys and values in scope)', '/app/search'],
      ['public catalogue', '/app/catalogue'],
      ['users (admin)', '/app/admin/users'],
    ];
    const rows: (string | number)[][] = [];
    const results: Record<string, unknown>[] = [];
    for (const [name, p] of pages) {
      const server: number[] = [];
      const total: number[] = [];
      let bytes = 0;
      for (let i = 0; i < WARMUP + RUNS; i++) {
        const t = performance.now();
        const r = await fetch(d.url + p, { headers: p === '/app/sign-in' ? {} : { cookie }, redirect: 'manual' });
        const body = await r.text();
        const elapsed = performance.now() - t;
        if (r.status !== 200) throw new Error(`${p}: ${r.status}`);
        if (i < WARMUP) continue;
        server.push(Number(/app;dur=([\d.]+)/.exec(r.headers.get('server-timing') ?? '')?.[1]));
        total.push(elapsed);
        bytes = body.length;
      }
      const row = {
        page: name,
        path: p.replace(/cursor=.*/, 'cursor=…'),
        server_ms_p50: r1(pct(server, 50)),
        server_ms_p95: r1(pct(server, 95)),
        http_ms_p50: r1(pct(total, 50)),
        html_kb: r1(bytes / 1024),
      };
      results.push(row);
      rows.push([row.page, row.server_ms_p50, row.server_ms_p95, row.http_ms_p50, row.html_kb]);
    }
    printTable(
      `Server-side render time, ${REQUESTS.toLocaleString('en-US')} logged requests over 90 days, ${DOCS} documents (${RUNS} runs each)`,
      ['page', 'server p50 ms', 'server p95 ms', 'HTTP p50 ms', 'HTML KB'],
      rows,
    );
    const file = writeResults('ui-render', { machine: machineInfo(), requests: REQUESTS, documents: DOCS, runs: RUNS, pages: results });
    log(`results written to ${file}`);
  } finally {
    await d.stop();
    await db.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench:ui] ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
