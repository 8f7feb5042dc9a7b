// graphile-worker's private tables are touched by one module (worker/graphile-internals.ts), and
// every private column it uses is checked at start-up: an upgrade that changes them fails loudly,
// in one place, instead of in a batch claim or a crash-recovery sweep much later.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSql, type Sql } from '../daemon/src/db/client.js';
import { assertGraphileInternals, PRIVATE_COLUMNS } from '../daemon/src/worker/graphile-internals.js';
import { repoRoot } from './helpers/cluster.js';
import { startTestDaemon } from './helpers/daemon.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';

const MODULE = 'daemon/src/worker/graphile-internals.ts';

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await sourceFiles(p)));
    else if (/\.(ts|mjs|sql)$/.test(e.name) && !e.name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

describe('graphile-worker internals', () => {
  let db: TestDatabase;
  let sql: Sql;
  before(async () => {
    db = await createTestDatabase('gwinternals');
    sql = createSql(db.url, { max: 2 });
  });
  after(async () => {
    await sql?.end();
    await db?.drop();
  });

  it('finds every private column it uses in the installed graphile-worker', async () => {
    await assertGraphileInternals(sql);
  });

  it('lists every column of the job table its SQL names', async () => {
    const text = await readFile(path.join(repoRoot, MODULE), 'utf8');
    const used = new Set([...text.matchAll(/\bjobs\.([a-z_]+)\b/g)].map((m) => m[1]!));
    for (const c of used) assert.ok((PRIVATE_COLUMNS._private_jobs as readonly string[]).includes(c), `jobs.${c} is in PRIVATE_COLUMNS`);
  });

  it('is the only daemon module that names a private table', async () => {
    const files = await sourceFiles(path.join(repoRoot, 'daemon/src'));
    const offenders: string[] = [];
    for (const f of files) {
      const rel = path.relative(repoRoot, f);
      if (rel === MODULE) continue;
      const text = (await readFile(f, 'utf8')).replace(/\/\/.*|\/\*[\s\S]*?\*\/|^\s*\*.*$/gm, '');
      if (/_private_(jobs|tasks|job_queues)\b/.test(text)) offenders.push(rel);
    }
    assert.deepEqual(offenders, []);
  });

  it('fails naming the column when a private column is gone, and a worker does not start', async () => {
    await sql`alter table graphile_worker._private_jobs rename column locked_by to locked_by_renamed`;
    try {
      await assert.rejects(assertGraphileInternals(sql), /graphile_worker\._private_jobs\.locked_by\b.*graphile-internals\.ts/);
      await assert.rejects(startTestDaemon({ label: 'gwinternals', db, worker: true }), /_private_jobs\.locked_by\b/);
    } finally {
      await sql`alter table graphile_worker._private_jobs rename column locked_by_renamed to locked_by`;
    }
  });
});
