// Builds the synthetic multi-tenant corpus through the normal chunk insert path (triggers
// maintain postings + stat deltas) and reports ingest throughput, lock waits and sizes.
// Usage: node --import tsx ingest-synth.ts [db=bm25_synth] [chunks=100000] [workers=2]
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect, recreateDatabase, type Sql } from './lib.js';
import { loadScifact } from './load-scifact.js';
import { collectionSizes, makeGenerator, rng } from '../../search/synth-text.js';

const db = process.argv[2] ?? 'bm25_synth';
const total = Number(process.argv[3] ?? 100_000);
const workers = Number(process.argv[4] ?? 2);
export const collId = (i: number): string => `c0000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

const admin = await recreateDatabase(db);
const gen = makeGenerator(42);
const rand = rng(7);

interface Doc {
  coll: string;
  chunks: number;
}
const docs: Doc[] = [];
collectionSizes(total).forEach((size, i) => {
  for (let left = size; left > 0; ) {
    const n = Math.min(left, 1 + Math.floor(rand() * 20));
    docs.push({ coll: collId(i), chunks: n });
    left -= n;
  }
});
docs.sort(() => rand() - 0.5); // tenants ingest interleaved, as they would in production

async function insertDoc(sql: Sql, table: 'chunks' | 'chunks_plain', d: Doc): Promise<void> {
  const parts = Array.from({ length: d.chunks }, () => gen());
  const docId = randomUUID();
  await sql`
    insert into ${sql(table)} (id, document_id, collection_id, chunk_index, content, tsv)
    select gen_random_uuid(), ${docId}::uuid, ${d.coll}::uuid, i::int - 1, body,
           to_tsvector('english', title || E'\n' || body)
    from unnest(${parts.map((p) => p.title)}::text[], ${parts.map((p) => p.content)}::text[])
      with ordinality as t(title, body, i)`;
}

async function run(table: 'chunks' | 'chunks_plain', queue: Doc[]): Promise<{ ms: number; lockWaits: number }> {
  const conns = Array.from({ length: workers }, () => connect(db));
  let next = 0;
  let done = 0;
  let lockWaits = 0;
  const t0 = performance.now();
  const sampler = setInterval(() => {
    void admin<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
      where datname = ${db} and wait_event_type = 'Lock'`.then(([r]) => {
      lockWaits = Math.max(lockWaits, r?.n ?? 0);
    });
  }, 500);
  await Promise.all(
    conns.map(async (c) => {
      while (next < queue.length) {
        const d = queue[next++];
        if (!d) break;
        await insertDoc(c, table, d);
        const before = done;
        done += d.chunks;
        if (Math.floor(done / 10_000) > Math.floor(before / 10_000)) {
          console.log(`  ${table}: ${done} chunks, ${(done / ((performance.now() - t0) / 1000)).toFixed(0)} chunks/s`);
        }
      }
    }),
  );
  clearInterval(sampler);
  await Promise.all(conns.map((c) => c.end()));
  return { ms: performance.now() - t0, lockWaits };
}

// Baseline: the same insert into a table without the text-index triggers.
await admin`create table chunks_plain (like chunks including all)`;
const baseDocs: Doc[] = [];
for (let n = 0; n < 10_000; ) {
  const d = docs[baseDocs.length];
  if (!d) break;
  baseDocs.push(d);
  n += d.chunks;
}
const base = await run('chunks_plain', baseDocs);
const baseChunks = baseDocs.reduce((a, d) => a + d.chunks, 0);
await admin`drop table chunks_plain`;

const main = await run('chunks', docs);
const [cnt] = await admin<{ p: number; d: number }[]>`
  select (select count(*) from chunk_postings)::int as p, (select count(*) from term_stats_delta)::int as d`;
let t = performance.now();
await admin`select fold_text_stats()`;
const foldMs = performance.now() - t;
t = performance.now();
await admin`vacuum analyze`;
const vacuumMs = performance.now() - t;

// SciFact as one more (small) tenant, for stats-scope quality checks inside a big database.
await loadScifact(admin);
await admin`select fold_text_stats()`;
await admin`vacuum analyze`;

const sizes = await admin<{ rel: string; mb: number }[]>`
  select c.relname as rel, round(pg_relation_size(c.oid) / 1048576.0, 1)::float8 as mb
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where n.nspname = 'public' and c.relkind in ('r', 'i') order by pg_relation_size(c.oid) desc`;
const result = {
  total,
  workers,
  baseline: { chunks: baseChunks, seconds: base.ms / 1000, chunksPerSec: baseChunks / (base.ms / 1000) },
  ingest: {
    seconds: main.ms / 1000,
    chunksPerSec: total / (main.ms / 1000),
    postings: cnt?.p,
    postingsPerSec: (cnt?.p ?? 0) / (main.ms / 1000),
    maxConcurrentLockWaits: main.lockWaits,
  },
  deltaRowsBeforeFold: cnt?.d,
  foldSeconds: foldMs / 1000,
  vacuumSeconds: vacuumMs / 1000,
  sizesMb: sizes,
};
console.log(JSON.stringify(result, null, 2));
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL(`./results/ingest-${db}.json`, import.meta.url), JSON.stringify(result, null, 2));
await admin.end();
