// The synthetic search corpus, written straight into the tables (no upload, no worker): accounts
// through the real admin service, then collections, indexed documents and their chunks with text,
// tsvector and a synthetic embedding, by the pipeline's own chunk writer (replaceDocumentsChunks).
// By default the BM25 postings are queued by the same triggers on `chunks` that serve production
// and merged by the worker's fold (foldTextIndex), so the tables are the pipeline's own. With
// --index-by reindex the insert trigger is off during the load and the index is built as
// `docsift-daemon reindex` builds it (reindexText, every list from chunks.tsv in one pass): the
// tables of the pipeline followed by a reindex. test/search.bench-corpus.test.ts checks both. The
// HNSW index is built once after the bulk load.
import { randomUUID } from 'node:crypto';
import type { Sql } from '../../../daemon/src/db/client.js';
import { loadConfig } from '../../../daemon/src/config.js';
import { reindexText } from '../../../daemon/src/indexing/reindex.js';
import { foldTextIndex } from '../../../daemon/src/indexing/fold.js';
import { ensureVectorIndex, vectorIndexName } from '../../../daemon/src/indexing/embedding-model.js';
import { createUserWithKey } from '../../../daemon/src/accounts/create.js';
import { collectionSizes, makeGenerator, rng } from './synth-text.js';
import { BENCH_DIMENSION, clusterOf, sampleVector, type Mixture } from './vectors.js';
import { replaceDocumentsChunks, type DocumentChunks } from '../../../daemon/src/indexing/write-chunks.js';
import type { Chunk } from '../../../daemon/src/ingest/chunk.js';

export interface BenchCollection {
  id: string;
  slug: string;
  /** planned chunks at the full corpus size */
  size: number;
}

export interface Tenant {
  orgId: string;
  userId: string;
  key: string;
  collections: BenchCollection[];
}

export interface PlannedDoc {
  collection: number;
  chunks: number;
}

/**
 * Like the BM25 prototype: 50 collections, one with 70% of the chunks and 49 sharing 30% with
 * sizes ∝ 1/rank; documents of 1–20 chunks, shuffled so tenants grow interleaved (any prefix of
 * the plan has the same shape, which the 10k → 100k growth curve relies on).
 */
export function planDocuments(total: number, seed = 7): PlannedDoc[] {
  const rand = rng(seed);
  const docs: PlannedDoc[] = [];
  collectionSizes(total).forEach((size, collection) => {
    for (let left = size; left > 0; ) {
      const chunks = Math.min(left, 1 + Math.floor(rand() * 20));
      docs.push({ collection, chunks });
      left -= chunks;
    }
  });
  for (let i = docs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [docs[i], docs[j]] = [docs[j]!, docs[i]!];
  }
  return docs;
}

/** One organization and user owning every collection; its key is full-access on the `pro` rate tier. */
export async function createTenant(sql: Sql, total: number): Promise<Tenant> {
  const now = new Date();
  const { user, organization, key } = await createUserWithKey(sql, {
    email: `search-bench-${Date.now()}@bench.test`,
    name: 'Search bench',
    newOrganization: 'Search benchmark',
    tier: 'pro',
    now,
  });
  // A paid plan, so the metered scenario is never refused by the free plan's hard quota.
  await sql`update organizations set plan = 'pro' where id = ${organization.id}`;
  const sizes = collectionSizes(total);
  const collections: BenchCollection[] = [];
  for (const [i, size] of sizes.entries()) {
    const slug = `bench-${String(i).padStart(2, '0')}`;
    const [row] = await sql<{ id: string }[]>`
      insert into collections (owner_id, organization_id, name, slug)
      values (${user.id}, ${organization.id}, ${`Bench collection ${i}`}, ${slug}) returning id`;
    collections.push({ id: row!.id, slug, size });
  }
  return { orgId: organization.id, userId: user.id, key, collections };
}

