// Synthetic embeddings with the structure real ones have, for a 100k-chunk corpus that a real
// model could not embed in benchmark time (~10 chunks/s on this machine):
// - a shared mean direction (real sentence embeddings are anisotropic: unrelated texts still
//   have cosine ≈ 0.1),
// - ~200 topic clusters, each with a few directions of its own along which its members spread
//   (low intrinsic dimension, like real topics),
// - a little isotropic noise in all 512 dimensions.
// Chunks take their cluster from their topic (the SciFact abstract they follow), so text and
// vector neighbours agree roughly, as they do with a real model. Queries are drawn from the same
// mixture, deterministically from their text, so the Ollama stand-in and the SQL floor agree.
import { toSql } from 'pgvector';
import { rng } from './synth-text.js';

export const BENCH_MODEL = 'bench-512';
export const BENCH_DIMENSION = 512;

const GLOBAL_WEIGHT = 0.4;
const LOCAL_WEIGHT = 0.8;
const NOISE_WEIGHT = 0.4;

export interface Mixture {
  dim: number;
  global: Float64Array;
  centroids: Float64Array[];
  /** per cluster: its own spread directions */
  bases: Float64Array[][];
}

function gaussian(rand: () => number): () => number {
  let spare: number | undefined;
  return () => {
    if (spare !== undefined) {
      const s = spare;
      spare = undefined;
      return s;
    }
    const u = Math.max(rand(), 1e-12);
    const v = rand();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
}

function unit(dim: number, normal: () => number): Float64Array {
  const v = new Float64Array(dim);
  let n = 0;
  for (let i = 0; i < dim; i++) n += (v[i] = normal()) ** 2;
  n = Math.sqrt(n);
  for (let i = 0; i < dim; i++) v[i]! /= n;
  return v;
}

export function createMixture(seed = 512, clusters = 200, spreadDims = 8, dim = BENCH_DIMENSION): Mixture {
  const normal = gaussian(rng(seed));
  return {
    dim,
    global: unit(dim, normal),
    centroids: Array.from({ length: clusters }, () => unit(dim, normal)),
    bases: Array.from({ length: clusters }, () => Array.from({ length: spreadDims }, () => unit(dim, normal))),
  };
}

/** FNV-1a: a stable hash of a text (cluster choice and per-query seeds). */
export function hashText(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function clusterOf(m: Mixture, topic: string): number {
  return hashText(topic) % m.centroids.length;
}

/**
 * One L2-normalised member of a cluster. The bulk loader calls this for every chunk (a million at
 * --million), so it writes its result straight into one array (no Array.from with a callback, no
 * `**`), with each number computed by the same operations in the same order (the corpus stays the same).
 */
export function sampleVector(m: Mixture, cluster: number, rand: () => number): number[] {
  const c = m.centroids[cluster % m.centroids.length]!;
  const basis = m.bases[cluster % m.bases.length]!;
  const dim = m.dim;
  const v = new Float64Array(dim);
  for (let i = 0; i < dim; i++) v[i] = GLOBAL_WEIGHT * m.global[i]! + c[i]!;
  const normal = gaussian(rand);
  const localScale = LOCAL_WEIGHT / Math.sqrt(basis.length);
  for (const b of basis) {
    const z = normal() * localScale;
    for (let i = 0; i < dim; i++) v[i]! += z * b[i]!;
  }
  const noiseScale = NOISE_WEIGHT / Math.sqrt(dim);
  let n = 0;
  for (let i = 0; i < dim; i++) {
    const x = v[i]! + normal() * noiseScale;
    v[i] = x;
    n += x * x;
  }
  n = Math.sqrt(n);
  const out = new Array<number>(dim);
  for (let i = 0; i < dim; i++) out[i] = v[i]! / n;
  return out;
}

/** The vector a query text gets: a member of the cluster its text hashes to, seeded by the text. */
export function queryVector(m: Mixture, text: string): number[] {
  return sampleVector(m, hashText(text) % m.centroids.length, rng(hashText(text, 0x9747b28c)));
}

/** pgvector's text form (`toSql`) of the vector rounded to 6 decimals (≈ float4 precision for unit vectors, half the bytes). */
export function vectorLiteral(v: number[]): string {
  return toSql(v.map((x) => Number(x.toFixed(6)))) as string;
}
