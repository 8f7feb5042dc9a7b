import { expiryFrom, getKeyForUser, listKeysForUser, type ExpiryChoice, type KeyRecord } from './keys.js';
import { requireFullAccess, visibleToUser } from './access.js';
import type { Tx } from '../db/client.js';
import { AppError } from '../errors.js';
import { isSlug, isUuid } from '../ids.js';
import type { AppDeps, Caller } from '../types.js';
import { issueKey } from './issue-key.js';

export interface Grant {
  collection: string;
  permission: 'read' | 'write';
}

export async function grantsForKeys(tx: Tx, keyIds: string[]): Promise<Map<string, Grant[]>> {
  const out = new Map<string, Grant[]>();
  if (!keyIds.length) return out;
  const rows = await tx<{ key_id: string; slug: string; permission: 'read' | 'write' }[]>`
    select g.key_id, c.slug, g.permission
      from key_grants g join collections c on c.id = g.collection_id
     where g.key_id in ${tx(keyIds)} and c.deleted_at is null
     order by c.slug`;
  for (const r of rows) out.set(r.key_id, [...(out.get(r.key_id) ?? []), { collection: r.slug, permission: r.permission }]);
  return out;
}

export function keyJson(k: KeyRecord, grants: Grant[]) {
  return {
    uuid: k.id,
    name: k.name,
    prefix: k.prefix,
    is_active: k.is_active,
    is_full_access: k.is_full_access,
    rate_tier: k.rate_tier,
    expires_in: k.expires_in,
    expires_at: k.expires_at?.toISOString() ?? null,
    last_used_at: k.last_used_at?.toISOString() ?? null,
    created_at: k.created_at.toISOString(),
    grants,
  };
}

/** The caller's own key (whoami); allowed for every key, scoped or not. */
export async function currentKey(deps: AppDeps, caller: Caller) {
  const k = (await getKeyForUser(deps.sql, caller.userId, caller.keyId))!;
  const grants = (await grantsForKeys(deps.sql, [k.id])).get(k.id) ?? [];
  const org = await deps.sql<{ id: string; name: string }[]>`select id, name from organizations where id = ${caller.orgId}`;
  const user = await deps.sql<
    { email: string; name: string; is_admin: boolean }[]
  >`select email, name, is_admin from users where id = ${caller.userId}`;
  return {
    ...keyJson(k, grants),
    organization: { uuid: org[0]!.id, name: org[0]!.name },
    user: { uuid: caller.userId, email: user[0]!.email, name: user[0]!.name, is_admin: user[0]!.is_admin },
  };
}

export async function listKeys(deps: AppDeps, caller: Caller) {
  requireFullAccess(caller, 'manage API keys');
  const keys = await listKeysForUser(deps.sql, caller.userId);
  const grants = await grantsForKeys(
    deps.sql,
    keys.map((k) => k.id),
  );
  return keys.map((k) => keyJson(k, grants.get(k.id) ?? []));
}

/** A collection the key's owner can see, by slug; 404 otherwise (never reveals other tenants' slugs). */
/** A collection the user sees, named by slug or (the `collection_id` form of docs/service-spec.md §4, Search) by uuid. */
async function grantableCollection(tx: Tx, userId: string, ref: string): Promise<{ id: string; owner_id: string; slug: string }> {
  type Row = { id: string; owner_id: string; slug: string };
  const rows = isUuid(ref)
    ? await tx<Row[]>`select c.id, c.owner_id, c.slug from collections c where c.id = ${ref} and ${visibleToUser(tx, userId)}`
    : isSlug(ref)
      ? await tx<Row[]>`select c.id, c.owner_id, c.slug from collections c where c.slug = ${ref} and ${visibleToUser(tx, userId)}`
      : [];
  if (!rows[0]) throw new AppError('COLLECTION_NOT_FOUND', `Collection "${ref}" not found.`);
  return rows[0];
}

async function putGrant(
  tx: Tx,
  keyId: string,
  userId: string,
  c: { id: string; owner_id: string },
  permission: 'read' | 'write',
): Promise<boolean> {
  if (permission === 'write' && c.owner_id !== userId) {
    throw new AppError('VALIDATION_FAILED', 'Write grants need a collection you own; subscribed collections are read-only.', {
      permission: ['Only "read" is allowed on a collection you do not own.'],
    });
  }
  const rows = await tx<{ inserted: boolean }[]>`
    insert into key_grants (key_id, collection_id, permission) values (${keyId}, ${c.id}, ${permission})
    on conflict (key_id, collection_id) do update set permission = excluded.permission
    returning (xmax = 0) as inserted`;
  return rows[0]!.inserted;
}

export async function createKey(
  deps: AppDeps,
  caller: Caller,
  input: { name: string; is_full_access?: boolean; collections?: string[]; expires_in?: ExpiryChoice },
) {
  return deps.sql.begin(async (tx) => {
    // Slugs resolve before the scope check: an invisible collection is 404 for every key, never a 403.
    const granted: { id: string; owner_id: string }[] = [];
    for (const slug of new Set(input.collections ?? [])) granted.push(await grantableCollection(tx, caller.userId, slug));
    requireFullAccess(caller, 'manage API keys');
    // New keys inherit the creating key's rate tier, so an upgraded account stays upgraded.
    const issued = await issueKey(tx, {
      userId: caller.userId,
      name: input.name,
      isFullAccess: input.is_full_access ?? false,
      tier: caller.tier,
      expiresIn: input.expires_in ?? 'never',
      now: deps.clock.now(),
    });
    for (const c of granted) await putGrant(tx, issued.record.id, caller.userId, c, 'read');
    const grants = (await grantsForKeys(tx, [issued.record.id])).get(issued.record.id) ?? [];
    return { ...keyJson(issued.record, grants), key: issued.key };
  });
}

