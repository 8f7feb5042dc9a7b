// Measures again on a database kept by `npm run bench:search -- --keep` (no rebuild): hybrid over
// all collections at concurrency 16 through one or more daemons in turn (for instance main's
// checkout and this one, back to back on the same data), the text channel's SQL floor, and HNSW
// recall. CPU per search is split into the daemon process and its PostgreSQL backends.
//
//   node --import tsx test/bench/search/kept.ts --url postgres://…/bench_search_… [--daemon-root /work/main,.]
//     [--rounds 2] [--requests 400] [--mode hybrid] [--concurrency 16] [--floor [--floor-step vector]] [--recall 40,100,200] [--cpu-prof DIR] [--reuse] [--filtered]
//
// --filtered measures the filtered scopes of filtered.ts (HTTP c=1 under none / 1 % / 30 %, recall,
// SQL alternatives) through each daemon instead of hybrid at c=16: a filter change re-measured at
// 1M chunks without the 18-minute build.
import path from 'node:path';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { issueKey } from '../../../daemon/src/auth/issue-key.js';
import { createSql } from '../../../daemon/src/db/client.js';
import { benchTempDir, runMain } from '../lib/env.js';
import { startSearchDaemon } from './daemon.js';
import { startEmbedStandIn } from './embed-server.js';
import { benchFiltered } from './filtered.js';
import { cpuMs, cpuProbe, runLoad, searchClient } from './load.js';
import { testQueries } from './queries.js';
import { measureRecall } from './recall.js';
import { FLOOR_APP, type FloorStep, measureFloor } from './sql-floor.js';
import { BENCH_MODEL, createMixture, queryVector } from './vectors.js';

const { values: a } = parseArgs({
  options: {
    url: { type: 'string' },
    'daemon-root': { type: 'string', default: '.' },
    rounds: { type: 'string', default: '2' },
    requests: { type: 'string', default: '400' },
    queries: { type: 'string', default: '300' },
    mode: { type: 'string', default: 'hybrid' },
    concurrency: { type: 'string', default: '16' },
    floor: { type: 'boolean', default: false },
    'floor-step': { type: 'string', default: 'text-channel' },
    recall: { type: 'string' },
    'recall-queries': { type: 'string', default: '200' },
    'cpu-prof': { type: 'string' },
    /** keep each daemon across rounds (round 2 on measures a warm process; by default each round starts a fresh one) */
    reuse: { type: 'boolean', default: false },
    filtered: { type: 'boolean', default: false },
  },
});
const log = (line: string) => process.stdout.write(line + '\n');
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

async function main(): Promise<void> {
  const url = a.url;
  if (!url) throw new Error('--url: the kept database');
  const sql = createSql(url, { max: 10, applicationName: FLOOR_APP });
  const tmp = await benchTempDir('search-kept');
  const mixture = createMixture();
  const queries = testQueries()
    .slice(0, Number(a.queries))
    .map((text) => ({ text, vector: queryVector(mixture, text) }));
  const standIn = await startEmbedStandIn(mixture, BENCH_MODEL);
  try {
    const colls = await sql<
      { id: string; owner_id: string }[]
    >`select id, owner_id from collections where slug like 'bench-%' order by slug`;
    const ids = colls.map((c) => c.id);
    const { key } = await issueKey(sql, { userId: colls[0]!.owner_id, name: 'kept', isFullAccess: true, tier: 'pro', now: new Date() });
    log(`kept database: ${ids.length} collections; load ${load()}`);
    if (a.floor) {
      const step = a['floor-step'] as FloorStep;
      const r = await measureFloor(sql, step, queries, ids, {
        concurrency: 1,
        requests: queries.length,
        cpu: cpuProbe(sql, FLOOR_APP),
      });
      log(`${step} SQL c=1: p50 ${r.p50} ms p99 ${r.p99} ms, cpu ${r.cpuMsPerRequest} ms/search (load ${load()})`);
    }
    const roots = a['daemon-root'].split(',').map((r) => path.resolve(r));
    const kept = new Map<string, Awaited<ReturnType<typeof startSearchDaemon>>>();
    const daemonFor = async (round: number, i: number, root: string) => {
      const have = a.reuse ? kept.get(root) : undefined;
      if (have) return have;
      const nodeArgs = a['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${a['cpu-prof']}`] : [];
      const daemon = await startSearchDaemon({
        databaseUrl: url,
        dataDir: tmp.dir,
        provider: { kind: 'ollama', host: standIn.url, model: BENCH_MODEL },
        label: `kept-${round}-${i}`,
        nodeArgs,
        cwd: root,
      });
      if (a.reuse) kept.set(root, daemon);
      return daemon;
    };
    try {
      for (let round = 0; round < Number(a.rounds); round++) {
        for (const [i, root] of roots.entries()) {
          const daemon = await daemonFor(round, i, root);
          if (a.filtered) {
            log(`filtered scopes [${root}] round ${round + 1}; load ${load()}`);
            try {
              await benchFiltered({ sql, url, baseUrl: daemon.url!, key, queries, collectionIds: ids, log });
            } finally {
              if (!a.reuse) await daemon.stop();
            }
            continue;
          }
          const client = searchClient(daemon.url!, key);
          try {
            const call = async (x: { text: string }) => {
              const r = await client.post({ query: x.text, mode: a.mode, limit: 5 });
              return { ok: r.status === 200 && (r.body as { fallback?: unknown }).fallback === null, body: r.body };
            };
            const warm = await runLoad(queries, { concurrency: 4, requests: queries.length }, call);
            if (warm.errors) throw new Error(`warm-up: ${warm.errors} failed`);
            const backends = cpuProbe(sql, 'docsift');
            const d0 = cpuMs(daemon.pid)!;
            const b0 = await backends();
            const c0 = process.cpuUsage();
            const r = await runLoad(queries, { concurrency: Number(a.concurrency), requests: Number(a.requests) }, call);
            const c1 = process.cpuUsage(c0);
            const n = Number(a.requests);
            const dms = (cpuMs(daemon.pid)! - d0) / n;
            const bms = ((await backends()) - b0) / n;
            // This process (the load generator, and the idle embedding stand-in) shares the 2 cores too.
            const cms = (c1.user + c1.system) / 1000 / n;
            log(
              `${a.mode} c=${a.concurrency} [${root}] round ${round + 1}: ${r.throughput}/s p50 ${r.p50} ms p99 ${r.p99} ms; cpu ${(dms + bms).toFixed(2)} ms/search (daemon ${dms.toFixed(2)}, backends ${bms.toFixed(2)}; client ${cms.toFixed(2)}); errors ${r.errors}; load ${load()}`,
            );
          } finally {
            client.close();
            if (!a.reuse) await daemon.stop();
          }
        }
      }
    } finally {
      for (const daemon of kept.values()) await daemon.stop();
    }
    if (a.recall) {
      const efs = a.recall.split(',').map(Number);
      const rec = await measureRecall(url, queries.slice(0, Number(a['recall-queries'])), ids, efs, log);
      for (const row of rec.rows)
        log(`recall ef_search ${row.efSearch}: @10 ${row.recall10} @100 ${row.recall100} short ${row.short} p50 ${row.p50Ms} ms`);
    }
  } finally {
    await standIn.close();
    await sql.end({ timeout: 5 });
    await tmp.remove();
  }
}

runMain(main);
