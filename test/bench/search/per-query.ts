// Per-query cost at concurrency 1 on a database kept by `npm run bench:search -- --keep`: for each
// SciFact test query, the text channel's and vector channel's wall time on a pool configured like
// the daemon's (best of `--repeat`), and the query's HTTP hybrid latency through this checkout's
// daemon. Prints the slowest queries and the spread, so the c=16 tail can be traced to queries.
//
//   node --import tsx test/bench/search/per-query.ts --url postgres://…/keep_search100k [--repeat 3] [--top 15]
import os from 'node:os';
import { parseArgs } from 'node:util';
import { issueKey } from '../../../daemon/src/auth/issue-key.js';
import { loadConfig } from '../../../daemon/src/config.js';
import { createSql } from '../../../daemon/src/db/client.js';
import { textCandidates, textSettings } from '../../../daemon/src/search/text-channel.js';
import { compileConditions } from '../../../daemon/src/search/conditions.js';
import { vectorCandidates } from '../../../daemon/src/search/vector-channel.js';
import { benchTempDir, runMain } from '../lib/env.js';
import { startSearchDaemon } from './daemon.js';
import { startEmbedStandIn } from './embed-server.js';
import { searchClient } from './load.js';
import { testQueries } from './queries.js';
import { FLOOR_APP } from './sql-floor.js';
import { BENCH_MODEL, createMixture, queryVector } from './vectors.js';

const { values: a } = parseArgs({
  options: {
    url: { type: 'string' },
    repeat: { type: 'string', default: '3' },
    top: { type: 'string', default: '15' },
    queries: { type: 'string', default: '300' },
    'no-http': { type: 'boolean', default: false },
  },
});
const log = (line: string) => process.stdout.write(line + '\n');
const TEXT = textSettings(loadConfig({}));

async function best(n: number, fn: () => Promise<unknown>): Promise<number> {
  let min = Infinity;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    min = Math.min(min, performance.now() - t);
  }
  return min;
}

const pct = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function main(): Promise<void> {
  if (!a.url) throw new Error('--url: the kept database');
  const sql = createSql(a.url, { max: 2, applicationName: FLOOR_APP });
  const mixture = createMixture();
  const queries = testQueries()
    .slice(0, Number(a.queries))
    .map((text) => ({ text, vector: queryVector(mixture, text) }));
  const colls = await sql<{ id: string; owner_id: string }[]>`select id, owner_id from collections where slug like 'bench-%' order by slug`;
  const f = compileConditions(sql, { collectionIds: colls.map((c) => c.id) }, 600_000);
  const repeat = Number(a.repeat);
  const rows: { text: string; tMs: number; vMs: number; httpMs: number }[] = [];
  log(
    `per-query at c=1, best of ${repeat}; load ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  for (const q of queries) {
    await textCandidates(sql, TEXT, q.text, f, 100);
    const tMs = await best(repeat, () => textCandidates(sql, TEXT, q.text, f, 100));
    const vMs = await best(repeat, () => vectorCandidates(sql, q.vector, f, 100));
    rows.push({ text: q.text, tMs, vMs, httpMs: 0 });
  }
  if (!a['no-http']) {
    const tmp = await benchTempDir('search-per-query');
    const standIn = await startEmbedStandIn(mixture, BENCH_MODEL);
    const { key } = await issueKey(sql, {
      userId: colls[0]!.owner_id,
      name: 'per-query',
      isFullAccess: true,
      tier: 'pro',
      now: new Date(),
    });
    const daemon = await startSearchDaemon({
      databaseUrl: a.url,
      dataDir: tmp.dir,
      provider: { kind: 'ollama', host: standIn.url, model: BENCH_MODEL },
      label: 'per-query',
    });
    const client = searchClient(daemon.url!, key);
    try {
      for (const q of queries) await client.post({ query: q.text, mode: 'hybrid', limit: 5 });
      for (const [i, q] of queries.entries())
        rows[i]!.httpMs = await best(repeat, () => client.post({ query: q.text, mode: 'hybrid', limit: 5 }));
    } finally {
      client.close();
      await daemon.stop();
      await standIn.close();
      await tmp.remove();
    }
  }
  for (const [name, key] of [
    ['text channel', 'tMs'],
    ['vector channel', 'vMs'],
    ...(a['no-http'] ? [] : ([['HTTP hybrid', 'httpMs']] as const)),
  ] as const) {
    const xs = rows.map((r) => r[key]);
    const sum = xs.reduce((s, x) => s + x, 0);
    log(
      `${name}: mean ${(sum / xs.length).toFixed(2)} p50 ${pct(xs, 50).toFixed(2)} p90 ${pct(xs, 90).toFixed(2)} p99 ${pct(xs, 99).toFixed(2)} max ${Math.max(...xs).toFixed(2)} ms`,
    );
  }
  log(`slowest ${a.top} by text channel:`);
  for (const r of [...rows].sort((x, y) => y.tMs - x.tMs).slice(0, Number(a.top)))
    log(`  text ${r.tMs.toFixed(1)} vector ${r.vMs.toFixed(1)} http ${r.httpMs.toFixed(1)} ms  ${JSON.stringify(r.text)}`);
  await sql.end({ timeout: 5 });
}

runMain(main);