/** A key of the caller's user; 404 otherwise (other users' keys are indistinguishable from unknown ones). */
async function findOwnKey(tx: Tx, caller: Caller, keyId: string, opts: { forUpdate?: boolean } = {}): Promise<KeyRecord> {
  const k = isUuid(keyId) ? await getKeyForUser(tx, caller.userId, keyId, opts) : undefined;
  if (!k) throw new AppError('API_KEY_NOT_FOUND', 'API key not found.');
  return k;
}

/** Looks up a key of the caller's user (404 otherwise), then refuses scoped callers. */
async function ownedKey(tx: Tx, caller: Caller, keyId: string, opts: { forUpdate?: boolean } = {}): Promise<KeyRecord> {
  const k = await findOwnKey(tx, caller, keyId, opts);
  requireFullAccess(caller, 'manage API keys');
  return k;
}

export async function updateKey(deps: AppDeps, caller: Caller, keyId: string, input: { name?: string; expires_in?: ExpiryChoice }) {
  return deps.sql.begin(async (tx) => {
    const k = await ownedKey(tx, caller, keyId, { forUpdate: true });
    const now = deps.clock.now();
    // A new expiry counts from now, which is how an expired key is renewed without a new secret.
    const expiresIn = input.expires_in ?? k.expires_in;
    const expiresAt = input.expires_in ? expiryFrom(input.expires_in, now) : k.expires_at;
    await tx`update api_keys set name = ${input.name ?? k.name}, expires_in = ${expiresIn}, expires_at = ${expiresAt} where id = ${k.id}`;
    const updated = (await getKeyForUser(tx, caller.userId, k.id))!;
    return keyJson(updated, (await grantsForKeys(tx, [k.id])).get(k.id) ?? []);
  });
}

export async function revokeKey(deps: AppDeps, caller: Caller, keyId: string) {
  return deps.sql.begin(async (tx) => {
    const k = await ownedKey(tx, caller, keyId, { forUpdate: true });
    if (k.is_active) await tx`update api_keys set is_active = false, revoked_at = ${deps.clock.now()} where id = ${k.id}`;
    const updated = (await getKeyForUser(tx, caller.userId, k.id))!;
    return keyJson(updated, (await grantsForKeys(tx, [k.id])).get(k.id) ?? []);
  });
}

/** Deactivates the old record and issues a new one with the same name, grants, scope, tier and expiry choice. */
export async function rotateKey(deps: AppDeps, caller: Caller, keyId: string) {
  return deps.sql.begin(async (tx) => {
    const old = await ownedKey(tx, caller, keyId, { forUpdate: true });
    if (!old.is_active)
      throw new AppError('VALIDATION_FAILED', 'A revoked key cannot be rotated; create a new key instead.', {
        uuid: ['Key is not active.'],
      });
    const now = deps.clock.now();
    await tx`update api_keys set is_active = false, revoked_at = ${now} where id = ${old.id}`;
    const issued = await issueKey(tx, {
      userId: caller.userId,
      name: old.name,
      isFullAccess: old.is_full_access,
      tier: old.rate_tier,
      expiresIn: old.expires_in,
      rotatedFrom: old.id,
      now,
    });
    await tx`
      insert into key_grants (key_id, collection_id, permission, created_at)
      select ${issued.record.id}, collection_id, permission, created_at from key_grants where key_id = ${old.id}`;
    const grants = (await grantsForKeys(tx, [issued.record.id])).get(issued.record.id) ?? [];
    return { ...keyJson(issued.record, grants), key: issued.key };
  });
}

export async function listGrants(deps: AppDeps, caller: Caller, keyId: string): Promise<Grant[]> {
  const k = await ownedKey(deps.sql, caller, keyId);
  return (await grantsForKeys(deps.sql, [k.id])).get(k.id) ?? [];
}

export async function upsertGrant(deps: AppDeps, caller: Caller, keyId: string, input: Grant): Promise<{ grant: Grant; created: boolean }> {
  return deps.sql.begin(async (tx) => {
    // Key, then collection, then scope: whatever a caller cannot see answers 404 before any 403.
    const k = await findOwnKey(tx, caller, keyId);
    const c = await grantableCollection(tx, caller.userId, input.collection);
    requireFullAccess(caller, 'manage API keys');
    const created = await putGrant(tx, k.id, caller.userId, c, input.permission);
    return { grant: { collection: c.slug, permission: input.permission }, created };
  });
}

export async function deleteGrant(deps: AppDeps, caller: Caller, keyId: string, slug: string): Promise<void> {
  await deps.sql.begin(async (tx) => {
    const k = await findOwnKey(tx, caller, keyId);
    const rows = isSlug(slug)
      ? await tx<{ collection_id: string }[]>`
          select g.collection_id from key_grants g join collections c on c.id = g.collection_id
           where g.key_id = ${k.id} and c.slug = ${slug}`
      : [];
    if (!rows[0]) throw new AppError('GRANT_NOT_FOUND', `This key has no grant on collection "${slug}".`);
    requireFullAccess(caller, 'manage API keys');
    await tx`delete from key_grants where key_id = ${k.id} and collection_id = ${rows[0].collection_id}`;
  });
}
