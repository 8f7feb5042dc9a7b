// Webhook signing secrets at rest: stored only as AES-256-GCM ciphertext under a key derived from
// SIGNING_SECRET, including secrets written in plaintext before migration 012 (encrypted by the
// daemon at start). Receivers keep verifying with the secret they were given.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { createSql, type Sql } from '../daemon/src/db/client.js';
import { listMigrations, migrate } from '../daemon/src/db/migrate.js';
import { createUserWithKey } from '../daemon/src/accounts/create.js';
import { migrateWorkerSchema } from '../daemon/src/worker/runner.js';
import { createLogger } from '../daemon/src/logger.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

const ENV = { ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT_MS: '2000' };

/** Every text column of the organization's webhook row, to look for the plaintext anywhere in it. */
async function storedRow(sql: Sql, orgId: string): Promise<string> {
  const rows = await sql<{ row: string }[]>`select row_to_json(w)::text as row from webhooks w where organization_id = ${orgId}`;
  assert.equal(rows.length, 1);
  return rows[0]!.row;
}
const storedSecret = async (sql: Sql, orgId: string) =>
  (await sql<{ secret: string }[]>`select secret from webhooks where organization_id = ${orgId}`)[0]!.secret;

describe('webhook secrets at rest', () => {
  let d: TestDaemon;
  let rx: WebhookReceiver;
  let a: Tenant;
  let req: ReturnType<typeof http>;

  before(async () => {
    [d, rx] = await Promise.all([startTestDaemon({ label: 'wh_secret', env: ENV }), startWebhookReceiver()]);
    req = http(d.url);
    a = await createTenant(d, 'wh-secret');
  });
  after(async () => {
    await Promise.all([d?.close(), rx?.close()]);
  });

  async function testDelivery(daemon: TestDaemon, key: string) {
    rx.reset();
    const r = await http(daemon.url)('POST', '/api/v1/webhooks/test/', { key });
    return { r, got: rx.requests[0] };
  }

  it('a created secret is stored encrypted, never as its plaintext, and deliveries verify with it', async () => {
    const created = await req('POST', '/api/v1/webhooks/', { key: a.key, json: { url: rx.url } });
    assert.equal(created.status, 201, created.text);
    const secret: string = created.body.secret;
    const row = await storedRow(d.deps.sql, a.orgId);
    assert.ok(!row.includes(secret), 'the plaintext secret is not in the row');
    assert.ok(!row.includes(secret.slice('whsec_'.length)), 'nor its random part');
    assert.match(await storedSecret(d.deps.sql, a.orgId), /^enc:v1:[A-Za-z0-9_-]+$/);
    rx.secret = secret;
    const { r, got } = await testDelivery(d, a.key);
    assert.equal(r.status, 200, r.text);
    assert.equal(got?.verdict.ok, true, JSON.stringify(got?.verdict));
  });

  it('a rotated secret is stored encrypted too, and signs from then on', async () => {
    const before = await storedSecret(d.deps.sql, a.orgId);
    const rot = await req('POST', '/api/v1/webhooks/rotate-secret/', { key: a.key });
    assert.equal(rot.status, 200, rot.text);
    const row = await storedRow(d.deps.sql, a.orgId);
    assert.ok(!row.includes(rot.body.secret));
    assert.notEqual(await storedSecret(d.deps.sql, a.orgId), before);
    rx.secret = rot.body.secret;
    const { got } = await testDelivery(d, a.key);
    assert.equal(got?.verdict.ok, true, JSON.stringify(got?.verdict));
  });

  it('the database refuses a plaintext secret written behind the daemon’s back', async () => {
    await assert.rejects(d.deps.sql`update webhooks set secret = 'whsec_plaintext' where organization_id = ${a.orgId}`, /check constraint/);
  });

  it('ciphertext is bound to its organization: pasted into another organization’s row it does not sign', async () => {
    const b = await createTenant(d, 'wh-secret-b');
    assert.equal((await req('POST', '/api/v1/webhooks/', { key: b.key, json: { url: rx.url } })).status, 201);
    await d.deps.sql`update webhooks set secret = ${await storedSecret(d.deps.sql, a.orgId)} where organization_id = ${b.orgId}`;
    const { r, got } = await testDelivery(d, b.key);
    assert.equal(r.status, 500, r.text);
    assert.equal(r.body.code, 'WEBHOOK_TEST_FAILED');
    assert.match(r.body.error, /cannot be decrypted/);
    assert.equal(got, undefined, 'nothing was sent');
  });

  it('under another SIGNING_SECRET the daemon starts, deliveries fail clearly, and rotate-secret recovers', async () => {
    const other = await startTestDaemon({
      label: 'wh_secret_other',
      db: d.db,
      env: { ...ENV, SIGNING_SECRET: 'another-signing-secret-0123456789abcdef0123456789' },
    });
    try {
      const first = await testDelivery(other, a.key);
      assert.equal(first.r.status, 500, first.r.text);
      assert.match(first.r.body.error, /cannot be decrypted.*rotate/i);
      assert.equal(first.got, undefined);
      const rot = await http(other.url)('POST', '/api/v1/webhooks/rotate-secret/', { key: a.key });
      rx.secret = rot.body.secret;
      const again = await testDelivery(other, a.key);
      assert.equal(again.got?.verdict.ok, true, JSON.stringify(again.got?.verdict));
    } finally {
      await other.close();
    }
  });
});

