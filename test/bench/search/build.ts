// The corpus build alone, phase by phase, with CPU by process: what `bench:search` times as "built"
// without its search measurements, for comparing build-path changes in minutes.
//
//   node --import tsx test/bench/search/build.ts [--chunks 100000] [--index-by folds|reindex] [--fold-every 250000] [--keep]
//
// CPU is read from /proc: the loader (this process), its pool's backends, and every other process
// of the PostgreSQL cluster (autovacuum, the parallel HNSW worker, checkpointer): on a shared
// machine, CPU per chunk is the figure to compare, not wall time.
import { parseArgs } from 'node:util';
import { createSql } from '../../../daemon/src/db/client.js';
import { databaseBytes, perChunk } from '../lib/db-size.js';
import { benchDatabase } from '../lib/env.js';
import { treeCpuMs } from '../lib/metrics.js';
import { CorpusLoader, createTenant, finishLoad, planDocuments, type IndexBy } from './corpus.js';
import { BENCH_MODEL, createMixture } from './vectors.js';

const { values: args } = parseArgs({
  options: {
    chunks: { type: 'string', default: '100000' },
    'index-by': { type: 'string', default: 'folds' },
    'fold-every': { type: 'string', default: '250000' },
    keep: { type: 'boolean', default: false },
  },
});
const log = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const total = Number(args.chunks);
  const indexBy = args['index-by'] as IndexBy;
  const db = await benchDatabase('build');
  const sql = createSql(db.url, { max: 4, applicationName: 'bench-build' });
  try {
    const [pm] = await sql<{ pid: number }[]>`select split_part(pg_read_file('postmaster.pid'), E'\n', 1)::int as pid`;
    const cpu = () => ({ self: process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000, pg: treeCpuMs(pm!.pid) });
    const tenant = await createTenant(sql, total);
    const loader = new CorpusLoader(sql);
    const docs = planDocuments(total);
    const c0 = cpu();
    const t0 = performance.now();
    const loaded = await loader.load({
      tenant,
      docs,
      mixture: createMixture(),
      model: BENCH_MODEL,
      foldEvery: Number(args['fold-every']),
      indexBy,
      log,
    });
    const c1 = cpu();
    const fin = await finishLoad(sql, BENCH_MODEL, { hnswMemory: total > 200_000 ? '3GB' : '1GB', indexBy });
    const c2 = cpu();
    const wall = (performance.now() - t0) / 1000;
    const bytes = await databaseBytes(sql);
    const ms = (a: number) => (a / loaded.chunks).toFixed(3);
    log(`\n${loaded.chunks} chunks, --index-by ${indexBy}, ${new Date().toISOString()}`);
    log(`  load ${(loaded.ms / 1000).toFixed(1)} s (folds beside it ${(loaded.foldMs / 1000).toFixed(1)} s)`);
    log(
      `  final ${indexBy === 'folds' ? 'fold' : 'reindex'} ${(fin.foldMs / 1000).toFixed(1)} s, vacuum ${(fin.vacuumMs / 1000).toFixed(1)} s, HNSW ${(fin.hnswMs / 1000).toFixed(1)} s`,
    );
    log(`  build ${wall.toFixed(1)} s in all`);
    log(
      `  CPU ms per chunk: load phase loader ${ms(c1.self - c0.self)} + cluster ${ms(c1.pg - c0.pg)}; finish phase loader ${ms(c2.self - c1.self)} + cluster ${ms(c2.pg - c1.pg)}; in all ${ms(c2.self - c0.self + c2.pg - c0.pg)}`,
    );
    log(`  database ${Math.round(bytes.total / 2 ** 20)} MiB, ${perChunk(bytes, loaded.chunks).total} B/chunk`);
  } finally {
    await sql.end();
    if (args.keep) log(`  kept: ${await db.keep()}`);
    else await db.drop();
  }
}

await main();
