// LanceDB peer: its own full-text index (BM25) with the tokenizers, stemmer and stop words of the
// dataset's language (languages.ts), flat cosine vector search over the same vectors, and its
// hybrid query fused by its RRF reranker.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { jiebaModelHome, type LanceText } from './languages.js';
import { packageVersion, type Peer, type PeerChunk, type PeerVariant } from './types.js';

export async function lancePeer(chunks: PeerChunk[], texts: LanceText[]): Promise<Peer> {
  if (texts.some((t) => t.fts.baseTokenizer?.startsWith('jieba/'))) process.env.LANCE_LANGUAGE_MODEL_HOME ??= jiebaModelHome();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'docsift-quality-lance-'));
  const started = performance.now();
  const db = await lancedb.connect(dir);
  // One column per tokenizer: a column holds one full-text index.
  const column = (i: number) => `text_${i}`;
  const rows = chunks.map((c) => ({
    id: c.chunkId,
    doc: c.doc,
    ...Object.fromEntries(texts.map((_, i) => [column(i), c.text])),
    vector: c.vector,
  }));
  const table = await db.createTable('chunks', rows, { mode: 'overwrite' });
  for (const [i, t] of texts.entries()) await table.createIndex(column(i), { config: lancedb.Index.fts(t.fts) });
  // No vector index: at this size a flat scan is exact and fast, which can only favour the peer.
  const indexMs = performance.now() - started;
  const rrf = await lancedb.rerankers.RRFReranker.create(60);
  const docs = (rows: Record<string, unknown>[]) => rows.map((r) => String(r.doc));
  const fts = (t: LanceText) =>
    Object.entries(t.fts)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ');
  const textVariants: PeerVariant[] = texts.map((t, i) => ({
    mode: 'text',
    label: `text (FTS BM25, ${t.label})`,
    // Naming the score columns keeps LanceDB from warning that it adds them itself.
    run: async (q, _v, k) => docs(await table.search(q, 'fts', column(i)).select(['doc', '_score']).limit(k).toArray()),
  }));
  return {
    name: 'LanceDB',
    version: packageVersion('@lancedb/lancedb'),
    setup: `FTS index per tokenizer (${texts.map((t) => `${t.label}: ${fts(t)}`).join('; ')}); flat cosine kNN (no ANN index); hybrid = fullTextSearch (${texts[0]!.label}) + nearestTo, RRFReranker k=60`,
    indexMs,
    variants: [
      textVariants[0]!,
      {
        mode: 'vector',
        label: 'vector (flat cosine)',
        run: async (_q, v, k) =>
          docs(await table.query().nearestTo(v).distanceType('cosine').select(['doc', '_distance']).limit(k).toArray()),
      },
      {
        mode: 'hybrid',
        label: `hybrid (RRF k=60, ${texts[0]!.label})`,
        run: async (q, v, k) =>
          docs(
            await table
              .query()
              .fullTextSearch(q, { columns: column(0) })
              .nearestTo(v)
              .distanceType('cosine')
              .rerank(rrf)
              .select(['doc'])
              .limit(k)
              .toArray(),
          ),
      },
      ...textVariants.slice(1),
    ],
    fuzzy: {
      mode: 'text',
      label: 'text (FTS BM25, fuzziness 1)',
      run: async (q, _v, k) =>
        docs(
          await table
            .search(new lancedb.MatchQuery(q, column(0), { fuzziness: 1 }), 'fts')
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
