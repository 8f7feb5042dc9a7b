// `admin backup` and `admin restore`: admin subcommands that open the database themselves (a backup
// never migrates what it copies; a restore needs an empty database, provisioned when it is the
// embedded one), so main.ts runs them before its usual "open and migrate".
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { required, type StandaloneCommand, type StandaloneContext } from '../admin/command.js';
import { missingDatabase } from '../admin/database.js';
import type { Config } from '../config.js';
import { createSql, type Sql } from '../db/client.js';
import { listMigrations } from '../db/migrate.js';
import { embeddedPostgres } from '../local-pg/from-config.js';
import { createBlobStore } from '../storage/index.js';
import { runBackup } from './backup.js';
import { createProgress, formatBytes } from './progress.js';
import { openRepository } from './repository.js';
import { runRestore } from './restore.js';

/** The daemon's database: DATABASE_URL, or the embedded cluster (provisioned only when `provision`). */
async function databaseUrl(ctx: StandaloneContext, provision: boolean): Promise<string> {
  if (ctx.config.DATABASE_URL) return ctx.config.DATABASE_URL;
  if (!provision) {
    const missing = missingDatabase(ctx.config);
    if (missing) throw new Error(missing);
  }
  return (await embeddedPostgres(ctx.config, (m) => ctx.logger.info({ component: 'provision' }, m))).databaseUrl;
}

async function withSql<T>(url: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
  const sql = createSql(url, { max: 2 });
  try {
    return await fn(sql);
  } finally {
    await sql.end();
  }
}

const secretFile = (config: Config) => path.join(config.DATA_DIR, 'signing-secret');

async function signingSecret(config: Config): Promise<{ value: string; source: 'env' | 'file' }> {
  if (config.SIGNING_SECRET) return { value: config.SIGNING_SECRET, source: 'env' };
  const value = (await readFile(secretFile(config), 'utf8').catch(() => '')).trim();
  if (!value)
    throw new Error(`no signing secret: SIGNING_SECRET is unset and ${secretFile(config)} does not exist (run with the daemon's settings)`);
  return { value, source: 'file' };
}

export const BACKUP_COMMANDS: StandaloneCommand[] = [
  {
    name: 'backup',
    examples: ['backup --to /var/backups/docsift/2026-05-01', 'backup --to s3://acme-backups/docsift/2026-05-01 --json'],
    usage: `  backup --to DIR|s3://BUCKET/PREFIX  Online, consistent backup of the database, the stored files it references
        and the signing secret, with a manifest of SHA-256 checksums (S3 through the S3_* settings).
        Uploads and searches go on meanwhile.`,
    options: { to: { type: 'string' } },
    async run(ctx, a) {
      const [to] = required(a, 'to');
      const url = await databaseUrl(ctx, false);
      const secret = await signingSecret(ctx.config);
      const repo = openRepository(to!, ctx.config);
      const blobs = createBlobStore(ctx.config);
      try {
        const r = await withSql(url, (sql) =>
          runBackup({
            sql,
            databaseUrl: url,
            blobs,
            repo,
            signingSecret: secret,
            progress: createProgress(ctx.err, !a.flag('json'), 'backup'),
            now: () => ctx.clock.now(),
          }),
        );
        const problems = [
          ...r.missing.map((k) => `  missing from the store: ${k}`),
          ...r.mismatched.map((k) => `  differs from its upload checksum: ${k}`),
        ];
        a.print(
          `Backed up ${r.documents.toLocaleString('en-US')} document(s): database ${formatBytes(r.database_bytes)}, ` +
            `${r.blobs.toLocaleString('en-US')} file(s) (${formatBytes(r.blob_bytes)}) and the signing secret, to ${r.location} in ${r.seconds} s.` +
            (problems.length ? `\nProblems (the backup holds everything else):\n${problems.join('\n')}` : ''),
          r,
        );
        return problems.length ? 1 : 0;
      } finally {
        blobs.close();
        repo.close();
      }
    },
  },
  {
    name: 'restore',
    examples: ['restore --from /var/backups/docsift/2026-05-01', 'restore --from s3://acme-backups/docsift/2026-05-01 --json'],
    usage: `  restore --from DIR|s3://BUCKET/PREFIX
        Restore a backup into an empty DATA_DIR (the embedded database is provisioned) or an empty
        DATABASE_URL, with the stored files (STORAGE) and the signing secret; every file is checked
        against the manifest first. Then start the daemon with the same settings.`,
    options: { from: { type: 'string' } },
    async run(ctx, a) {
      const [from] = required(a, 'from');
      const repo = openRepository(from!, ctx.config);
      const blobs = createBlobStore(ctx.config);
      try {
        const url = await databaseUrl(ctx, true);
        const highest = Math.max(...(await listMigrations()).map((m) => m.version));
        const r = await withSql(url, (sql) =>
          runRestore({
            repo,
            databaseUrl: url,
            sql,
            blobs,
            ...(ctx.config.SIGNING_SECRET ? { envSecret: ctx.config.SIGNING_SECRET } : {}),
            secretFile: secretFile(ctx.config),
            highestMigration: highest,
            progress: createProgress(ctx.err, !a.flag('json'), 'restore'),
          }),
        );
        a.print(
          `Restored the backup of ${r.created_at} from ${r.location}: ${r.documents.toLocaleString('en-US')} document(s), ` +
            `${r.blobs.toLocaleString('en-US')} file(s) (${formatBytes(r.blob_bytes)}) in ${r.seconds} s.\n` +
            'Start the daemon with the same settings (DATA_DIR or DATABASE_URL, STORAGE); it applies any newer migrations.',
          r,
        );
      } finally {
        blobs.close();
        repo.close();
      }
    },
  },
];
