// Upgrading a database of the previous release (migrations up to 117, before the breaking 118) that
// holds every kind of data: after migrate() and a daemon start, every document reads as it did (its
// title, tags, metadata, status and text; its file downloads whole; deleted ones stay gone), every
// key authenticates with its scope, and every webhook delivers signed with its secret.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { toSql } from 'pgvector';
import { generateApiKey } from '../daemon/src/auth/keys.js';
import { createSql, type Sql } from '../daemon/src/db/client.js';
import { listMigrations, migrate } from '../daemon/src/db/migrate.js';
import { createLogger } from '../daemon/src/logger.js';
import { sealWebhookSecret } from '../daemon/src/webhooks/secrets.js';
import { migrateWorkerSchema } from '../daemon/src/worker/runner.js';
import { http, startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { fakeEmbedding, startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { insertTenant } from './helpers/old-schema.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

const DIM = 16;
const MODEL = 'nomic-embed-text';
const SECRET = 'test-signing-secret-0123456789abcdef0123456789abcdef';

interface OldDoc {
  id: string;
  org: string;
  title: string;
  text: string;
  status: string;
  tags: string[];
  metadata: Record<string, unknown>;
  deleted: boolean;
  file?: Buffer;
}

describe('upgrading a database of the previous release, with every kind of data', () => {
  let db: TestDatabase;
  let sql: Sql;
  let ollama: FakeOllama;
  let d: TestDaemon;
  let dataDir: string;
  const receivers: WebhookReceiver[] = [];
  const docs: OldDoc[] = [];
  const keys: { key: string; org: string; full: boolean; grants: Record<string, 'read' | 'write'> }[] = [];
  const tenants: { key: string; collection: string; org: string }[] = [];

  async function doc(t: { collection: string; org: string }, o: Omit<OldDoc, 'id' | 'org'> & { source: string; chunked: boolean }) {
    const [r] = await sql<{ id: string }[]>`
      insert into documents (collection_id, title, source_type, status, tags, metadata, chunks_count, content_text, indexed_at, deleted_at,
                             original_filename, file_size, media_type)
      values (${t.collection}, ${o.title}, ${o.source}, ${o.status}, ${o.tags}, ${sql.json(o.metadata as never)}, ${o.chunked ? 1 : 0},
              ${o.status === 'pending' && o.source === 'text' ? '' : o.text}, ${o.status === 'indexed' ? new Date() : null},
              ${o.deleted ? new Date() : null}, ${o.file ? `${o.title}.txt` : ''}, ${o.file?.length ?? 0}, ${o.file ? 'text/plain' : 'text/plain'})
      returning id`;
    const id = r!.id;
    if (o.status === 'pending' && o.source === 'text')
      await sql`insert into document_texts (document_id, content) values (${id}, ${o.text})`;
    if (o.file) {
      const key = `docs/${t.collection}/${id}`;
      await mkdir(path.join(dataDir, 'blobs', 'docs', t.collection), { recursive: true });
      await writeFile(path.join(dataDir, 'blobs', key), o.file);
      await sql`update documents set blob_key = ${key} where id = ${id}`;
    }
    if (o.chunked)
      await sql`
        insert into chunks (document_id, collection_id, generation, chunk_index, content, token_count, embedding, embedding_model, tsv)
        values (${id}, ${t.collection}, 1, 0, ${o.text}, 12, ${toSql(fakeEmbedding(o.text, DIM))}::halfvec, ${MODEL},
                to_tsvector('english', ${o.text}))`;
    docs.push({ id, org: t.org, ...o });
  }

  async function scopedKey(t: { key: string; org: string }, userOf: string, grants: Record<string, 'read' | 'write'>) {
    const k = generateApiKey();
    const [row] = await sql<{ id: string }[]>`
      insert into api_keys (user_id, name, prefix, key_hash, is_full_access) values (${userOf}, 'scoped', ${k.prefix}, ${k.hash}, false) returning id`;
    for (const [collection, permission] of Object.entries(grants))
      await sql`insert into key_grants (key_id, collection_id, permission) values (${row!.id}, ${collection}, ${permission})`;
    keys.push({ key: k.key, org: t.org, full: false, grants });
  }

  before(async () => {
    const breaking = (await listMigrations()).find((m) => m.breaking)!.version;
    db = await createTestDatabase('upgrade_release', { empty: true });
    sql = createSql(db.url, { max: 2 });
    await migrate(sql, () => {}, { upTo: breaking - 1 });
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'docsift-upgrade-'));
    await sql`insert into instance_settings (key, value) values ('embedding_model', ${sql.json({ model: MODEL, dimension: DIM })})`;
    for (const label of ['upr-a', 'upr-b']) {
      const t = await insertTenant(sql, label);
      tenants.push(t);
      keys.push({ key: t.key, org: t.org, full: true, grants: {} });
      const n = tenants.length;
      const common = { tags: [`t${n}`, 'shared'], metadata: { n, kind: 'old' }, deleted: false };
      await doc(t, {
        ...common,
        title: `indexed text ${n}`,
        text: `Indexed text of tenant ${n} about the lock keeper.`,
        status: 'indexed',
        source: 'text',
        chunked: true,
      });
      await doc(t, {
        ...common,
        title: `pending text ${n}`,
        text: `Pending text of tenant ${n} about the ferry.`,
        status: 'pending',
        source: 'text',
        chunked: false,
      });
      await doc(t, {
        ...common,
        title: `file ${n}`,
        text: `Extracted file text of tenant ${n} about the mill race.`,
        status: 'indexed',
        source: 'txt',
        chunked: true,
        file: Buffer.from(`Extracted file text of tenant ${n} about the mill race.`),
      });
      await doc(t, {
        ...common,
        title: `failed ${n}`,
        text: `Failed text of tenant ${n}.`,
        status: 'failed',
        source: 'text',
        chunked: false,
      });
      await doc(t, {
        ...common,
        title: `deleted ${n}`,
        text: `Deleted text of tenant ${n}.`,
        status: 'indexed',
        source: 'text',
        chunked: false,
        deleted: true,
      });
      const rx = await startWebhookReceiver(`whsec_${label}_0123456789abcdef`);
      receivers.push(rx);
      await sql`insert into webhooks (organization_id, url, secret) values (${t.org}, ${rx.url}, ${sealWebhookSecret(SECRET, t.org, rx.secret)})`;
    }
    const [owner] = await sql<{ id: string }[]>`select u.id from users u where u.organization_id = ${tenants[0]!.org}`;
    await scopedKey(tenants[0]!, owner!.id, { [tenants[0]!.collection]: 'read' });
    await scopedKey(tenants[0]!, owner!.id, { [tenants[0]!.collection]: 'write' });
    await migrate(sql);
    await migrateWorkerSchema(db.url, createLogger('silent'));
    ollama = await startFakeOllama({ dimension: DIM });
    d = await startTestDaemon({
      db,
      env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, OLLAMA_MODEL: MODEL, DATA_DIR: dataDir, ALLOW_PRIVATE_URLS: 'true' },
    });
  });
  after(async () => {
    await d?.close();
    await ollama?.close();
    for (const rx of receivers) await rx.close();
    await sql?.end();
    await db?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('every document reads as it did, to its organization only; deleted ones stay gone', async () => {
    const req = http(d.url);
    for (const x of docs) {
      const own = keys.find((k) => k.full && k.org === x.org)!.key;
      const stranger = keys.find((k) => k.full && k.org !== x.org)!.key;
      const r = await req('GET', `/api/v1/documents/${x.id}/`, { key: own });
      if (x.deleted) {
        assert.equal(r.status, 404, x.title);
        continue;
      }
      assert.equal(r.status, 200, `${x.title}: ${r.text}`);
      assert.deepEqual(
        { title: r.body.title, status: r.body.status, tags: r.body.tags, metadata: r.body.metadata, text: r.body.content_text },
        { title: x.title, status: x.status, tags: x.tags, metadata: x.metadata, text: x.text },
      );
      assert.equal((await req('GET', `/api/v1/documents/${x.id}/`, { key: stranger })).status, 404);
      if (x.file) {
        const f = await req('GET', `/api/v1/documents/${x.id}/download/`, { key: own, redirect: 'follow' });
        assert.equal(f.text, x.file.toString());
      }
    }
    const s = await req('POST', '/api/v1/search/', { key: keys[0]!.key, json: { query: 'lock keeper', mode: 'text' } });
    assert.deepEqual(
      s.body.results.map((r: { document_id: string }) => r.document_id),
      [docs.find((x) => x.title === 'indexed text 1')!.id],
    );
  });

  it('every key authenticates with the scope it had', async () => {
    const req = http(d.url);
    for (const k of keys) {
      const me = await req('GET', '/api/v1/keys/current/', { key: k.key });
      assert.equal(me.status, 200, me.text);
      assert.equal(me.body.is_full_access, k.full);
      const visible = (await req('GET', '/api/v1/collections/', { key: k.key })).body.map((c: { uuid: string }) => c.uuid);
      assert.deepEqual(visible, k.full ? [tenants.find((t) => t.org === k.org)!.collection] : Object.keys(k.grants));
      for (const [collection, permission] of Object.entries(k.grants)) {
        const up = await req('POST', `/api/v1/collections/${collection}/documents/`, {
          key: k.key,
          json: { source_type: 'text', title: 'after the upgrade', content: 'Written after the upgrade.' },
        });
        assert.equal(up.status, permission === 'write' ? 201 : 403, up.text);
      }
    }
  });

  it('every webhook delivers, signed with the secret it had', async () => {
    const req = http(d.url);
    for (const [i, t] of tenants.entries()) {
      const w = await req('GET', '/api/v1/webhooks/', { key: t.key });
      assert.equal(w.body.url, receivers[i]!.url);
      const sent = await req('POST', '/api/v1/webhooks/test/', { key: t.key });
      assert.equal(sent.status, 200, sent.text);
      const got = receivers[i]!.requests.at(-1)!;
      assert.deepEqual(got.verdict.ok, true, JSON.stringify(got.verdict));
      assert.equal(got.body.event, 'webhook.test');
    }
  });
});