export interface LoadOptions {
  tenant: Tenant;
  docs: PlannedDoc[];
  mixture: Mixture;
  model: string;
  /** parallel insert connections */
  workers?: number;
  /** about this many chunks per insert statement */
  batchChunks?: number;
  /**
   * Fold the BM25 index (fold_text_stats(), the worker's cron job) after about this many chunks,
   * as the job would during a long load; the last fold is finishLoad's.
   */
  foldEvery?: number;
  /**
   * 'folds' (default): the trigger queues fresh postings and folds merge them, as the worker does
   * while documents arrive; 'reindex': the insert trigger is off during the load and finishLoad
   * rebuilds the BM25 index in one pass.
   */
  indexBy?: IndexBy;
  log?: (line: string) => void;
}

export type IndexBy = 'reindex' | 'folds';

export interface LoadStats {
  ms: number;
  chunks: number;
  /** spent by the folds that ran beside the load (overlapping it) */
  foldMs: number;
}

/**
 * Inserts documents (status indexed) and their chunks in batches over a few connections. Text is
 * generated deterministically in plan order, so a 10k prefix followed by the rest equals a
 * straight 100k load.
 */
export class CorpusLoader {
  private readonly gen = makeGenerator(42);
  private readonly vecRand = rng(4242);
  loadedChunks = 0;

  constructor(private readonly sql: Sql) {}

  async load(o: LoadOptions): Promise<LoadStats> {
    const started = performance.now();
    let foldMs = 0;
    let sinceFold = 0;
    let folding: Promise<void> | undefined;
    let foldError: unknown;
    const batches: PlannedDoc[][] = [];
    let batch: PlannedDoc[] = [];
    let n = 0;
    for (const d of o.docs) {
      batch.push(d);
      if ((n += d.chunks) >= (o.batchChunks ?? 300)) batches.push(batch), (batch = []), (n = 0);
    }
    if (batch.length) batches.push(batch);
    let next = 0;
    let done = 0;
    const total = o.docs.reduce((s, d) => s + d.chunks, 0);
    let reported = 0;
    const folds = o.indexBy !== 'reindex';
    // A table-level switch, for this bulk load only (the bench is the database's only writer).
    if (!folds) await this.sql`alter table chunks disable trigger chunks_text_index_ins`;
    try {
      await Promise.all(
        Array.from({ length: o.workers ?? 2 }, async () => {
          for (let b = batches[next++]; b; b = batches[next++]) {
            // Generated synchronously before the await, so plan order fixes every text and vector.
            const rows = this.generate(b, o);
            await this.insert(rows);
            done += rows.chunkCount;
            sinceFold += rows.chunkCount;
            if (folds && o.foldEvery && !folding && sinceFold >= o.foldEvery) {
              sinceFold = 0;
              // The fold runs beside the inserts, as the worker's fold job runs while documents
              // arrive: it drains what was committed before it started, later postings wait for the next.
              folding = (async () => {
                const t = performance.now();
                const at = done;
                await foldTextIndex(this.sql);
                foldMs += performance.now() - t;
                o.log?.(`  folded at ${at} chunks in ${((performance.now() - t) / 1000).toFixed(1)} s, beside the inserts`);
              })()
                .catch((err: unknown) => void (foldError ??= err))
                .finally(() => void (folding = undefined));
            }
            if (o.log && done - reported >= 10_000) {
              reported = done;
              o.log(`  loaded ${done}/${total} chunks, ${Math.round(done / ((performance.now() - started) / 1000))} chunks/s`);
            }
          }
        }),
      );
      await folding;
      if (foldError) throw foldError;
    } finally {
      if (!folds) await this.sql`alter table chunks enable trigger chunks_text_index_ins`;
    }
    this.loadedChunks += done;
    return { ms: performance.now() - started, chunks: done, foldMs };
  }

  private generate(batch: PlannedDoc[], o: LoadOptions) {
    const docs: (DocumentChunks & { chunks: Chunk[] })[] = [];
    let chunkCount = 0;
    for (const d of batch) {
      const collectionId = o.tenant.collections[d.collection]!.id;
      const doc: DocumentChunks = { documentId: randomUUID(), collectionId, generation: 1, title: '', chunks: [], vectors: [] };
      for (let idx = 0; idx < d.chunks; idx++) {
        const c = this.gen();
        if (idx === 0) doc.title = c.title || 'Untitled';
        doc.vectors.push(roundedVector(sampleVector(o.mixture, clusterOf(o.mixture, c.title), this.vecRand)));
        const tokenCount = c.content.split(' ').length;
        doc.chunks.push({ content: c.content, chunkIndex: idx, page: null, tokenCount, start: 0, end: c.content.length });
      }
      chunkCount += d.chunks;
      docs.push(doc);
    }
    return { docs, chunkCount, model: o.model, userId: o.tenant.userId };
  }