describe('webhook secrets stored in plaintext before migration 012', () => {
  let db: TestDatabase;
  let sql: Sql;
  let rx: WebhookReceiver;
  const plaintext = 'whsec_legacyLegacyLegacyLegacyLegacyLegacy0123';
  let orgId = '';

  before(async () => {
    [db, rx] = await Promise.all([createTestDatabase('wh_legacy', { empty: true }), startWebhookReceiver(plaintext)]);
    sql = createSql(db.url, { max: 2 });
    // The schema as it was before 012, with a webhook written by that version.
    await sql`create table schema_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())`;
    for (const m of (await listMigrations()).filter((x) => x.version < 12)) {
      await sql.unsafe(await readFile(m.file, 'utf8'));
      await sql`insert into schema_migrations (version, name) values (${m.version}, ${m.name})`;
    }
    orgId = (await sql<{ id: string }[]>`insert into organizations (name) values ('legacy') returning id`)[0]!.id;
    await sql`insert into webhooks (organization_id, url, secret) values (${orgId}, ${rx.url}, ${plaintext})`;
    await migrate(sql);
    await migrateWorkerSchema(db.url, createLogger('silent'));
  });
  after(async () => {
    await sql?.end();
    await rx?.close();
    await db?.drop();
  });

  it('migration 012 alone leaves the row readable; the daemon encrypts it at start, once, and signatures still verify', async () => {
    assert.equal(await storedSecret(sql, orgId), plaintext, 'SQL cannot know SIGNING_SECRET: the migration does not touch it');
    const first = await startTestDaemon({ label: 'wh_legacy', db, env: ENV });
    let encrypted = '';
    try {
      encrypted = await storedSecret(sql, orgId);
      assert.match(encrypted, /^enc:v1:/);
      assert.ok(!(await storedRow(sql, orgId)).includes(plaintext.slice('whsec_'.length)), 'no plaintext left after start');
      const user = await createUserWithKey(first.deps.sql, {
        email: `legacy-${Date.now()}@example.test`,
        organization: orgId,
        now: new Date(),
      });
      const r = await http(first.url)('POST', '/api/v1/webhooks/test/', { key: user.key });
      assert.equal(r.status, 200, r.text);
      assert.equal(rx.requests.at(-1)?.verdict.ok, true, 'the receiver still verifies with the secret it always had');
    } finally {
      await first.close();
    }
    // Idempotent: a second start (or a second process) leaves encrypted rows alone.
    const second = await startTestDaemon({ label: 'wh_legacy', db, env: ENV });
    await second.close();
    assert.equal(await storedSecret(sql, orgId), encrypted);
  });
});
