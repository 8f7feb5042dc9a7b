import type { Tx } from '../db/client.js';
import { queryBackground, type ScopeBackgrounds } from './background.js';
import { BACKGROUND_FLOOR, type Basis, type ModelDefaults } from './fusion-defaults.js';
import type { Candidate } from './fusion.js';

export type FloorSource = 'request' | 'setting' | 'background' | 'model_default' | 'none';

/**
 * How far above the background a vector-only chunk must stand, in spreads beyond where the best of
 * the scope's N unrelated chunks is expected (√(2 ln N) spreads above the median for a normal
 * tail): cut = median + spread · (√(2 ln N) + FLOOR_MARGIN). Chosen with `npm run bench:quality`
 * (see FLOOR_MEASURED in fusion-defaults.ts for the figures).
 */
export const FLOOR_MARGIN = 1;
/** Below this many sampled chunks the background says nothing reliable: a measured fixed floor applies, else cosine 1. */
export const MIN_SAMPLE = 16;

export interface FloorRequest {
  mode: 'hybrid' | 'text' | 'vector';
  minScore?: number;
}

export interface Floor {
  value: number | null;
  source: FloorSource;
  basis: Basis | null;
  note: string | null;
  /** With source `background`: what the cut was computed from. */
  background?: { chunks: number; sample: number; median: number; spread: number; z: number };
}

/** Which relevance floor applies before the query's vector is known; `background` is resolved by `gateVector`. */
export function resolveFloor(req: FloorRequest, setting: number | undefined): Floor {
  const mark = (value: number | null, source: FloorSource, note: string | null = null, basis: Basis | null = null): Floor => ({
    value,
    source,
    basis,
    note,
  });
  if (req.mode === 'text') return mark(null, 'none', 'text mode keeps every lexical match');
  if (req.minScore !== undefined) return mark(req.minScore, 'request');
  if (req.mode === 'vector') return mark(null, 'none', 'vector mode lists the nearest chunks; min_score sets a floor');
  if (setting !== undefined) return mark(setting, 'setting', 'HYBRID_MIN_SIMILARITY');
  return mark(null, 'background', BACKGROUND_FLOOR.note, BACKGROUND_FLOOR.basis);
}

/** The expected best z of n unrelated chunks (normal tail), plus the margin. */
function cutZ(chunks: number): number {
  return Math.sqrt(2 * Math.log(Math.max(2, chunks))) + FLOOR_MARGIN;
}

/**
 * The floor in force for this query, and the vector candidates that stand out from the background. With source
 * `background`, the floor is what the query scores against a sample of the scope's own chunks, cut
 * where unrelated chunks stop. `dropped` counts the candidates below it that text did not find.
 * Rank fusion takes only those (with random vectors, RRF otherwise reordered
 * text matches by chance: NFCorpus hybrid 0.274 against text 0.324).
 */
export async function gateVector(
  floor: Floor,
  text: readonly Candidate[],
  vector: Candidate[],
  ctx: {
    backgrounds: ScopeBackgrounds;
    run: <T>(fn: (sql: Tx) => Promise<T>) => Promise<T>;
    collectionIds: readonly string[];
    queryVector?: number[];
    modelFloor: ModelDefaults['floor'];
  },
): Promise<{ evidence: Candidate[]; dropped: number; floor: Floor }> {
  let f = floor;
  if (f.source === 'background') {
    if (!ctx.queryVector || !vector.length) return { evidence: vector, dropped: 0, floor: f };
    const bg = await ctx.backgrounds.get(ctx.run, ctx.collectionIds, ctx.queryVector.length);
    if (bg.sample.length < MIN_SAMPLE) {
      // Too few chunks to tell what stands out: a measured fixed floor decides; without one, only a
      // chunk as close as the query itself (cosine 1) counts by meaning alone. Text matches are kept,
      // and min_score or HYBRID_MIN_SIMILARITY set a floor of the caller's choosing.
      const m = ctx.modelFloor;
      const measured = m.basis === 'measured' && m.value !== null;
      f = {
        value: measured ? m.value : 1,
        source: 'model_default',
        basis: m.basis,
        note: measured
          ? `${m.note} (scope of ${bg.sample.length} chunks: too few for a background)`
          : `scope of ${bg.sample.length} chunks: too few for a background and no measured floor for this model, so only text matches are kept`,
      };
    } else {
      const { median, spread } = queryBackground(ctx.queryVector, bg.sample);
      const z = cutZ(bg.chunks);
      // A model with a measured row also keeps its fixed floor: the built-in model places nonsense
      // near a few odd chunks, as far above the background as real questions (NFCorpus: nonsense
      // up to 2.5 spreads past √(2 ln N), real queries' median −0.8), but never above 0.45.
      const fixed = ctx.modelFloor.basis === 'measured' ? (ctx.modelFloor.value ?? -1) : -1;
      f = {
        ...f,
        value: Math.max(median + z * spread, fixed),
        background: { chunks: bg.chunks, sample: bg.sample.length, median, spread, z },
      };
    }
  }
  if (f.value === null) return { evidence: vector, dropped: 0, floor: f };
  const value = f.value;
  const lexical = new Set(text.map((c) => c.chunkId));
  const dropped = vector.filter((c) => c.score < value && !lexical.has(c.chunkId)).length;
  // Evidence for rank fusion: what stands out from the background (a fixed floor alone gates nothing).
  const bg = f.background;
  const evidence = bg ? vector.filter((c) => c.score >= bg.median + bg.z * bg.spread) : vector;
  return { evidence, dropped, floor: f };
}
