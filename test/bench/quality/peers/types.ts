// What a peer system offers the quality benchmark: one or more ranked-retrieval variants over the
// same chunks and vectors docsift indexed.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../lib/env.js';

export type Mode = 'text' | 'vector' | 'hybrid';

export interface PeerChunk {
  chunkId: string;
  /** BEIR document id */
  doc: string;
  /** What the full-text index sees (title and chunk content). */
  text: string;
  vector: number[];
}

export interface PeerVariant {
  mode: Mode;
  /** e.g. 'hybrid (RRF k=60)'; the first variant of a mode is the one the targets compare. */
  label: string;
  /** Document ids of the top `k` chunks, best first. */
  run(query: string, vector: number[], k: number): Promise<string[]>;
}

export interface Peer {
  name: string;
  version: string;
  /** How it was configured, for the report. */
  setup: string;
  indexMs: number;
  variants: PeerVariant[];
  /** Its typo-tolerant text search (`--typos`): Orama `tolerance: 1`, LanceDB `fuzziness: 1`. */
  fuzzy?: PeerVariant;
  close(): Promise<void>;
}

/** Installed version of a package, read from the workspace's node_modules. */
export function packageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(path.join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
