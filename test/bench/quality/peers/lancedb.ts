// LanceDB peer: its own full-text index (BM25, English stemming and stop words), flat cosine
// vector search over the same vectors, and its hybrid query fused by its RRF reranker.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { packageVersion, type Peer, type PeerChunk } from './types.js';

const FTS = { language: 'English', stem: true, removeStopWords: true, lowercase: true, asciiFolding: true, withPosition: false } as const;

export async function lancePeer(chunks: PeerChunk[]): Promise<Peer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'docsift-quality-lance-'));
  const started = performance.now();
  const db = await lancedb.connect(dir);
  const rows = chunks.map((c) => ({ id: c.chunkId, doc: c.doc, text: c.text, vector: c.vector }));
  const table = await db.createTable('chunks', rows, { mode: 'overwrite' });
  await table.createIndex('text', { config: lancedb.Index.fts(FTS) });
  // No vector index: at this size a flat scan is exact and fast, which can only favour the peer.
  const indexMs = performance.now() - started;
  const rrf = await lancedb.rerankers.RRFReranker.create(60);
  const docs = (rows: Record<string, unknown>[]) => rows.map((r) => String(r.doc));
  // Naming the score columns keeps LanceDB from warning that it adds them itself.
  return {
    name: 'LanceDB',
    version: packageVersion('@lancedb/lancedb'),
    setup: `FTS index (${Object.entries(FTS)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}); flat cosine kNN (no ANN index); hybrid = fullTextSearch + nearestTo, RRFReranker k=60`,
    indexMs,
    variants: [
      {
        mode: 'text',
        label: 'text (FTS BM25)',
        run: async (q, _v, k) => docs(await table.search(q, 'fts').select(['doc', '_score']).limit(k).toArray()),
      },
      {
        mode: 'vector',
        label: 'vector (flat cosine)',
        run: async (_q, v, k) =>
          docs(await table.query().nearestTo(v).distanceType('cosine').select(['doc', '_distance']).limit(k).toArray()),
      },
      {
        mode: 'hybrid',
        label: 'hybrid (RRF k=60)',
        run: async (q, v, k) =>
          docs(await table.query().fullTextSearch(q).nearestTo(v).distanceType('cosine').rerank(rrf).select(['doc']).limit(k).toArray()),
      },
    ],
    fuzzy: {
      mode: 'text',
      label: 'text (FTS BM25, fuzziness 1)',
      run: async (q, _v, k) =>
        docs(
          await table
            .search(new lancedb.MatchQuery(q, 'text', { fuzziness: 1 }), 'fts')
            .select(['doc', '_score'])
            .limit(k)
            .toArray(),
        ),
    },
    async close() {
      table.close();
      db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
