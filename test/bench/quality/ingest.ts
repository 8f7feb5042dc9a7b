// Puts the corpus into docsift through the public HTTP API, one text document per BEIR document
// with its id in a tag, then waits for the worker to index them all while printing progress.
import type postgres from 'postgres';
import { expectStatus, type ApiCall } from '../lib/http.js';
import { beirTag, type CorpusDoc } from './dataset.js';

export interface IngestOptions {
  /** Requests in flight at once. */
  concurrency?: number;
  /** Send "title\n\ntext" as the content instead of the text alone (title goes in `title` either way). */
  titleInContent?: boolean;
  log?: (line: string) => void;
}

/** The dataset's collection, created through the API in its language (a text search configuration name). */
export async function createCollection(api: ApiCall, name: string, language: string): Promise<{ uuid: string; slug: string }> {
  const r = expectStatus(
    await api<{ uuid: string; slug: string }>('POST', '/api/v1/collections', {
      json: { name, language, description: `${name} corpus for npm run bench:quality` },
    }),
    201,
    'create collection',
  );
  return { uuid: r.body.uuid, slug: r.body.slug };
}

/** Uploads every document; returns the wall time in ms. Failures abort the run (nothing is retried silently). */
export async function uploadCorpus(api: ApiCall, collectionId: string, docs: CorpusDoc[], opts: IngestOptions = {}): Promise<number> {
  const log = opts.log ?? (() => {});
  const started = performance.now();
  let next = 0;
  let done = 0;
  let lastLog = started;
  const worker = async () => {
    while (next < docs.length) {
      const d = docs[next++]!;
      const content = opts.titleInContent ? `${d.title}\n\n${d.text}` : d.text;
      const r = await api('POST', `/api/v1/collections/${collectionId}/documents`, {
        // Untitled documents (XQuAD-R's sentences) get their id: a word no query holds.
        json: { source_type: 'text', title: d.title.trim() || d.id, content, tags: [beirTag(d.id)] },
      });
      expectStatus(r, 201, `upload ${d.id}`);
      done++;
      if (performance.now() - lastLog > 5000) {
        lastLog = performance.now();
        log(`  uploaded ${done}/${docs.length}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 8) }, worker));
  return performance.now() - started;
}

export interface IndexingOutcome {
  ms: number;
  indexed: number;
  failed: number;
  chunks: number;
}

/**
 * Waits until no document of the collection is pending. Progress is read from the database (the
 * API's listing would do too, but paging 5k documents every few seconds only adds load).
 */
export async function waitForIndexing(
  sql: postgres.Sql,
  collectionId: string,
  opts: { log?: (line: string) => void; timeoutMs?: number; intervalMs?: number } = {},
): Promise<IndexingOutcome> {
  const log = opts.log ?? (() => {});
  const started = performance.now();
  let lastIndexed = 0;
  let lastAt = started;
  for (;;) {
    const [row] = await sql<{ pending: number; indexed: number; failed: number; chunks: number }[]>`
      select count(*) filter (where status = 'pending')::int as pending,
             count(*) filter (where status = 'indexed')::int as indexed,
             count(*) filter (where status = 'failed')::int as failed,
             coalesce(sum(chunks_count) filter (where status = 'indexed'), 0)::int as chunks
        from documents where collection_id = ${collectionId} and deleted_at is null`;
    const s = row!;
    const now = performance.now();
    const total = s.pending + s.indexed + s.failed;
    // The first poll comes straight after the upload, too soon for a rate of its own.
    const rate = now - lastAt > 1000 ? (s.indexed - lastIndexed) / ((now - lastAt) / 1000) : undefined;
    const overall = s.indexed / ((now - started) / 1000);
    const eta = rate !== undefined && overall > 0 ? Math.round(s.pending / overall) : undefined;
    log(
      `  indexed ${s.indexed}/${total} docs (${s.chunks} chunks, ${s.failed} failed) · ${rate === undefined ? '?' : rate.toFixed(1)} docs/s now · ETA ${eta === undefined ? '?' : `${eta} s`}`,
    );
    if (s.pending === 0) return { ms: now - started, indexed: s.indexed, failed: s.failed, chunks: s.chunks };
    if (opts.timeoutMs && now - started > opts.timeoutMs)
      throw new Error(`indexing not finished after ${Math.round(opts.timeoutMs / 1000)} s (${s.pending} pending)`);
    lastIndexed = s.indexed;
    lastAt = now;
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 10_000));
  }
}
