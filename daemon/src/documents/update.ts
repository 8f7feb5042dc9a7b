import type { AppDeps, Caller } from '../types.js';
import { requireWritableCollection } from '../collections/service.js';
import { rejectNul, validateMeta } from './checks.js';
import { getDocumentById, type DocumentRow } from './queries.js';
import { documentNotFound, getVisibleDocument } from './access.js';
import { AppError } from '../errors.js';
import type { Metadata } from '../metadata.js';

export interface DocumentChanges {
  title?: string;
  /** A list, or one comma-separated string; replaces the tags. */
  tags?: string | string[];
  /** Replaces the whole metadata object. */
  metadata?: Metadata;
}

/**
 * PATCH /documents/{uuid}/: title, tags and metadata change in place. Search reads them from the
 * document row (hydrate, filters), so nothing is reprocessed: chunks, status and generation stay.
 */
export async function updateDocument(deps: AppDeps, caller: Caller, id: string, changes: DocumentChanges): Promise<DocumentRow> {
  const d = await getVisibleDocument(deps.sql, caller, id);
  await requireWritableCollection(deps.sql, caller, d.collection_id);
  rejectNul([
    ['title', changes.title],
    ['tags', changes.tags],
  ]);
  if (changes.title !== undefined && !changes.title.trim())
    throw new AppError('VALIDATION_FAILED', 'Title must not be empty.', { title: ['Must not be empty.'] });
  const meta = validateMeta({ title: changes.title, tags: changes.tags, metadata: changes.metadata });
  await deps.sql.begin(async (tx) => {
    const now = deps.clock.now();
    const rows = await tx`
      update documents set
        title = coalesce(${meta.title ?? null}::text, title),
        tags = coalesce(${changes.tags === undefined ? null : meta.tags}::text[], tags),
        metadata = coalesce(${meta.metadata === undefined ? null : tx.json(meta.metadata as never)}::jsonb, metadata),
        updated_at = ${now}
      where id = ${d.id} and deleted_at is null
      returning id`;
    if (!rows.length) throw documentNotFound();
  });
  return (await getDocumentById(deps.sql, d.id))!;
}
