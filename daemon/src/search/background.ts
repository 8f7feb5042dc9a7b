import type { Tx } from '../db/client.js';
import { withinTimeout } from '../db/statement-timeout.js';

/** Chunk vectors sampled per scope: the cut's own error is then about a quarter of a spread (median and MAD at 512). */
export const SAMPLE_SIZE = 512;
/** A sample younger than this is used without asking the database anything. */
const FRESH_MS = 10_000;
/** Scopes kept (SAMPLE_SIZE × dimension × 4 bytes each: 1 MB at 512-d, 3 MB at 1536-d). */
const MAX_SCOPES = 32;

/** What the query is judged against: a sample of the scope's chunk vectors (by a hash of their ids), unit length. */
export interface Background {
  /** Chunks in the scope (every dimension), when the sample was taken or last checked. */
  chunks: number;
  sample: Float32Array[];
  /** How similar the scope's chunks are to one another: median and spread over pairs of the sample (pairStats). */
  pairs: { median: number; spread: number };
  checkedAt: number;
}

type Run = <T>(fn: (sql: Tx) => Promise<T>) => Promise<T>;

async function countChunks(sql: Tx, ids: readonly string[], timeoutMs: number): Promise<number> {
  const [row] = await withinTimeout(
    sql<{ n: number }[]>`
    with p as materialized (select string_to_array(${ids.join(',')}, ',')::uuid[] as ids)
    select coalesce(sum(n), 0)::float8 as n from (
      select n_chunks as n from collection_text_stats where collection_id = any((select ids from p)::uuid[])
      union all
      select n_chunks from collection_text_stats_delta where collection_id = any((select ids from p)::uuid[])
    ) x`,
    timeoutMs,
  );
  return Number(row?.n ?? 0);
}

/** Every IEEE half-precision value by its 16 bits, as float32 (exact: float32 holds every half). */
let halves: Float32Array | undefined;
function halfTable(): Float32Array {
  if (halves) return halves;
  halves = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1;
    const e = (h >> 10) & 0x1f;
    const f = h & 0x3ff;
    halves[h] =
      e === 0 ? sign * f * 2 ** -24 : e === 31 ? (f ? Number.NaN : sign * Number.POSITIVE_INFINITY) : sign * (1 + f / 1024) * 2 ** (e - 15);
  }
  return halves;
}

/**
 * A halfvec in pgvector's binary form (halfvec_send: dimensions and a reserved word, then each
 * value's 16 bits, all big-endian) as float32: the same values its text form parses to, read from
 * a third of the bytes without formatting or parsing a decimal (512 vectors of 512: 0.5 MB of
 * bytes against 3 MB of text, whose output alone took PostgreSQL 15 ms).
 */
export function halfvecValues(buf: Uint8Array): Float32Array {
  const table = halfTable();
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const dim = view.getUint16(0);
  const out = new Float32Array(dim);
  for (let i = 0; i < dim; i++) out[i] = table[view.getUint16(4 + 2 * i)]!;
  return out;
}

