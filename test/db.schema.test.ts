// The committed daemon/src/db/schema.sql is what the migrations make of an empty database, as the
// committed openapi.json is what the routes serve.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';
import { dumpAppSchema, normalise, SCHEMA_FILE } from './helpers/schema-dump.js';

describe('daemon/src/db/schema.sql', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase('schema');
  });
  after(async () => db?.drop());

  it('matches the migrated database (run `npm run db:schema`)', async () => {
    const committed = await readFile(SCHEMA_FILE, 'utf8');
    const dumped = await dumpAppSchema(db.url);
    assert.ok(dumped.includes('CREATE TABLE public.documents'), 'the dump holds the app tables');
    assert.ok(!dumped.includes('graphile_worker'), "graphile-worker's schema is its own, not dumped");
    assert.equal(committed, dumped, 'schema.sql is stale: run `npm run db:schema` and commit it');
  });

  it('normalises away what depends on the server, not the schema', () => {
    const raw =
      '--\n-- PostgreSQL database dump\n--\n\n\\restrict abc123\n\n-- Dumped from database version 15.1\nSET lock_timeout = 0;\n\n\n\nCREATE TABLE public.t (id integer);   \n\\unrestrict abc123\n';
    assert.equal(normalise(raw), 'CREATE TABLE public.t (id integer);\n');
  });
});
