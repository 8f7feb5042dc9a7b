// `npm run db:schema`: writes daemon/src/db/schema.sql, the app schema every migration adds up to.
// Migrates a scratch database on the test cluster (DOCSIFT_TEST_PG_PORT, as `npm test`), dumps its
// `public` schema normalised (test/helpers/schema-dump.ts) and drops it. With --check it only
// compares and exits 1 when the committed file is stale.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { createSql } from '../daemon/src/db/client.js';
import { migrate } from '../daemon/src/db/migrate.js';
import { testClusterAdminUrl } from '../test/helpers/cluster.js';
import { withDatabase } from '../test/helpers/pg.js';
import { dumpAppSchema, SCHEMA_FILE } from '../test/helpers/schema-dump.js';

const adminUrl = await testClusterAdminUrl((m) => process.stderr.write(`[test-pg] ${m}\n`));
const name = `schema_p${process.pid.toString(36)}_${randomBytes(4).toString('hex')}`;
const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
let text: string;
try {
  await admin.unsafe(`create database "${name}"`);
  const url = withDatabase(adminUrl, name);
  const sql = createSql(url, { max: 1 });
  try {
    await migrate(sql);
  } finally {
    await sql.end();
  }
  text = await dumpAppSchema(url);
} finally {
  await admin.unsafe(`drop database if exists "${name}" with (force)`).catch(() => {});
  await admin.end();
}
const rel = path.relative(process.cwd(), SCHEMA_FILE);
if (process.argv.includes('--check')) {
  if ((await readFile(SCHEMA_FILE, 'utf8').catch(() => '')) !== text) {
    process.stderr.write(`${rel} is stale: run \`npm run db:schema\` and commit it.\n`);
    process.exit(1);
  }
  process.stdout.write(`${rel} is up to date.\n`);
} else {
  await writeFile(SCHEMA_FILE, text);
  process.stdout.write(`wrote ${rel}\n`);
}
