import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sql } from './client.js';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
// Arbitrary constant shared by every docsift process so concurrent starts serialise.
const MIGRATION_LOCK_ID = 727_431_001;

export interface Migration {
  version: number;
  name: string;
  file: string;
  /** A daemon of an earlier version cannot run on the schema this migration leaves (it drops or changes what that code reads). */
  breaking: boolean;
}

/** The first line of a migration that an earlier daemon cannot run after (graphile-worker's marker). */
export const BREAKING_MARKER = '--! breaking-change';

/**
 * Breaking migrations applied before the marker existed, marked here instead of in their files
 * (an applied file is never edited): 118 drops documents.content_text and
 * document_text(uuid, text, integer[]), which every document read of the previous version uses.
 */
export const BREAKING_BEFORE_MARKER: ReadonlySet<number> = new Set([118]);

export async function listMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f)).sort();
  return Promise.all(
    files.map(async (file) => {
      const version = Number(file.slice(0, 3));
      const first = (await readFile(path.join(dir, file), 'utf8')).split('\n', 1)[0]!.trim();
      const breaking = first === BREAKING_MARKER || BREAKING_BEFORE_MARKER.has(version);
      return { version, name: file.slice(4, -4), file: path.join(dir, file), breaking };
    }),
  );
}

const label = (m: { version: number; name: string }) => `${String(m.version).padStart(3, '0')}_${m.name}`;

/**
 * The database holds a breaking migration this code does not know: a newer docsift applied it, and
 * this one would fail its reads. Start-up refuses, and a running daemon exits (status 3).
 */
export class SchemaTooNewError extends Error {
  override readonly name = 'SchemaTooNewError';
  constructor(
    readonly migrations: { version: number; name: string }[],
    readonly highestKnown: number,
  ) {
    super(
      `the database has breaking migration ${migrations.map(label).join(', ')}, applied by a newer docsift; this docsift ` +
        `knows migrations up to ${String(highestKnown).padStart(3, '0')} and cannot run on that schema: upgrade it to the version that migrated the database`,
    );
  }
}

export async function appliedVersions(sql: Sql): Promise<Set<number>> {
  const exists = await sql<{ t: string | null }[]>`select to_regclass('public.schema_migrations')::text as t`;
  if (!exists[0]?.t) return new Set();
  const rows = await sql<{ version: number }[]>`select version from schema_migrations`;
  return new Set(rows.map((r) => r.version));
}

export interface MigrateOptions {
  /** Stops after this version (tests build databases of an older schema with it). */
  upTo?: number;
  /** The migrations folder (tests use folders of their own). */
  dir?: string;
  /** Where the warning about migrations this code does not know goes (default: `log`). */
  warn?: (msg: string) => void;
}

/**
 * Applies pending migrations in number order, each in its own transaction, while holding a session
 * advisory lock on one reserved connection so two daemons starting at once never race.
 *
 * Numbers are taken at merge, so the applied versions are always a prefix of the files:
 * - an unapplied file numbered below the highest applied one is refused before anything runs (it
 *   would run after migrations written after it, on a schema its author never saw);
 * - applied versions with no file (a newer daemon migrated this database) are reported through
 *   `warn` and the start goes on, as graphile-worker does for its non-breaking migrations: a
 *   rolling deploy runs the older daemons on the newer schema for a while;
 * - unless one of them is breaking (`--! breaking-change`): then nothing runs and SchemaTooNewError
 *   says which, since this code would fail its reads on that schema.
 */
export async function migrate(sql: Sql, log: (msg: string) => void = () => {}, opts: MigrateOptions = {}): Promise<number[]> {
  const files = await listMigrations(opts.dir);
  const migrations = files.filter((m) => opts.upTo === undefined || m.version <= opts.upTo);
  const conn = await sql.reserve();
  const applied: number[] = [];
  try {
    await conn`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    await conn`
      create table if not exists schema_migrations (
        version integer primary key,
        name text not null,
        applied_at timestamptz not null default now()
      )`;
    // Recorded from the marker; a table migrated by an earlier docsift gains the column here.
    await conn`alter table schema_migrations add column if not exists breaking boolean not null default false`;
    const rows = await conn<{ version: number; name: string; breaking: boolean }[]>`
      select version, name, breaking from schema_migrations order by version`;
    const done = new Set(rows.map((r) => r.version));
    const highest = rows.at(-1);
    const stale = highest ? migrations.filter((m) => !done.has(m.version) && m.version < highest.version) : [];
    if (stale.length)
      throw new Error(
        `migration ${stale.map((m) => `${String(m.version).padStart(3, '0')}_${m.name}`).join(', ')} is numbered below ` +
          `${String(highest!.version).padStart(3, '0')}_${highest!.name}, which this database already applied: ` +
          'renumber it above the highest migration (numbers are taken at merge)',
      );
    const known = new Set(files.map((m) => m.version));
    const unknown = rows.filter((r) => !known.has(r.version));
    const newerBreaking = unknown.filter((r) => r.breaking);
    if (newerBreaking.length) throw new SchemaTooNewError(newerBreaking, Math.max(0, ...known));
    if (unknown.length)
      (opts.warn ?? log)(
        `the database has migrations this code does not know (${unknown.map(label).join(', ')}): ` +
          'a newer docsift migrated it; run the same version everywhere',
      );
    const unmarked = files.filter((m) => m.breaking && done.has(m.version)).map((m) => m.version);
    if (unmarked.length) await conn`update schema_migrations set breaking = true where version = any(${unmarked}::int[]) and not breaking`;
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      const text = await readFile(m.file, 'utf8');
      await conn.unsafe('begin');
      try {
        await conn.unsafe(text);
        await conn`insert into schema_migrations (version, name, breaking) values (${m.version}, ${m.name}, ${m.breaking})`;
        await conn.unsafe('commit');
      } catch (err) {
        await conn.unsafe('rollback');
        throw new Error(`migration ${m.version}_${m.name} failed: ${(err as Error).message}`);
      }
      log(`applied migration ${m.version}_${m.name}`);
      applied.push(m.version);
    }
  } finally {
    await conn`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`.catch(() => {});
    conn.release();
  }
  return applied;
}

/** True when every migration file has been applied. */
export async function migrationsCurrent(sql: Sql): Promise<boolean> {
  const [files, applied] = await Promise.all([listMigrations(), appliedVersions(sql)]);
  return files.every((m) => applied.has(m.version));
}
