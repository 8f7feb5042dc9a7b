import type { Tx } from '../db/client.js';
import { insertCollection, queryVisibleCollections, takenSlugs, type CollectionRow } from './queries.js';
import { requireFullAccess, requireWriteAccess, visibleToCaller } from '../auth/access.js';
import { AppError } from '../errors.js';
import { isSlug, isUuid } from '../ids.js';
import { reindexLanguageJob, validLanguage } from './language.js';
import type { AppDeps, Caller } from '../types.js';

const SLUG_MAX = 60;

/**
 * Slug rules: lowercase, accents folded to ASCII, every other run of non-alphanumerics becomes one
 * hyphen, trimmed, at most 60 characters; empty results fall back to "collection". Slugs are
 * globally unique (a clash gets -2, -3, …) and never change on rename.
 */
export function slugify(name: string): string {
  const ascii = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .replace(/[æÆ]/g, 'ae')
    .replace(/[øØ]/g, 'o')
    .replace(/[łŁ]/g, 'l')
    .toLowerCase();
  const slug = ascii
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX)
    .replace(/-+$/, '');
  return slug || 'collection';
}

/** `defaultLanguage`: TEXT_SEARCH_CONFIG, the language of collections that predate per-collection languages. */
export function collectionToJson(c: CollectionRow, defaultLanguage: string) {
  return {
    uuid: c.id,
    name: c.name,
    slug: c.slug,
    description: c.description,
    document_count: c.document_count,
    total_chunks: c.total_chunks,
    is_public: c.is_public,
    is_subscribed: c.is_subscribed,
    language: c.language ?? defaultLanguage,
    created_at: c.created_at.toISOString(),
  };
}

export function notFound(): AppError {
  return new AppError('COLLECTION_NOT_FOUND', 'Collection not found.');
}

/**
 * The 404 of a path that takes a collection uuid but was given something else. When that is the
 * slug of a collection the caller sees, the message names the uuid to use instead; for any other
 * slug the answer is the plain one, so it tells nothing about collections the caller cannot see.
 */
async function notFoundByUuid(tx: Tx, caller: Caller, ref: string): Promise<AppError> {
  if (!isSlug(ref)) return notFound();
  const [row] = await tx<{ id: string }[]>`select c.id from collections c where c.slug = ${ref} and ${visibleToCaller(tx, caller)}`;
  if (!row) return notFound();
  return new AppError(
    'COLLECTION_NOT_FOUND',
    `Collection not found: "${ref}" is a slug, and this path takes the collection's uuid: use ${row.id} (GET /api/v1/collections/ lists both).`,
  );
}

export async function getVisibleCollection(tx: Tx, caller: Caller, id: string): Promise<CollectionRow> {
  if (!isUuid(id)) throw await notFoundByUuid(tx, caller, id);
  const [row] = await queryVisibleCollections(tx, caller, { id });
  if (!row) throw notFound();
  return row;
}

/**
 * Just the id of a visible collection, with the same 404 as getVisibleCollection: for
 * callers that only check or scope by it (search resolves its scope on every request), as the
 * detail's document counts cost milliseconds on big collections (+5-10 ms CPU per search at 70k chunks).
 */
export async function getVisibleCollectionId(tx: Tx, caller: Caller, ref: { id: string } | { slug: string }): Promise<string> {
  const valid = 'id' in ref ? isUuid(ref.id) : isSlug(ref.slug);
  if (!valid) throw notFound();
  const rows = await tx<{ id: string }[]>`
    select c.id from collections c
     where ${'id' in ref ? tx`c.id = ${ref.id}` : tx`c.slug = ${ref.slug}`} and ${visibleToCaller(tx, caller)}`;
  if (!rows[0]) throw notFound();
  return rows[0].id;
}

/** A collection the caller may write to (auth/access.ts `requireWriteAccess`). */
export async function requireWritableCollection(tx: Tx, caller: Caller, id: string): Promise<CollectionRow> {
  const c = await getVisibleCollection(tx, caller, id);
  await requireWriteAccess(tx, caller, c);
  return c;
}

export async function createCollection(
  deps: AppDeps,
  caller: Caller,
  input: { name: string; description?: string; is_public?: boolean; language?: string },
) {
  requireFullAccess(caller, 'create collections');
  const language = input.language === undefined ? deps.config.TEXT_SEARCH_CONFIG : await validLanguage(deps.sql, input.language);
  const base = slugify(input.name);
  // A concurrent create may take the same slug between our check and insert: retry on the unique index.
  for (let attempt = 0; ; attempt++) {
    try {
      const row = await deps.sql.begin(async (tx) => {
        const taken = await takenSlugs(tx, base);
        let slug = base;
        for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
        const { id } = await insertCollection(tx, {
          ownerId: caller.userId,
          organizationId: caller.orgId,
          name: input.name,
          slug,
          description: input.description ?? '',
          isPublic: input.is_public ?? false,
          language,
          now: deps.clock.now(),
        });
        return (await queryVisibleCollections(tx, { ...caller, isFullAccess: true }, { id }))[0]!;
      });
      return collectionToJson(row as CollectionRow, deps.config.TEXT_SEARCH_CONFIG);
    } catch (err) {
      if ((err as { code?: string }).code === '23505' && attempt < 5) continue;
      throw err;
    }
  }
}

/** Visible → else 404; scoped → 403; owner → else 403. Invisible collections never reveal themselves with a 403. */
async function requireOwned(tx: Tx, caller: Caller, id: string, action: string): Promise<CollectionRow> {
  const c = await getVisibleCollection(tx, caller, id);
  requireFullAccess(caller, action);
  if (c.owner_id !== caller.userId) throw new AppError('NOT_COLLECTION_OWNER', `Only the owner of collection "${c.slug}" may ${action}.`);
  return c;
}

