// `npm run bench:list`: GET /api/v1/documents/ without `limit` answers every visible document in one
// array (docs/service-spec.md §4), streamed from a database cursor. This measures what that costs
// the daemon at BENCH_DOCS documents (default 100,000): time to first byte, total time, bytes, and the
// daemon process's RSS before and at its peak, beside the floor of one paginated page (limit=500).
// The client counts bytes without parsing, so its own memory does not matter.
import path from 'node:path';
import { createSql } from '../../daemon/src/db/client.js';
import { createUserWithKey } from '../../daemon/src/accounts/create.js';
import { benchDatabase, benchTempDir, startDaemonProcess } from './lib/env.js';
import { rssMb, sampleRss } from './lib/metrics.js';
import { machineInfo, printTable, writeResults } from './lib/report.js';

const DOCS = Number(process.env.BENCH_DOCS ?? 100_000);

async function timedGet(url: string, key: string): Promise<{ status: number; ttfbMs: number; totalMs: number; bytes: number }> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  const ttfbMs = performance.now() - t0;
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.byteLength;
  return { status: res.status, ttfbMs, totalMs: performance.now() - t0, bytes };
}

async function main(): Promise<void> {
  const db = await benchDatabase('list');
  const tmp = await benchTempDir('list');
  const sql = createSql(db.url, { max: 2 });
  try {
    const { user, key } = await createUserWithKey(sql, { email: 'list@bench.test', newOrganization: 'list bench', now: new Date() });
    const [col] = await sql<{ id: string }[]>`
      insert into collections (organization_id, owner_id, name, slug)
      select organization_id, id, 'List bench', 'list-bench' from users where id = ${user.id} returning id`;
    process.stdout.write(`inserting ${DOCS.toLocaleString('en-US')} documents…\n`);
    await sql`
      insert into documents (collection_id, uploaded_by, title, source_type, status, tags, original_filename, file_size, created_at)
      select ${col!.id}, ${user.id}, 'Document number ' || g, 'pdf', 'indexed', array['bench', 'batch-' || (g % 100)],
             'folder/document-' || g || '.pdf', 100000 + g, now() - g * interval '1 second'
        from generate_series(1, ${DOCS}::int) g`;
    await sql`vacuum analyze documents`;
    const daemon = await startDaemonProcess({
      env: { DATABASE_URL: db.url, DATA_DIR: tmp.dir, PORT: '0', LOG_LEVEL: 'warn', RATE_LIMITS_ENABLED: 'false' },
      args: ['serve', '--api-only'],
      logFile: path.join(tmp.dir, 'daemon.log'),
    });
    try {
      const base = `${daemon.url}/api/v1/documents/`;
      await timedGet(`${base}?limit=10`, key); // warm up: routes, prepared statements
      const idle = rssMb(daemon.pid);
      const pageTrace = sampleRss(daemon.pid, 50);
      const page = await timedGet(`${base}?limit=500`, key);
      const pageRss = Math.max(...pageTrace.stop().samples.map((x) => x.mb));
      const trace = sampleRss(daemon.pid, 50);
      const all = await timedGet(base, key);
      const rss = trace.stop();
      const peak = Math.max(...rss.samples.map((x) => x.mb));
      const rows = [
        [
          'one page (limit=500)',
          page.status,
          500,
          Math.round(page.ttfbMs),
          Math.round(page.totalMs),
          (page.bytes / 2 ** 20).toFixed(1),
          idle,
          pageRss,
        ],
        [
          'every document (no limit)',
          all.status,
          DOCS,
          Math.round(all.ttfbMs),
          Math.round(all.totalMs),
          (all.bytes / 2 ** 20).toFixed(1),
          idle,
          peak,
        ],
      ];
      printTable(
        `GET /api/v1/documents/ at ${DOCS.toLocaleString('en-US')} documents`,
        ['request', 'status', 'docs', 'ttfb ms', 'total ms', 'MiB', 'rss before MB', 'rss peak MB'],
        rows,
      );
      writeResults('list', { machine: machineInfo(), docs: DOCS, page, all, rss_idle_mb: idle, rss_peak_mb: peak });
      if (all.status !== 200) throw new Error(`unpaginated list answered ${all.status}`);
    } finally {
      await daemon.stop();
    }
  } finally {
    await sql.end();
    await db.drop();
    await tmp.remove();
  }
}

main().catch((err) => {
  process.stderr.write(`bench:list failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
