import { AppError } from '../errors.js';
import { decodeDateIdCursor, encodeDateIdCursor } from '../keyset-cursor.js';
import type { AppDeps, Caller } from '../types.js';
import { createDownloadToken, DOWNLOAD_LINK_TTL_SEC } from './download-links.js';
import { detailJson } from './json.js';
import { baseFilename } from './filenames.js';
import { chunksOfDocument, contentText, listVisibleDocuments, type DocumentRow, type DocumentStatus } from './queries.js';
import { getVisibleDocument } from './access.js';
import { parseFilterText } from '../filters/parse.js';
import { batchesWithinTimeout, StatementTimeoutError, withinTimeout } from '../db/statement-timeout.js';

export async function documentDetail(deps: AppDeps, caller: Caller, id: string) {
  const d = await getVisibleDocument(deps.sql, caller, id);
  const [text, chunks] = await Promise.all([contentText(deps.sql, d.id), chunksOfDocument(deps.sql, d.id)]);
  return detailJson(d, text, chunks);
}

export type Cursor = ReturnType<typeof decodeDateIdCursor>;

export const encodeCursor = (d: DocumentRow): string => encodeDateIdCursor(d.created_at, d.id);
export const decodeCursor = decodeDateIdCursor;

export async function listDocuments(
  deps: AppDeps,
  caller: Caller,
  q: { tag?: string; collection?: string; status?: DocumentStatus; filter?: string; limit: number; cursor?: string },
) {
  const cursor = q.cursor ? decodeCursor(q.cursor) : undefined;
  const where = q.filter === undefined ? undefined : parseFilterText(q.filter);
  // Lists may trail the primary by the replica's replay lag (docs/deploying.md); a page's statement
  // runs at most STATEMENT_TIMEOUT_MS (then 503 for this request alone).
  // Admitted like a search: one organization's lists cannot fill the pool (limits/org-admission.ts).
  const rows = await deps.admission
    .run(caller.orgId, () =>
      deps.reads.run((sql) =>
        withinTimeout(
          listVisibleDocuments(sql, caller, { tag: q.tag, collection: q.collection, status: q.status, where, limit: q.limit + 1, cursor }),
          deps.config.STATEMENT_TIMEOUT_MS,
        ),
      ),
    )
    .catch((err: unknown) => logTimeout(deps, caller, 'list_page', err));
  const page = rows.slice(0, q.limit);
  return { page, next: rows.length > q.limit ? encodeCursor(page[page.length - 1]!) : null };
}

/**
 * Every visible document matching the filters, newest first, read from the database in batches
 * through a cursor so memory stays flat whatever the count (docs/service-spec.md §4: the list is
 * unpaginated); each batch is fetched within STATEMENT_TIMEOUT_MS.
 */
export async function* allDocuments(
  deps: AppDeps,
  caller: Caller,
  q: { tag?: string; collection?: string; status?: DocumentStatus; filter?: string },
): AsyncGenerator<DocumentRow[]> {
  const where = q.filter === undefined ? undefined : parseFilterText(q.filter);
  try {
    yield* deps.admission.stream(caller.orgId, () =>
      deps.reads.stream((sql) =>
        batchesWithinTimeout(
          listVisibleDocuments(sql, caller, { tag: q.tag, collection: q.collection, status: q.status, where }),
          500,
          deps.config.STATEMENT_TIMEOUT_MS,
        ),
      ),
    );
  } catch (err) {
    logTimeout(deps, caller, 'list_stream_batch', err);
  }
}

/** A cancelled list statement is one warning naming the organization and the statement; every error is rethrown. */
function logTimeout(deps: AppDeps, caller: Caller, statement: 'list_page' | 'list_stream_batch', err: unknown): never {
  if (err instanceof StatementTimeoutError)
    deps.logger.warn({ org: caller.orgId, statement, ms: err.ms }, 'list statement cancelled: STATEMENT_TIMEOUT_MS');
  throw err;
}

/** Where GET /download/ redirects: a presigned store URL, or a daemon URL signed with HMAC, valid one hour. */
export async function downloadUrl(deps: AppDeps, caller: Caller, id: string, baseUrl: string): Promise<string> {
  const d = await getVisibleDocument(deps.sql, caller, id);
  if (!d.blob_key || !(await deps.blobs.exists(d.blob_key))) {
    throw new AppError(
      'DOCUMENT_FILE_NOT_FOUND',
      d.blob_key ? 'The original file is missing from storage.' : `Documents of type "${d.source_type}" have no stored file.`,
    );
  }
  const presigned = await deps.blobs.presignedUrl(d.blob_key, {
    filename: baseFilename(d.original_filename) || `${d.id}`,
    contentType: d.media_type,
    expiresInSec: DOWNLOAD_LINK_TTL_SEC,
  });
  if (presigned) return presigned;
  const exp = Math.floor(deps.clock.now().getTime() / 1000) + DOWNLOAD_LINK_TTL_SEC;
  return `${baseUrl}/files/${createDownloadToken(deps.config.SIGNING_SECRET, d.id, d.blob_key, exp)}`;
}