  private async insert(r: ReturnType<CorpusLoader['generate']>): Promise<void> {
    await this.sql.begin(async (tx) => {
      await tx`
        insert into documents (id, collection_id, uploaded_by, title, source_type, status, original_filename, media_type, chunks_count, indexed_at)
        select t.id, t.coll, ${r.userId}, t.title, 'text', 'indexed', t.title || '.txt', 'text/plain', t.n, now()
          from unnest(${r.docs.map((d) => d.documentId)}::uuid[], ${r.docs.map((d) => d.collectionId)}::uuid[],
                      ${r.docs.map((d) => d.title)}::text[], ${r.docs.map((d) => d.chunks.length)}::int[]) as t(id, coll, title, n)`;
      // The pipeline's own chunk writer (documents/process-document.ts), with the default text configuration.
      await replaceDocumentsChunks(tx, r.docs, { model: r.model, textConfig: 'english', now: new Date() });
    });
  }
}

/** Six decimals, as the vector text always had here: halfvec keeps about three significant digits. */
function roundedVector(v: number[]): number[] {
  return v.map((x) => Math.round(x * 1e6) / 1e6);
}

export interface FinishTimings {
  /** the final fold, or the reindex */
  foldMs: number;
  vacuumMs: number;
  hnswMs: number;
}

/**
 * After a bulk load: build the BM25 index (`docsift-daemon reindex`, with the configured defaults
 * k1 and b) or fold what the trigger queued, refresh planner stats and the visibility map (the
 * BM25 query is index-only), then build the HNSW index in one pass.
 */
export async function finishLoad(
  sql: Sql,
  model: string,
  opts: { dimension?: number; hnswMemory?: string; indexBy?: IndexBy } = {},
): Promise<FinishTimings> {
  const dimension = opts.dimension ?? BENCH_DIMENSION;
  let t = performance.now();
  if (opts.indexBy !== 'reindex') await foldTextIndex(sql);
  else {
    const { BM25_K1, BM25_B } = loadConfig({});
    // The reference length of the impacts comes from the collection statistics, which the trigger
    // kept: the first pass rebuilds them, the second orders the lists at the corpus's mean length,
    // as a reindex of a database the pipeline built does (test/search.bench-corpus.test.ts).
    await reindexText(sql, { k1: BM25_K1, b: BM25_B });
    await reindexText(sql, { k1: BM25_K1, b: BM25_B });
  }
  const foldMs = performance.now() - t;
  t = performance.now();
  await sql`vacuum analyze`;
  const vacuumMs = performance.now() - t;
  t = performance.now();
  await sql.begin(async (tx) => {
    // A graph that fits in memory builds several times faster; session-local, not a server setting.
    await tx`select set_config('maintenance_work_mem', ${opts.hnswMemory ?? '1GB'}, true)`;
    await ensureVectorIndex(tx, dimension);
  });
  const hnswMs = performance.now() - t;
  await sql`analyze chunks`;
  await sql`
    insert into instance_settings (key, value) values ('embedding_model', ${sql.json({ model, dimension })})
    on conflict (key) do update set value = excluded.value, updated_at = now()`;
  return { foldMs, vacuumMs, hnswMs };
}

/** Before growing the corpus: the index is rebuilt after the next bulk load rather than maintained. */
export async function dropVectorIndex(sql: Sql, dimension = BENCH_DIMENSION): Promise<void> {
  await sql.unsafe(`drop index if exists ${vectorIndexName(dimension)}`);
}

/** Model the daemon's startup guard expects (the builtin-model run switches it). */
export async function setStoredModel(sql: Sql, model: string, dimension = BENCH_DIMENSION): Promise<void> {
  await sql`update instance_settings set value = ${sql.json({ model, dimension })}, updated_at = now() where key = 'embedding_model'`;
}