function unit(v: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

/**
 * One chunk in INDEXED_SHARE is in chunks_sample_idx (migration 126), by a hash of its id:
 * uuid_hash(id) below INDEXED_BELOW (written into the statement, so the planner matches the
 * index's predicate).
 */
export const INDEXED_SHARE = 16;
const INDEXED_BELOW = -2147483648 + 2 ** 32 / INDEXED_SHARE;
/** Scopes of this many chunks or more read their sample from chunks_sample_idx: it holds about twice SAMPLE_SIZE of them. */
export const INDEXED_SCOPE = 2 * SAMPLE_SIZE * INDEXED_SHARE;

/**
 * The statement that reads a scope's sample: its `size` chunks of dimension `dim` with the lowest
 * uuid_hash(id) (ties by id), so every daemon over the same chunks draws the same sample whatever
 * the heap's order. `indexed`: the lowest hashes come from chunks_sample_idx (an index-only scan of
 * a sixteenth of the scope, then one primary-key fetch per row), which holds each of them once the
 * scope has INDEXED_SCOPE chunks; otherwise the scope is read whole (under 16,384 chunks). At 1M
 * chunks the index answers in 20 ms warm and 0.22 s from a cold cache, where reading two thirds of
 * the scope's heap took 1.3 s and 4.6 s (past STATEMENT_TIMEOUT_MS).
 */
export function sampleStatement(sql: Tx, ids: readonly string[], dim: number, o: { indexed: boolean; size: number }) {
  const scope = sql`(select string_to_array(${ids.join(',')}, ',')::uuid[])::uuid[]`;
  if (!o.indexed)
    return sql<{ e: Uint8Array }[]>`
    select halfvec_send(embedding) as e from chunks
     where collection_id = any(${scope}) and vector_dims(embedding) = ${dim}
     order by uuid_hash(id), id
     limit ${o.size}`;
  // Twice the rows wanted: chunks of another dimension (a scope being embedded again) drop out.
  return sql<{ e: Uint8Array }[]>`
    with low as materialized (
      select id, uuid_hash(id) as h from chunks
       where collection_id = any(${scope}) and uuid_hash(id) < ${sql.unsafe(String(INDEXED_BELOW))}
       order by uuid_hash(id), id
       limit ${2 * o.size}
    )
    select halfvec_send(c.embedding) as e from low join chunks c on c.id = low.id
     where vector_dims(c.embedding) = ${dim}
     order by low.h, low.id
     limit ${o.size}`;
}

/** The scope's sample vectors (sampleStatement), unit length; `chunks` (the scope's size) decides the statement. */
export async function readSample(
  sql: Tx,
  ids: readonly string[],
  dim: number,
  o: { chunks: number; size?: number; timeoutMs: number },
): Promise<Float32Array[]> {
  const statement = sampleStatement(sql, ids, dim, { indexed: o.chunks >= INDEXED_SCOPE, size: o.size ?? SAMPLE_SIZE });
  const rows = await withinTimeout(statement, o.timeoutMs);
  return rows.map((r) => unit(halfvecValues(r.e)));
}

async function loadSample(sql: Tx, ids: readonly string[], dim: number, chunks: number, timeoutMs: number): Promise<Background> {
  const sample = await readSample(sql, ids, dim, { chunks, timeoutMs });
  return { chunks, sample, pairs: pairStats(sample), checkedAt: Date.now() };
}

/**
 * Background samples per scope (collections searched × dimension), held by the daemon (deps) and
 * refreshed lazily: a sample older than FRESH_MS is checked against the scope's chunk count, and
 * taken again when the count moved by more than a tenth. Concurrent searches share one check and load
 * (a hybrid search asks three times: ahead of its channels, for the floor and for the evidence).
 * Each statement runs at most `timeoutMs` (STATEMENT_TIMEOUT_MS): a slow sample fails the searches
 * waiting on it with 503, as any other search statement does, and the next search takes it again.
 */
export class ScopeBackgrounds {
  private readonly map = new Map<string, Background>();
  private readonly pending = new Map<string, Promise<Background>>();

  constructor(private readonly timeoutMs: number) {}

  async get(run: Run, collectionIds: readonly string[], dim: number): Promise<Background> {
    const ids = [...collectionIds].sort();
    const key = `${dim}:${ids.join(',')}`;
    const hit = this.map.get(key);
    if (hit) {
      this.map.delete(key);
      this.map.set(key, hit);
      if (Date.now() - hit.checkedAt < FRESH_MS) return hit;
    }
    let load = this.pending.get(key);
    if (!load) {
      load = run(async (sql) => {
        const n = await countChunks(sql, ids, this.timeoutMs);
        if (hit && Math.abs(n - hit.chunks) <= 0.1 * hit.chunks) {
          hit.checkedAt = Date.now();
          return hit;
        }
        return loadSample(sql, ids, dim, n, this.timeoutMs);
      });
      this.pending.set(key, load);
      load.then(
        (bg) => {
          this.map.set(key, bg);
          if (this.map.size > MAX_SCOPES) this.map.delete(this.map.keys().next().value as string);
        },
        () => {},
      );
      void load.finally(() => this.pending.delete(key)).catch(() => {});
    }
    return load;
  }
}

const MIN_SPREAD = 1e-3;
/** Pairs measured per sample: 8,128 (about 4M multiply-adds at 512-d, once per sample), every pair of up to 128 vectors. */
const PAIRS = 8128;

/**
 * Median and normal-consistent MAD of the cosine similarity between pairs of the sample's vectors
 * (unit length): how close two of the scope's chunks typically are, in the model's own scale. A
 * model that sees no structure (random vectors) has a median near 0 in spreads. Up to 128 vectors,
 * every pair; beyond, each vector with the next ceil(PAIRS / n) around the sample, so every vector
 * counts: a similarity at +2 spreads reads 2 ± 0.065 over samples of 512 SciFact chunks, against
 * ± 0.13 for every pair of the first 128 (± 0.044 and ± 0.11 on NFCorpus; ± 0.065 and ± 0.031 for
 * all 130,816 pairs).
 */
export function pairStats(sample: readonly Float32Array[]): { median: number; spread: number } {
  const n = sample.length;
  const all = (n * (n - 1)) / 2 <= PAIRS;
  const next = all ? 0 : Math.ceil(PAIRS / n);
  const sims = new Float64Array(all ? (n * (n - 1)) / 2 : n * next);
  let k = 0;
  for (let i = 0; i < n; i++) {
    const q = Float64Array.from(sample[i]!);
    if (all) for (let j = i + 1; j < n; j++) sims[k++] = dot(sample[j]!, q);
    else for (let j = 1; j <= next; j++) sims[k++] = dot(sample[(i + j) % n]!, q);
  }
  if (!sims.length) return { median: 0, spread: MIN_SPREAD };
  return medianAndSpread(sims);
}

/**
 * Median and normal-consistent MAD of the query's cosine similarity to the sample. Runs on every
 * hybrid and vector search: 512 dot products of 512 dimensions, 0.21 ms with four running sums
 * against 0.55 ms for the plain loop and arrays (2 cores, under load; background.test.ts).
 */
export function backgroundStats(query: readonly number[], sample: readonly Float32Array[]): { median: number; spread: number } {
  const q = Float64Array.from(query);
  let qn = 0;
  for (let i = 0; i < q.length; i++) qn += q[i]! * q[i]!;
  qn = Math.sqrt(qn) || 1;
  const sims = new Float64Array(sample.length);
  for (let j = 0; j < sample.length; j++) sims[j] = dot(sample[j]!, q) / qn;
  return medianAndSpread(sims);
}

/**
 * The similarities' median and normal-consistent MAD (1.4826 × the median absolute deviation), at
 * least MIN_SPREAD: with sparse vectors most similarities are exactly equal (MAD 0), and a tie with
 * the median is no evidence. Overwrites `sims` with the deviations.
 */
function medianAndSpread(sims: Float64Array): { median: number; spread: number } {
  const median = medianOf(sims);
  for (let j = 0; j < sims.length; j++) sims[j] = Math.abs(sims[j]! - median);
  return { median, spread: Math.max(MIN_SPREAD, 1.4826 * medianOf(sims)) };
}

/** The last backgroundStats of each query vector, with the sample it was measured against. */
const measured = new WeakMap<readonly number[], { sample: readonly Float32Array[]; stats: { median: number; spread: number } }>();

/**
 * backgroundStats, measured once per query vector and sample, though a hybrid search asks for it
 * twice (its relevance floor and its evidence). background.ts then takes 0.11 ms of the daemon's CPU
 * per search at 1M chunks, against 0.43 ms measuring twice (`kept.ts --cpu-prof`).
 */
export function queryBackground(query: readonly number[], sample: readonly Float32Array[]): { median: number; spread: number } {
  const hit = measured.get(query);
  if (hit && hit.sample === sample) return hit.stats;
  const stats = backgroundStats(query, sample);
  measured.set(query, { sample, stats });
  return stats;
}

function dot(v: Float32Array, q: Float64Array): number {
  const n = Math.min(v.length, q.length);
  const m = n & ~3;
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  let i = 0;
  for (; i < m; i += 4) {
    a += v[i]! * q[i]!;
    b += v[i + 1]! * q[i + 1]!;
    c += v[i + 2]! * q[i + 2]!;
    d += v[i + 3]! * q[i + 3]!;
  }
  for (; i < n; i++) a += v[i]! * q[i]!;
  return a + b + c + d;
}

function medianOf(xs: Float64Array): number {
  if (!xs.length) return Number.NaN;
  const s = xs.slice().sort();
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
