// Orama peer: in-memory BM25 full text with the tokenizer of the dataset's language (languages.ts:
// its stemmer and stop-word list, or @orama/tokenizers' segmenter), exact vector search over the
// same vectors, and its hybrid mode (min-max normalised, weighted).
import { create, insertMultiple, search, type AnyOrama } from '@orama/orama';
import type { OramaText } from './languages.js';
import { packageVersion, type Peer, type PeerChunk } from './types.js';

/** Orama drops vector hits under this cosine similarity (default 0.8); the benchmark wants them all. */
const SIMILARITY_FLOOR = -1;

export async function oramaPeer(
  chunks: PeerChunk[],
  text: OramaText,
  opts: { extraHybridWeights?: { text: number; vector: number } } = {},
): Promise<Peer> {
  const dim = chunks[0]?.vector.length ?? 0;
  const started = performance.now();
  const db: AnyOrama = create({
    schema: { text: 'string', embedding: `vector[${dim}]` } as const,
    components: { tokenizer: await text.tokenizer() },
  });
  // `doc` is kept on each record but left out of the schema, so it is stored and not searched.
  await insertMultiple(
    db,
    chunks.map((c) => ({ id: c.chunkId, doc: c.doc, text: c.text, embedding: c.vector })),
    500,
  );
  const indexMs = performance.now() - started;
  const docs = (r: { hits: { document: unknown }[] }) => r.hits.map((h) => String((h.document as { doc: string }).doc));
  const hybrid = (weights?: { text: number; vector: number }) => async (q: string, v: number[], k: number) =>
    docs(
      await search(db, {
        mode: 'hybrid',
        term: q,
        properties: ['text'],
        vector: { value: v, property: 'embedding' },
        similarity: SIMILARITY_FLOOR,
        limit: k,
        ...(weights ? { hybridWeights: weights } : {}),
      }),
    );
  const extra = opts.extraHybridWeights;
  return {
    name: 'Orama',
    version: packageVersion('@orama/orama'),
    setup: `BM25 defaults (terms match by prefix, Orama's design; its exact option also demands every query word verbatim and finds nothing for these queries), ${text.label}; exact vector search (similarity floor ${SIMILARITY_FLOOR}); hybrid default weights 0.5/0.5${extra ? `, also text ${extra.text}/vector ${extra.vector}` : ''}`,
    indexMs,
    variants: [
      { mode: 'text', label: 'text (BM25)', run: async (q, _v, k) => docs(await search(db, { term: q, properties: ['text'], limit: k })) },
      {
        mode: 'vector',
        label: 'vector (exact cosine)',
        run: async (_q, v, k) =>
          docs(await search(db, { mode: 'vector', vector: { value: v, property: 'embedding' }, similarity: SIMILARITY_FLOOR, limit: k })),
      },
      { mode: 'hybrid', label: 'hybrid (weights 0.5/0.5, default)', run: hybrid() },
      ...(extra ? [{ mode: 'hybrid' as const, label: `hybrid (weights ${extra.text}/${extra.vector})`, run: hybrid(extra) }] : []),
    ],
    fuzzy: {
      mode: 'text',
      label: 'text (BM25, tolerance 1)',
      run: async (q, _v, k) => docs(await search(db, { term: q, properties: ['text'], tolerance: 1, limit: k })),
    },
    async close() {},
  };
}
