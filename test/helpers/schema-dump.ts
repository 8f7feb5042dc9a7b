// The committed daemon/src/db/schema.sql: what every migration together makes of the app schema
// (`public`), dumped by pg_dump and normalised so the same schema always gives the same text.
// `npm run db:schema` writes it (scripts/db-schema.ts); test/db.schema.test.ts checks it is fresh.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { findPgBinDir } from '../../daemon/src/local-pg/binaries.js';
import { repoRoot } from './cluster.js';

export const SCHEMA_FILE = path.join(repoRoot, 'daemon/src/db/schema.sql');

const HEADER = `-- The app schema (\`public\`) once every migration in migrations/ has run: a generated file, never
-- edited by hand. The migrations are the source; this is what they add up to, for reading and review.
-- Regenerate with \`npm run db:schema\`; test/db.schema.test.ts fails when it is stale.

`;

/** pg_dump --schema-only of the `public` schema of `url`, normalised (deterministic for one schema). */
export async function dumpAppSchema(url: string): Promise<string> {
  const bin = findPgBinDir();
  const pgDump = bin ? path.join(bin, 'pg_dump') : 'pg_dump';
  const { stdout } = await promisify(execFile)(
    pgDump,
    ['--schema-only', '--schema=public', '--no-owner', '--no-privileges', '--no-comments', '--no-tablespaces', '--dbname', url],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  return HEADER + normalise(stdout);
}

/**
 * Drops what depends on the server or the session rather than on the schema: version comments,
 * SET lines, the search_path reset, the \restrict guard (a random key per dump), and runs of blank
 * lines.
 */
export function normalise(dump: string): string {
  const kept = dump
    .split('\n')
    .filter(
      (l) =>
        !/^-- Dumped (from|by) /.test(l) &&
        !/^SET /.test(l) &&
        !/^SELECT pg_catalog\.set_config\('search_path'/.test(l) &&
        !/^\\(un)?restrict /.test(l) &&
        l !== '--' &&
        l !== '-- PostgreSQL database dump' &&
        l !== '-- PostgreSQL database dump complete',
    )
    .map((l) => l.trimEnd());
  return `${kept
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}