export async function updateCollection(
  deps: AppDeps,
  caller: Caller,
  id: string,
  patch: { name?: string; description?: string; is_public?: boolean; language?: string },
) {
  return deps.sql.begin(async (tx) => {
    const c = await requireOwned(tx, caller, id, 'update collections');
    const language = patch.language === undefined ? c.language : await validLanguage(tx, patch.language);
    await tx`
      update collections set
        name = ${patch.name ?? c.name},
        description = ${patch.description ?? c.description},
        is_public = ${patch.is_public ?? c.is_public},
        language = ${language},
        updated_at = ${deps.clock.now()}
      where id = ${c.id}`;
    // A new language reindexes the collection in the background (collections/language.ts); the job
    // exists if and only if the change commits, and is a no-op once the index matches.
    const def = deps.config.TEXT_SEARCH_CONFIG;
    if ((language ?? def) !== (c.language ?? def)) await reindexLanguageJob.enqueue(tx, { collectionId: c.id });
    return collectionToJson((await queryVisibleCollections(tx, caller, { id: c.id }))[0]!, deps.config.TEXT_SEARCH_CONFIG);
  });
}

/** Soft delete: the collection and its documents vanish at once; chunks leave the search index now; blobs are purged after 7 days. */
export async function deleteCollection(deps: AppDeps, caller: Caller, id: string): Promise<void> {
  await deps.sql.begin(async (tx) => {
    const c = await requireOwned(tx, caller, id, 'delete collections');
    const now = deps.clock.now();
    await tx`update collections set deleted_at = ${now}, updated_at = ${now} where id = ${c.id}`;
    await tx`update documents set deleted_at = ${now}, updated_at = ${now} where collection_id = ${c.id} and deleted_at is null`;
    await tx`delete from chunks where collection_id = ${c.id}`;
    await tx`delete from key_grants where collection_id = ${c.id}`;
  });
}

export async function listCollections(deps: AppDeps, caller: Caller) {
  return (await deps.reads.run((sql) => queryVisibleCollections(sql, caller))).map((c) =>
    collectionToJson(c, deps.config.TEXT_SEARCH_CONFIG),
  );
}

export async function subscribe(deps: AppDeps, caller: Caller, slug: string) {
  if (!isSlug(slug)) throw new AppError('COLLECTION_NOT_FOUND', 'Collection not found or not public.');
  return deps.sql.begin(async (tx) => {
    const rows = await tx<{ id: string; owner_id: string; is_public: boolean }[]>`
      select id, owner_id, is_public from collections where slug = ${slug} and deleted_at is null`;
    const c = rows[0];
    const owned = c?.owner_id === caller.userId;
    if (!c || (!c.is_public && !owned)) throw new AppError('COLLECTION_NOT_FOUND', 'Collection not found or not public.');
    requireFullAccess(caller, 'manage subscriptions');
    // Subscribing to your own collection changes nothing: owners already see it.
    if (!owned) await tx`insert into subscriptions (user_id, collection_id) values (${caller.userId}, ${c.id}) on conflict do nothing`;
    return { status: 'subscribed' as const, collection: slug };
  });
}

export async function unsubscribe(deps: AppDeps, caller: Caller, slug: string) {
  if (!isSlug(slug)) throw new AppError('SUBSCRIPTION_NOT_FOUND', 'Subscription not found.');
  return deps.sql.begin(async (tx) => {
    const rows = await tx<{ collection_id: string }[]>`
      select s.collection_id from subscriptions s join collections c on c.id = s.collection_id
       where s.user_id = ${caller.userId} and c.slug = ${slug} and c.deleted_at is null`;
    if (!rows[0]) throw new AppError('SUBSCRIPTION_NOT_FOUND', 'Subscription not found.');
    requireFullAccess(caller, 'manage subscriptions');
    await tx`delete from subscriptions where user_id = ${caller.userId} and collection_id = ${rows[0].collection_id}`;
    // Grants of this user's keys on a collection it no longer sees are meaningless; drop them.
    await tx`delete from key_grants g using api_keys k where g.key_id = k.id and k.user_id = ${caller.userId} and g.collection_id = ${rows[0].collection_id}`;
    return { status: 'unsubscribed' as const, collection: slug };
  });
}

/**
 * The public catalogue: every public collection, newest first, with whether the caller owns it or
 * subscribes to it. Public collections are meant to be found and subscribed to by anyone, so
 * this lists across organizations (what `subscribe` accepts), never private ones.
 */
export async function listPublicCatalogue(deps: AppDeps, caller: Caller, opts: { limit?: number } = {}) {
  const rows = await deps.sql<
    {
      id: string;
      name: string;
      slug: string;
      description: string;
      owned: boolean;
      is_subscribed: boolean;
      document_count: number;
      created_at: Date;
    }[]
  >`
    select c.id, c.name, c.slug, c.description, c.owner_id = ${caller.userId} as owned, c.created_at,
           exists (select 1 from subscriptions s where s.collection_id = c.id and s.user_id = ${caller.userId}) as is_subscribed,
           (select count(*) from documents d where d.collection_id = c.id and d.deleted_at is null)::int as document_count
      from collections c
     where c.is_public and c.deleted_at is null
     order by c.created_at desc, c.id
     limit ${Math.min(opts.limit ?? 200, 500)}`;
  return rows;
}
