// Who may see and change what: the access rules every feature applies (REST, MCP and the web UI
// alike), kept in auth/ below every feature that applies them, so none spells a rule out on its own.
import { AppError } from '../errors.js';
import type { Caller } from '../types.js';
import type { Tx } from '../db/client.js';

/** Guard for actions scoped keys may never perform. */
export function requireFullAccess(caller: Caller, action: string): void {
  if (!caller.isFullAccess) {
    throw new AppError('SCOPED_KEY_FORBIDDEN', `Scoped API keys cannot ${action}. Use a full-access key.`);
  }
}

/**
 * SQL condition on alias `c` (collections): what the caller may read.
 * A user sees what it owns plus public collections it subscribes to; a scoped key sees only the
 * subset it holds grants on, and loses a grant's collection the moment its owner could no longer see it.
 */
export function visibleToCaller(tx: Tx, caller: Pick<Caller, 'userId' | 'keyId' | 'isFullAccess'>) {
  const userVisible = tx`
    c.deleted_at is null and (
      c.owner_id = ${caller.userId}
      or (c.is_public and exists (select 1 from subscriptions s where s.collection_id = c.id and s.user_id = ${caller.userId}))
    )`;
  if (caller.isFullAccess) return userVisible;
  return tx`${userVisible} and exists (select 1 from key_grants g where g.collection_id = c.id and g.key_id = ${caller.keyId})`;
}

/** Condition on alias `c`: visible to a user regardless of key scope (used when granting). */
export function visibleToUser(tx: Tx, userId: string) {
  return visibleToCaller(tx, { userId, keyId: '00000000-0000-0000-0000-000000000000', isFullAccess: true });
}

/**
 * Ids of every collection the caller may read. One row of text rather than a row per collection:
 * every search asks, and postgres.js parses each row of a result on its own.
 */
export async function visibleCollectionIds(tx: Tx, caller: Caller): Promise<string[]> {
  const [row] = await tx<
    { ids: string | null }[]
  >`select string_agg(c.id::text, ',') as ids from collections c where ${visibleToCaller(tx, caller)}`;
  return row?.ids ? row.ids.split(',') : [];
}

/**
 * Write access (upload, replace, reprocess, delete documents) to a collection the caller can see:
 * it must be owned by the key's user, and the key full-access or holding a `write` grant.
 * Subscribed public collections are never writable.
 */
export async function requireWriteAccess(tx: Tx, caller: Caller, c: { id: string; owner_id: string; slug: string }): Promise<void> {
  if (c.owner_id !== caller.userId)
    throw new AppError('WRITE_ACCESS_REQUIRED', 'Write access required: you can only write to collections you own.');
  if (!caller.isFullAccess) {
    const grant = await tx<
      { permission: string }[]
    >`select permission from key_grants where key_id = ${caller.keyId} and collection_id = ${c.id}`;
    if (grant[0]?.permission !== 'write') {
      throw new AppError('WRITE_ACCESS_REQUIRED', `Write access required: this key has only read access to collection "${c.slug}".`);
    }
  }
}
