// Query texts: the 300 SciFact test queries for the measured runs, and other SciFact queries
// (never seen by the daemon before) where a run must miss the daemon's query-embedding cache.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DATASET_DIR, loadTestQueries } from '../quality/dataset.js';

export function testQueries(): string[] {
  return loadTestQueries().map((q) => q.text.trim());
}

export function otherQueries(): string[] {
  const test = new Set(testQueries());
  return readFileSync(path.join(DATASET_DIR, 'queries.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => (JSON.parse(l) as { text: string }).text.trim())
    .filter((t) => t && !test.has(t));
}
