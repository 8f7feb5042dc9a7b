// The synthetic search corpus, written straight into the tables (no upload, no worker): accounts
// through the real admin service, then collections, indexed documents and their chunks with text,
// tsvector and a synthetic embedding. The BM25 postings and statistics are built by the same
// triggers on `chunks` that serve production; the HNSW index is built once after the bulk load.
import { randomUUID } from 'node:crypto';
import type { Sql } from '../../../daemon/src/db/client.js';
import { foldTextIndex } from '../../../daemon/src/index/fold.js';
import { ensureVectorIndex, vectorIndexName } from '../../../daemon/src/search/embedding-model.js';
import { createUserWithKey } from '../../../daemon/src/accounts/create.js';
import { collectionSizes, makeGenerator, rng } from './synth-text.js';
import { BENCH_DIMENSION, clusterOf, sampleVector, vectorLiteral, type Mixture } from './vectors.js';

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
  log?: (line: string) => void;
}

export interface LoadStats {
  ms: number;
  chunks: number;
  /** of which in folds during the load */
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
    await Promise.all(
      Array.from({ length: o.workers ?? 2 }, async () => {
        for (let b = batches[next++]; b; b = batches[next++]) {
          // Generated synchronously before the await, so plan order fixes every text and vector.
          const rows = this.generate(b, o);
          await folding;
          await this.insert(rows);
          done += rows.chunks.length;
          if (o.foldEvery && (sinceFold += rows.chunks.length) >= o.foldEvery) {
            sinceFold = 0;
            // Inserts pause during the fold, as on a busy worker the fold job competes for the cores.
            folding = (async () => {
              const t = performance.now();
              await foldTextIndex(this.sql);
              foldMs += performance.now() - t;
              o.log?.(`  folded at ${done} chunks in ${((performance.now() - t) / 1000).toFixed(1)} s`);
            })();
            await folding;
          }
          if (o.log && done - reported >= 10_000) {
            reported = done;
            o.log(`  loaded ${done}/${total} chunks, ${Math.round(done / ((performance.now() - started) / 1000))} chunks/s`);
          }
        }
      }),
    );
    this.loadedChunks += done;
    return { ms: performance.now() - started, chunks: done, foldMs };
  }

  private generate(batch: PlannedDoc[], o: LoadOptions) {
    const docs: { id: string; collectionId: string; title: string; chunks: number }[] = [];
    const chunks: { docId: string; collectionId: string; idx: number; title: string; content: string; tokens: number; emb: string }[] = [];
    for (const d of batch) {
      const collectionId = o.tenant.collections[d.collection]!.id;
      const id = randomUUID();
      let title = '';
      for (let idx = 0; idx < d.chunks; idx++) {
        const c = this.gen();
        if (idx === 0) title = c.title || 'Untitled';
        const emb = vectorLiteral(sampleVector(o.mixture, clusterOf(o.mixture, c.title), this.vecRand));
        chunks.push({ docId: id, collectionId, idx, title, content: c.content, tokens: c.content.split(' ').length, emb });
      }
      docs.push({ id, collectionId, title, chunks: d.chunks });
    }
    return { docs, chunks, model: o.model, userId: o.tenant.userId };
  }

  private async insert(r: ReturnType<CorpusLoader['generate']>): Promise<void> {
    await this.sql.begin(async (tx) => {
      await tx`
        insert into documents (id, collection_id, uploaded_by, title, source_type, status, original_filename, media_type, chunks_count, indexed_at)
        select t.id, t.coll, ${r.userId}, t.title, 'text', 'indexed', t.title || '.txt', 'text/plain', t.n, now()
          from unnest(${r.docs.map((d) => d.id)}::uuid[], ${r.docs.map((d) => d.collectionId)}::uuid[],
                      ${r.docs.map((d) => d.title)}::text[], ${r.docs.map((d) => d.chunks)}::int[]) as t(id, coll, title, n)`;
      // The same insert as documents/process-document.ts (tsv = title || ' ' || content).
      await tx`
        insert into chunks (document_id, collection_id, generation, chunk_index, content, token_count, embedding, embedding_model, tsv)
        select t.doc, t.coll, 1, t.idx, t.content, t.tokens, t.emb::halfvec, ${r.model},
               to_tsvector('english'::regconfig, t.title || ' ' || t.content)
          from unnest(${r.chunks.map((c) => c.docId)}::uuid[], ${r.chunks.map((c) => c.collectionId)}::uuid[], ${r.chunks.map((c) => c.idx)}::int[],
                      ${r.chunks.map((c) => c.title)}::text[], ${r.chunks.map((c) => c.content)}::text[], ${r.chunks.map((c) => c.tokens)}::int[],
                      ${r.chunks.map((c) => c.emb)}::text[]) as t(doc, coll, idx, title, content, tokens, emb)`;
    });
  }
}

export interface FinishTimings {
  foldMs: number;
  vacuumMs: number;
  hnswMs: number;
}

/**
 * After a bulk load: fold the statistic deltas, refresh planner stats and the visibility map
 * (the BM25 query is index-only), then build the HNSW index in one pass.
 */
export async function finishLoad(sql: Sql, model: string, dimension = BENCH_DIMENSION, hnswMemory = '1GB'): Promise<FinishTimings> {
  let t = performance.now();
  await foldTextIndex(sql);
  const foldMs = performance.now() - t;
  t = performance.now();
  await sql`vacuum analyze`;
  const vacuumMs = performance.now() - t;
  t = performance.now();
  await sql.begin(async (tx) => {
    // A graph that fits in memory builds several times faster; session-local, not a server setting.
    await tx`select set_config('maintenance_work_mem', ${hnswMemory}, true)`;
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
