// Reaching one document as a caller: the visibility check every document use case starts from, and
// the errors they share (not found, a commit whose outcome is unknown).
import type { Tx } from '../db/client.js';
import { AppError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Caller } from '../types.js';
import { findVisibleDocument, type DocumentRow } from './queries.js';

/**
 * What the client hears when the database connection dropped around COMMIT and the outcome could
 * not be learned. The stored files are kept either way (a blob no row references is removed by the
 * orphan sweep after its grace period), so nothing a committed row points to is ever lost.
 */
export function commitOutcomeUnknown(): AppError {
  return new AppError(
    'SERVICE_UNAVAILABLE',
    'The database connection was lost while saving; the document may or may not have been stored. List the collection before retrying.',
    undefined,
    { 'Retry-After': '5' },
  );
}

export function documentNotFound(): AppError {
  return new AppError('DOCUMENT_NOT_FOUND', 'Document not found.');
}

export async function getVisibleDocument(tx: Tx, caller: Caller, id: string): Promise<DocumentRow> {
  const d = isUuid(id) ? await findVisibleDocument(tx, caller, id) : undefined;
  if (!d) throw documentNotFound();
  return d;
}
