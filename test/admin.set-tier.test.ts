// Self-hosted defaults and `admin set-tier`: the bootstrap key starts on Pro and its organization on
// a plan with no hard stop; set-tier takes a key UUID, the prefix users see, or --email (every key).
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { runAdmin } from '../daemon/src/admin-registry.js';
import { PLANS } from '../daemon/src/billing/plans.js';
import { bootstrap } from '../daemon/src/accounts/create.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

describe('self-hosted defaults and admin set-tier', () => {
  let d: TestDaemon;
  let t: Tenant;
  async function admin(args: string[]) {
    const out = new PassThrough();
    const err = new PassThrough();
    let o = '';
    let e = '';
    out.on('data', (b) => (o += b));
    err.on('data', (b) => (e += b));
    const code = await runAdmin({ sql: d.deps.sql, config: d.config, clock: d.deps.clock, out, err }, args);
    return { code, out: o, err: e };
  }
  const keysOf = async (key: string) => (await http(d.url)('GET', '/api/v1/keys/', { key })).body as any[];

  before(async () => {
    d = await startTestDaemon({ label: 'admin_set_tier' });
    t = await createTenant(d, 'tiered');
  });
  after(() => d?.close());

  it('the bootstrap key is on Pro and its organization on a plan whose searches never hard-stop', async () => {
    const boot = await bootstrap(d.deps.sql, { email: 'owner@boot.example', orgName: 'Boot', now: new Date() });
    assert.ok(boot.created && boot.key);
    const [key] = await keysOf(boot.key!);
    assert.equal(key.rate_tier, 'pro');
    const [org] = await d.deps.sql<{ plan: keyof typeof PLANS }[]>`select plan from organizations where id = ${boot.user!.organization_id}`;
    assert.notEqual(PLANS[org!.plan].overageMillicents, null, `plan ${org!.plan} has a hard stop`);
  });

  it('set-tier by the visible prefix, by UUID, and by --email for every key of the user', async () => {
    const [k] = await keysOf(t.key);
    const byPrefix = await admin(['set-tier', '--key', k.prefix, '--tier', 'basic', '--json']);
    assert.equal(byPrefix.code, 0, byPrefix.err);
    assert.deepEqual(JSON.parse(byPrefix.out), { key: k.uuid, tier: 'basic' });
    assert.equal((await keysOf(t.key))[0].rate_tier, 'basic');

    const withEllipsis = await admin(['set-tier', '--key', `${k.prefix}…`, '--tier', 'free']);
    assert.equal(withEllipsis.code, 0, withEllipsis.err);
    assert.match(withEllipsis.out, new RegExp(`Key ${k.prefix}… \\(${k.uuid}\\) is now on tier free\\.`));

    const second = await d.deps.sql`insert into api_keys (user_id, name, prefix, key_hash, is_full_access)
      select user_id, 'second', 'svc_second1', sha256(random()::text::bytea), true from api_keys where id = ${k.uuid} returning id`;
    const byEmail = await admin(['set-tier', '--email', t.email, '--tier', 'pro', '--json']);
    assert.equal(byEmail.code, 0, byEmail.err);
    const j = JSON.parse(byEmail.out);
    assert.equal(j.tier, 'pro');
    assert.deepEqual([...j.keys].sort(), [k.uuid, second[0]!.id].sort());
    const tiers = await d.deps.sql`select rate_tier from api_keys where id in ${d.deps.sql([k.uuid, second[0]!.id])}`;
    assert.deepEqual(
      tiers.map((r) => r.rate_tier),
      ['pro', 'pro'],
    );
  });

  it('an unknown prefix or email is an error naming what was given; nothing else changes', async () => {
    const none = await admin(['set-tier', '--key', 'svc_nxRYedrD', '--tier', 'free']);
    assert.equal(none.code, 1);
    assert.match(none.err, /No API key svc_nxRYedrD/);
    const nobody = await admin(['set-tier', '--email', 'nobody@x.example', '--tier', 'free']);
    assert.equal(nobody.code, 1);
    assert.match(nobody.err, /No user with email nobody@x\.example/);
    const missing = await admin(['set-tier', '--tier', 'free']);
    assert.equal(missing.code, 2);
    assert.equal((await keysOf(t.key))[0].rate_tier, 'pro');
  });
});
