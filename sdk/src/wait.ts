import { NotFoundError } from './errors.js';
import { nextCursorOf } from './pagination.js';
import { sleep } from './retry.js';
import type { Transport } from './transport.js';
import type { DocumentDetail, DocumentListItem, DocumentStatus, ListDocumentsQuery } from './types.js';
import { runPool } from './upload.js';

export interface DocumentState {
  uuid: string;
  status: DocumentStatus;
  title?: string;
  chunks_count?: number;
  /** Why processing failed (status `failed` only). */
  error_message?: string;
}

export interface WaitProgress {
  total: number;
  pending: number;
  indexed: number;
  failed: number;
}

export interface WaitOptions {
  /** Give up after this long (default 5 minutes). */
  timeoutMs?: number;
  /** First poll delay; grows by half each round up to 5 s (default 500 ms). */
  pollIntervalMs?: number;
  /** Collection slug: narrows the list queries used when waiting for many documents. */
  collection?: string;
  signal?: AbortSignal;
  onProgress?: (p: WaitProgress) => void;
}

export interface SettledResult {
  /** In the order the uuids were given. */
  documents: DocumentState[];
  indexed: DocumentState[];
  failed: DocumentState[];
  /** Still pending when the timeout hit (empty unless `timedOut`). */
  pending: DocumentState[];
  timedOut: boolean;
}

/** Up to this many documents are polled one by one; above it, status-filtered list pages are cheaper. */
const PER_DOCUMENT_LIMIT = 25;

function stateOf(d: DocumentListItem | DocumentDetail): DocumentState {
  const s: DocumentState = { uuid: d.uuid, status: d.status, title: d.title, chunks_count: d.chunks_count };
  if (d.status === 'failed' && 'error_message' in d) s.error_message = d.error_message;
  return s;
}

async function getDetail(t: Transport, uuid: string, signal?: AbortSignal): Promise<DocumentDetail | undefined> {
  try {
    return await t.get('/api/v1/documents/{uuid}/', { params: { path: { uuid } }, signal });
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

async function uuidsWithStatus(
  t: Transport,
  status: DocumentStatus,
  collection: string | undefined,
  signal?: AbortSignal,
): Promise<Set<string>> {
  const out = new Set<string>();
  let cursor: string | undefined;
  do {
    const query: Omit<ListDocumentsQuery, 'filter'> = {
      status,
      limit: 500,
      ...(collection ? { collection } : {}),
      ...(cursor ? { cursor } : {}),
    };
    const { data, response } = await t.getWithResponse('/api/v1/documents/', { params: { query }, signal });
    for (const d of data) out.add(d.uuid);
    cursor = nextCursorOf(response) ?? undefined;
  } while (cursor);
  return out;
}

/**
 * Polls until every document has left `pending` (or the timeout passes). Never rejects for failed
 * documents or on timeout: the result says which are which. A document that disappears (deleted
 * meanwhile) counts as failed with an explanatory message.
 */
export async function waitForSettled(t: Transport, uuids: string[], opts: WaitOptions = {}): Promise<SettledResult> {
  const deadline = Date.now() + (opts.timeoutMs ?? 300_000);
  const states = new Map<string, DocumentState>(uuids.map((uuid) => [uuid, { uuid, status: 'pending' as DocumentStatus }]));
  const pendingIds = () => [...states.values()].filter((s) => s.status === 'pending').map((s) => s.uuid);
  const report = () => {
    const all = [...states.values()];
    opts.onProgress?.({
      total: all.length,
      pending: all.filter((s) => s.status === 'pending').length,
      indexed: all.filter((s) => s.status === 'indexed').length,
      failed: all.filter((s) => s.status === 'failed').length,
    });
  };
  const gone = (uuid: string): DocumentState => ({
    uuid,
    status: 'failed',
    error_message: 'The document no longer exists (deleted, or not visible to this key).',
  });
  let interval = opts.pollIntervalMs ?? 500;
  let timedOut = false;

  for (;;) {
    const waiting = pendingIds();
    if (waiting.length <= PER_DOCUMENT_LIMIT) {
      await runPool(waiting, 5, async (uuid) => {
        const d = await getDetail(t, uuid, opts.signal);
        states.set(uuid, d ? stateOf(d) : gone(uuid));
      });
    } else {
      const stillPending = await uuidsWithStatus(t, 'pending', opts.collection, opts.signal);
      const settled = waiting.filter((u) => !stillPending.has(u));
      if (settled.length) {
        const failed = await uuidsWithStatus(t, 'failed', opts.collection, opts.signal);
        const indexed = opts.collection ? await uuidsWithStatus(t, 'indexed', opts.collection, opts.signal) : undefined;
        await runPool(settled, 5, async (uuid) => {
          if (failed.has(uuid)) {
            const d = await getDetail(t, uuid, opts.signal);
            states.set(uuid, d ? stateOf(d) : gone(uuid));
          } else if (!indexed || indexed.has(uuid)) states.set(uuid, { uuid, status: 'indexed' });
          else states.set(uuid, gone(uuid));
        });
      }
    }
    report();
    if (!pendingIds().length) break;
    if (Date.now() + interval > deadline) {
      timedOut = true;
      break;
    }
    await sleep(interval, opts.signal);
    interval = Math.min(5_000, Math.round(interval * 1.5));
  }

  const documents = uuids.map((u) => states.get(u)!);
  return {
    documents,
    indexed: documents.filter((d) => d.status === 'indexed'),
    failed: documents.filter((d) => d.status === 'failed'),
    pending: documents.filter((d) => d.status === 'pending'),
    timedOut,
  };
}
