import type { Sql, Tx } from '../db/client.js';
import { validationError } from '../errors.js';
import { defineJob } from '../jobs/queue.js';
import type { AppDeps } from '../types.js';

/**
 * A collection's language is the name of a PostgreSQL text search configuration (english, french,
 * german, simple, or one an operator created): its chunks' tsvectors, and so its BM25 lists, are
 * built with it, and a search parses the query once per configuration among the searched
 * collections (search/text-channel.ts). Null in the database means TEXT_SEARCH_CONFIG.
 */
const NAME = /^[a-z_][a-z0-9_]{0,62}$/;
/**
 * docsift's own variants (migration 119): `docsift_<language>` is what a collection of that language
 * is indexed with (text_index_config()), never a language a user chooses.
 */
const INTERNAL = /^docsift_/;

/** The configuration named, visible on the search path; else 400 VALIDATION_FAILED on `language`. */
export async function validLanguage(tx: Tx, language: string): Promise<string> {
  const ok =
    NAME.test(language) &&
    !INTERNAL.test(language) &&
    (
      await tx<
        { ok: boolean }[]
      >`select exists (select 1 from pg_ts_config where cfgname = ${language} and pg_ts_config_is_visible(oid)) as ok`
    )[0]!.ok;
  if (!ok) {
    const names = await listLanguages(tx);
    throw validationError({ language: [`Unknown text search configuration "${language}". One of: ${names.join(', ')}.`] });
  }
  return language;
}

/** Every configuration a collection may use, by name: the choices of the web UI's form. */
export async function listLanguages(tx: Tx): Promise<string[]> {
  const rows = await tx<{ n: string }[]>`select cfgname::text as n from pg_ts_config where pg_ts_config_is_visible(oid) order by 1`;
  return rows.map((r) => r.n).filter((n) => !INTERNAL.test(n));
}

/**
 * Rewrites a collection's tsvectors with its language's index configuration (text_index_config():
 * docsift's variant of it when there is one), in one transaction: the update triggers on
 * chunks move its postings (renumbered chunks, tombstones and fresh rows, as any rewrite), and
 * `text_config` switches in the same commit, so a search sees the old lists parsed the old way or
 * the new ones parsed the new way, never a mix. The collection row is locked FOR UPDATE, and chunk
 * writers take it FOR KEY SHARE first (indexing/write-chunks.ts), so no chunk is written with the
 * configuration being replaced. Idempotent: nothing to do once text_config is the index configuration.
 */
export async function reindexCollectionLanguage(deps: AppDeps, collectionId: string): Promise<{ chunks: number }> {
  const def = deps.config.TEXT_SEARCH_CONFIG;
  return deps.sql.begin(async (tx) => {
    const [c] = await tx<{ target: string; text_config: string }[]>`
      select text_index_config(coalesce(language, ${def})) as target, coalesce(text_config, ${def}) as text_config
        from collections where id = ${collectionId} and deleted_at is null for update`;
    if (!c || c.target === c.text_config) return { chunks: 0 };
    const rows = await tx`
      update chunks k set tsv = docsift_tsvector(${c.target}, d.title || ' ' || k.content)
        from documents d
       where k.collection_id = ${collectionId} and d.id = k.document_id and k.tsv is not null`;
    await tx`update collections set text_config = ${c.target} where id = ${collectionId}`;
    return { chunks: rows.count };
  });
}

export const reindexLanguageJob = defineJob<{ collectionId: string }>({
  identifier: 'reindex_collection_language',
  task: (deps) => async (payload) => {
    await reindexCollectionLanguage(deps, payload.collectionId);
  },
  // One queued job per collection: changing the language twice before it runs rewrites once.
  jobKey: (p) => `collection-language:${p.collectionId}`,
});

/**
 * At start: a reindex job for every collection whose tsvectors were built with another configuration
 * than its language's index configuration (after migration 119, every collection indexed before it).
 * The job key makes a second start, or a second process, replace a job not yet started; a
 * job that finds the index current does nothing. Returns how many were stale.
 */
export async function enqueueStaleLanguageReindexes(sql: Sql, defaultConfig: string): Promise<number> {
  return sql.begin(async (tx) => {
    const stale = await tx<{ id: string }[]>`
      select id from collections
       where deleted_at is null
         and coalesce(text_config, ${defaultConfig}) <> text_index_config(coalesce(language, ${defaultConfig}))
       order by id`;
    await reindexLanguageJob.enqueueMany(
      tx,
      stale.map(({ id }) => ({ payload: { collectionId: id } })),
    );
    return stale.length;
  });
}
