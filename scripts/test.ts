// `npm test`: provisions the test PostgreSQL (or uses DOCSIFT_TEST_ADMIN_URL), migrates the template
// database once, then runs every test file with node:test. Exits non-zero on any failure.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { ensureLocalPostgres } from '../daemon/src/db/provision.js';
import { migrate } from '../daemon/src/db/migrate.js';
import { createSql } from '../daemon/src/db/client.js';
import { createLogger } from '../daemon/src/logger.js';
import { migrateWorkerSchema } from '../daemon/src/worker/runner.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function main(): Promise<number> {
  const started = Date.now();
  const narrowed = process.argv.slice(2).length > 0;
  // A full run (what CI runs) first lints and typechecks every workspace: tests run through tsx, which
  // strips types, so without this a type error could land green. A narrowed run skips them and says so.
  if (!narrowed || process.env.DOCSIFT_TEST_CHECKS === '1') {
    for (const [name, args, hint] of [
      ['lint (biome ci)', ['biome', 'ci', '--colors=off', '.'], '`npm run format` fixes formatting and safe lint fixes'],
      ['typecheck (tsc, every workspace)', ['turbo', 'run', 'typecheck', '--output-logs=errors-only'], '`npm run typecheck` repeats it'],
    ] as const) {
      const t0 = Date.now();
      const code = await run(path.join(root, 'node_modules/.bin', args[0]), args.slice(1));
      if (code !== 0) {
        process.stderr.write(`[test] ${name} failed (exit ${code}); ${hint}\n`);
        return code || 1;
      }
      process.stderr.write(`[test] ${name} passed in ${Date.now() - t0} ms\n`);
    }
  } else {
    process.stderr.write('[test] narrowed run: lint and typecheck skipped (DOCSIFT_TEST_CHECKS=1 runs them)\n');
  }
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
  const template = await ensureTemplate(adminUrl);
  process.stderr.write(`[test] template database ready in ${Date.now() - started} ms\n`);

  // Arguments narrow the run to files or directories; by default every package's tests run.
  const targets = narrowed ? process.argv.slice(2) : ['daemon/src', 'sdk/src', 'cli/src', 'test'];
  const files = targets
    .flatMap((t) => findTests(path.resolve(root, t)))
    .map((f) => path.relative(root, f))
    .sort();
  if (!files.length) {
    process.stderr.write('[test] no test files found\n');
    return 1;
  }
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--test', `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 2}`, '--test-reporter=spec', ...files],
    {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, DOCSIFT_TEST_ADMIN_URL: adminUrl, DOCSIFT_TEST_TEMPLATE: template, NODE_ENV: 'test' },
    },
  );
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

/**
 * The migrated template, named after a hash of the migrations so concurrent or repeated runs share
 * it and a changed migration gets a fresh one. Built under another name and renamed when complete.
 */
async function ensureTemplate(adminUrl: string): Promise<string> {
  const hash = createHash('sha256');
  const dir = path.join(root, 'daemon/src/db/migrations');
  for (const f of readdirSync(dir).sort()) hash.update(f).update(readFileSync(path.join(dir, f)));
  hash.update(JSON.parse(readFileSync(path.join(root, 'node_modules/graphile-worker/package.json'), 'utf8')).version);
  const name = `tpl_${hash.digest('hex').slice(0, 12)}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin`select pg_advisory_lock(727431099)`;
    // Test databases left by runs whose process is gone (pid is encoded in the name).
    const dbs = await admin<
      { datname: string }[]
    >`select datname from pg_database where datname ~ '^[a-z0-9_]+_p[0-9a-z]+_[0-9a-f]{8}$' or datname ~ '^tpl_'`;
    for (const { datname } of dbs) {
      const pid = /_p([0-9a-z]+)_[0-9a-f]{8}$/.exec(datname)?.[1];
      const stale = pid ? !alive(parseInt(pid, 36)) : datname !== name;
      // Templates of other migration sets may be in use by a concurrent run: never forced.
      if (stale) await admin.unsafe(`drop database if exists "${datname}"${pid ? ' with (force)' : ''}`).catch(() => {});
    }
    const exists = await admin`select 1 from pg_database where datname = ${name}`;
    if (!exists.length) {
      const building = `${name}_build`;
      await admin.unsafe(`drop database if exists "${building}" with (force)`);
      await admin.unsafe(`create database "${building}"`);
      const url = new URL(adminUrl);
      url.pathname = '/' + building;
      const sql = createSql(url.toString(), { max: 1 });
      await migrate(sql);
      await sql.end();
      await migrateWorkerSchema(url.toString(), createLogger('warn'));
      await admin.unsafe(`alter database "${building}" rename to "${name}"`);
    }
    await admin`select pg_advisory_unlock(727431099)`;
  } finally {
    await admin.end();
  }
  return name;
}

function run(cmd: string, args: readonly string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: 'inherit' });
    child.on('error', (err) => {
      process.stderr.write(`[test] cannot run ${cmd}: ${err.message}\n`);
      resolve(1);
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}

function findTests(target: string): string[] {
  let st: ReturnType<typeof statSync>;
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
