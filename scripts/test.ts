// `npm test`: provisions the test PostgreSQL (or uses DOCSIFT_TEST_ADMIN_URL), migrates the template
// database once, then runs every test file with node:test. Exits non-zero on any failure.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { ensureLocalPostgres } from '../daemon/src/db/provision.js';
import { migrate } from '../daemon/src/db/migrate.js';
import { createSql } from '../daemon/src/db/client.js';
import { createLogger } from '../daemon/src/logger.js';
import { migrateWorkerSchema } from '../daemon/src/worker/runner.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TEMPLATE_DB = 'docsift_template';

async function main(): Promise<number> {
  const started = Date.now();
  let adminUrl = process.env.DOCSIFT_TEST_ADMIN_URL;
  if (!adminUrl) {
    const { databaseUrl } = await ensureLocalPostgres({
      dataDir: path.join(root, '.docsift', 'test-pg'),
      port: Number(process.env.DOCSIFT_TEST_PG_PORT ?? 54339),
      database: 'postgres',
      log: (m: string) => process.stderr.write(`[test-pg] ${m}\n`),
    });
    adminUrl = databaseUrl;
  }
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  // Leftovers from an interrupted run would only waste disk.
  const stale = await admin<{ datname: string }[]>`select datname from pg_database where datname ~ '^[a-z0-9_]+_[0-9a-f]{8}$'`;
  for (const { datname } of stale) await admin.unsafe(`drop database if exists "${datname}" with (force)`);
  await admin.unsafe(`drop database if exists "${TEMPLATE_DB}" with (force)`);
  await admin.unsafe(`create database "${TEMPLATE_DB}"`);
  await admin.end();
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = '/' + TEMPLATE_DB;
  const sql = createSql(templateUrl.toString(), { max: 1 });
  await migrate(sql);
  await sql.end();
  await migrateWorkerSchema(templateUrl.toString(), createLogger('warn'));
  process.stderr.write(`[test] template database ready in ${Date.now() - started} ms\n`);

  // Arguments narrow the run to files or directories; by default every package's tests run.
  const targets = process.argv.slice(2).length ? process.argv.slice(2) : ['daemon/src', 'sdk/src', 'cli/src', 'test'];
  const files = targets.flatMap((t) => findTests(path.resolve(root, t))).map((f) => path.relative(root, f)).sort();
  if (!files.length) {
    process.stderr.write('[test] no test files found\n');
    return 1;
  }
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--test', `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 2}`, '--test-reporter=spec', ...files],
    { cwd: root, stdio: 'inherit', env: { ...process.env, DOCSIFT_TEST_ADMIN_URL: adminUrl, NODE_ENV: 'test' } },
  );
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

function findTests(target: string): string[] {
  let st;
  try {
    st = statSync(target);
  } catch {
    return [];
  }
  if (st.isFile()) return target.endsWith('.test.ts') ? [target] : [];
  return readdirSync(target)
    .filter((name) => name !== 'node_modules' && !name.startsWith('.'))
    .flatMap((name) => findTests(path.join(target, name)));
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`[test] setup failed: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
