// `npm test`: provisions the test PostgreSQL (or uses DOCSIFT_TEST_ADMIN_URL), migrates the template
// database once, then runs every test file with node:test. Exits non-zero on any failure.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import postgres from 'postgres';
import { dropStaleDatabases, migrateDatabase, repoRoot as root, testClusterAdminUrl } from '../test/helpers/cluster.js';
import { withDatabase } from '../test/helpers/pg.js';
import { findPgbouncer } from '../test/helpers/pgbouncer.js';
import { findPgbackrest } from '../daemon/src/local-pg/pgbackrest.js';
import { patchPostgres } from './patch-postgres.mjs';

async function main(): Promise<number> {
  const started = Date.now();
  const narrowed = process.argv.slice(2).length > 0;
  // Normally done by `npm install` (postinstall); repeated so a tree installed before the patch
  // existed, or with --ignore-scripts, tests the driver the daemon ships with.
  for (const r of patchPostgres(root))
    if (r.status !== 'already patched') process.stderr.write(`[test] ${path.relative(root, r.file)}: ${r.status}\n`);
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
  const adminUrl = await testClusterAdminUrl((m) => process.stderr.write(`[test-pg] ${m}\n`));
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
  // Debian servers the tests start for real: installed here when possible (root with apt-get), else
  // the tests that need them fail saying how to install them; never skipped.
  for (const [tool, find, uses] of [
    ['pgbouncer', findPgbouncer, /pgbouncer|many-processes/],
    ['pgbackrest', findPgbackrest, /pitr/],
  ] as const) {
    if (!files.some((f) => uses.test(f))) continue;
    const code = await ensureTool(tool, find);
    if (code !== 0) process.stderr.write(`[test] ${tool} could not be installed; its tests will fail (see scripts/install-test-deps.sh)\n`);
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
    // Test databases left by runs whose process is gone, and templates of other migration sets.
    await dropStaleDatabases(admin, { keepTemplate: name });
    const exists = await admin`select 1 from pg_database where datname = ${name}`;
    if (!exists.length) {
      const building = `${name}_build`;
      await admin.unsafe(`drop database if exists "${building}" with (force)`);
      await admin.unsafe(`create database "${building}"`);
      await migrateDatabase(withDatabase(adminUrl, building));
      await admin.unsafe(`alter database "${building}" rename to "${name}"`);
    }
    await admin`select pg_advisory_unlock(727431099)`;
  } finally {
    await admin.end();
  }
  return name;
}

async function ensureTool(tool: string, find: () => string): Promise<number> {
  try {
    find();
    return 0;
  } catch {
    if (process.getuid?.() !== 0) return 1;
    process.stderr.write(`[test] ${tool} is missing: running scripts/install-test-deps.sh\n`);
    return run('bash', [path.join(root, 'scripts/install-test-deps.sh')]);
  }
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
