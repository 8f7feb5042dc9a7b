// Which database an admin command acts on. Admin commands run beside a daemon, so they must reach
// that daemon's data: they say which database they opened, and with no DATABASE_URL they use only a
// cluster that already exists under DATA_DIR, never provisioning a new, empty one in its place.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';

/** `host:port/database` of a connection URL: never its user or password. */
export function databaseLabel(databaseUrl: string): string {
  try {
    const u = new URL(databaseUrl);
    return `${u.hostname}:${u.port || '5432'}${u.pathname || '/'}`;
  } catch {
    return '(an unparsable DATABASE_URL)';
  }
}

/** The local cluster's directory under DATA_DIR (where serve provisions it). */
export function localClusterDir(config: Pick<Config, 'DATA_DIR'>): string {
  return path.resolve(config.DATA_DIR, 'postgres');
}

/** Why an admin command cannot run here, or undefined when the daemon's database can be found. */
export function missingDatabase(config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR' | 'PG_PORT'>): string | undefined {
  if (config.DATABASE_URL) return undefined;
  const dir = localClusterDir(config);
  if (existsSync(path.join(dir, 'docsift.conf'))) return undefined;
  return [
    `No docsift database under ${path.resolve(config.DATA_DIR)} (no cluster in ${dir}); nothing was changed.`,
    `Run admin commands with the settings the daemon runs with: its DATA_DIR and PG_PORT (for the local`,
    `database it provisions), or its DATABASE_URL. The daemon prints the exact command at its first start.`,
  ].join('\n');
}

/** The line an admin command prints on stderr before it acts. */
export function openedDatabaseLine(config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR'>, databaseUrl: string): string {
  const where = config.DATABASE_URL ? 'DATABASE_URL' : `the local cluster in ${localClusterDir(config)}`;
  return `docsift-daemon admin: using the database ${databaseLabel(databaseUrl)} (${where})`;
}

const shellQuote = (v: string) => (/^[\w@%+=:,./-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);

/**
 * The command line the start banner prints for an admin subcommand, prefixed with the settings
 * (DATA_DIR, PG_PORT) this daemon was given, so that run as printed it reaches this daemon's data.
 * `env` is the process environment: only variables set there are repeated.
 */
export function adminCommandLine(sub: string, env: Record<string, string | undefined>): string {
  const prefix: string[] = [];
  if (!env.DATABASE_URL) {
    for (const name of ['DATA_DIR', 'PG_PORT'] as const) {
      const v = env[name];
      if (v) prefix.push(`${name}=${shellQuote(name === 'DATA_DIR' ? path.resolve(v) : v)}`);
    }
  }
  const line = `${prefix.join(' ')}${prefix.length ? ' ' : ''}npm run -s daemon -- admin ${sub}`;
  return env.DATABASE_URL ? `${line}   (with this daemon's DATABASE_URL set)` : line;
}
