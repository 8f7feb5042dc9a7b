// `docsift keys …`, `usage` and `billing` as child processes against a real daemon: secrets shown
// once, rotation (including the profile's own key), grants, expiry with the expired-key hint, the
// rate-limit hint with its wait, and the usage report.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliEnv, runCli, type CliEnv } from '../cli/testing/run-cli.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

describe('docsift CLI: keys, usage, billing', () => {
  let d: TestDaemon;
  let t: Tenant;
  let e: CliEnv;
  let offsetMs = 0;
  const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { ...e.env, ...env } });

  before(async () => {
    d = await startTestDaemon({ label: 'cli_keys', clock: { now: () => new Date(Date.now() + offsetMs) } });
    t = await createTenant(d, 'cli-keys');
    e = await cliEnv();
    const login = await runCli(['login', '--url', d.url, '--api-key-stdin'], { env: e.env, input: t.key });
    assert.equal(login.code, 0, login.stderr);
    const c = await cli(['collections', 'create', 'Keyed', '--json']);
    assert.equal(c.code, 0, c.stderr);
  });
  after(() => d?.close());

  it('create prints the secret once with a warning; --json carries it field by field with the grants', async () => {
    const human = await cli(['keys', 'create', 'reader', '--collection', 'keyed']);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^✓ Created key reader \(svc_\S+…, scoped, expires never\)\.$/m);
    assert.match(human.stdout, /^ {2}svc_[A-Za-z0-9]{40}$/m);
    assert.match(human.stderr, /^warning: Copy this key now: it is shown only once/m);

    const r = await cli(['keys', 'create', 'ci-uploader', '--write', 'keyed', '--expires', '30d', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const k = r.json();
    assert.equal(k.name, 'ci-uploader');
    assert.match(k.key, /^svc_[A-Za-z0-9]{40}$/);
    assert.equal(k.prefix, k.key.slice(0, k.prefix.length));
    assert.equal(k.is_full_access, false);
    assert.equal(k.is_active, true);
    assert.equal(k.rate_tier, 'free');
    assert.equal(k.expires_in, '30d');
    assert.ok(Math.abs(new Date(k.expires_at).getTime() - (Date.now() + 30 * 86_400_000)) < 120_000, k.expires_at);
    assert.deepEqual(k.grants, [{ collection: 'keyed', permission: 'write' }]);

    const list = await cli(['keys', 'list', '--json']);
    const names = list.json().map((x: { name: string }) => x.name);
    assert.ok(names.includes('ci-uploader') && names.includes('reader'), names.join());
    const table = await cli(['keys', 'list']);
    assert.match(table.stdout, /^\s+NAME\s+PREFIX\s+TYPE\s+TIER\s+EXPIRES\s+LAST USED\s+STATE\s+UUID$/m);
    assert.match(table.stdout, /^\*\s+/m);
  });

  it('create with neither grants nor --full-access is a usage error without a TTY, and makes no key', async () => {
    const r = await cli(['keys', 'create', 'no-scope']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /Missing key scope/);
    assert.match(r.stderr, /--collection <slug>.*--full-access/);
    const names = (await cli(['keys', 'list', '--json'])).json().map((x: { name: string }) => x.name);
    assert.ok(!names.includes('no-scope'), names.join());

    const listed = await cli(['keys', 'create', 'listed', '--collections', 'keyed', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(listed.json().grants, [{ collection: 'keyed', permission: 'read' }]);
  });

  it('grants, grant, ungrant and rotate by prefix; the rotated secret replaces the old one', async () => {
    const keys = (await cli(['keys', 'list', '--json'])).json() as { uuid: string; name: string; prefix: string }[];
    const reader = keys.find((k) => k.name === 'reader')!;
    assert.deepEqual((await cli(['keys', 'grants', reader.uuid, '--json'])).json(), [{ collection: 'keyed', permission: 'read' }]);
    const g = await cli(['keys', 'grant', reader.prefix, 'keyed', '--permission', 'write', '--json']);
    assert.deepEqual(g.json(), { key: reader.uuid, collection: 'keyed', permission: 'write' });
    const u = await cli(['keys', 'ungrant', 'reader', 'keyed', '--json']);
    assert.deepEqual(u.json(), { key: reader.uuid, collection: 'keyed', removed: true });

    const rot = await cli(['keys', 'rotate', reader.prefix, '--json']);
    assert.equal(rot.code, 0, rot.stderr);
    const r = rot.json();
    assert.equal(r.replaced_uuid, reader.uuid);
    assert.notEqual(r.uuid, reader.uuid);
    assert.equal(r.name, 'reader');
    assert.equal(r.profile_updated, false);
    assert.match(r.key, /^svc_[A-Za-z0-9]{40}$/);
    const whoNew = await cli(['whoami', '--json'], { DOCSIFT_API_KEY: r.key });
    assert.equal(whoNew.json().uuid, r.uuid);
  });

  it("rotating the profile's own key updates the profile, and the old secret gets exit 4 with a hint", async () => {
    const before = (await cli(['whoami', '--json'])).json();
    const rot = await cli(['keys', 'rotate', before.uuid, '--json']);
    assert.equal(rot.code, 0, rot.stderr);
    assert.equal(rot.json().profile_updated, true);
    const config = JSON.parse(await readFile(path.join(e.configDir, 'config.json'), 'utf8'));
    assert.equal(config.profiles.default.api_key, rot.json().key);
    assert.equal((await cli(['whoami', '--json'])).json().uuid, rot.json().uuid);

    const old = await cli(['collections', 'list'], { DOCSIFT_API_KEY: t.key });
    assert.equal(old.code, 4);
    assert.match(old.stderr, /\(INVALID_API_KEY\)/);
    assert.match(old.stderr, /^hint: The key is unknown, revoked or was rotated/m);
  });

  it('an expired key exits 4 with the renewal hint; `keys expire` renews it; revoke needs --yes without a TTY', async () => {
    const k = (await cli(['keys', 'create', 'short-lived', '--full-access', '--expires', '30d', '--json'])).json();
    offsetMs = 31 * 86_400_000;
    try {
      const expired = await cli(['whoami'], { DOCSIFT_API_KEY: k.key });
      assert.equal(expired.code, 4);
      assert.match(expired.stderr, /\(API_KEY_EXPIRED\)/);
      assert.match(expired.stderr, /^hint: This key has expired\. Renew it .*docsift keys expire <key> --in 90d/m);
      const renewed = await cli(['keys', 'expire', 'short-lived', '--in', '90d', '--json']);
      assert.equal(renewed.code, 0, renewed.stderr);
      assert.equal(renewed.json().expires_in, '90d');
      assert.equal((await cli(['whoami', '--json'], { DOCSIFT_API_KEY: k.key })).code, 0);
    } finally {
      offsetMs = 0;
    }
    const noYes = await cli(['keys', 'revoke', 'short-lived']);
    assert.equal(noYes.code, 2);
    const revoked = await cli(['keys', 'revoke', 'short-lived', '--yes', '--json']);
    assert.equal(revoked.json().is_active, false);
    assert.equal((await cli(['whoami'], { DOCSIFT_API_KEY: k.key })).code, 4);
  });

  it('usage: summary, daily chart, per-key breakdown and recent log; --json field by field; billing plan', async () => {
    const notFound = await cli(['docs', 'show', '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f']);
    assert.equal(notFound.code, 1);
    // The request log is written in batches about once a second.
    let report: any;
    for (let i = 0; i < 20; i++) {
      const r = await cli(['usage', '--days', '7', '--json']);
      assert.equal(r.code, 0, r.stderr);
      report = r.json();
      if (report.total_requests >= 20 && report.error_count >= 1) break;
      await new Promise((res) => setTimeout(res, 300));
    }
    assert.equal(report.days, 7);
    assert.equal(report.daily.length, 7);
    for (const f of ['from', 'to', 'total_requests', 'error_count', 'avg_response_time_ms', 'per_key', 'recent']) assert.ok(f in report, f);
    assert.ok(report.total_requests >= 20, String(report.total_requests));
    assert.ok(report.error_count >= 1, 'the 404 above is an error');
    assert.ok(report.per_key.length >= 2, 'several keys were used');

    const human = await cli(['usage', '--days', '30', '--recent', '5']);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^Usage \d{4}-\d\d-\d\d – \d{4}-\d\d-\d\d \(30 days\)$/m);
    assert.match(human.stdout, /^Requests\s+\d+/m);
    assert.match(human.stdout, /^Daily requests$/m);
    assert.match(human.stdout, /^\d{4}-\d\d-\d\d +\d+ █+/m);
    assert.match(human.stdout, /^Per key$/m);
    assert.match(human.stdout, /^NAME\s+PREFIX\s+REQUESTS\s+ERRORS\s+AVG MS$/m);
    assert.match(human.stdout, /^Recent requests$/m);
    assert.equal([...human.stdout.matchAll(/^\d{4}-\d\d-\d\d \d\d:\d\d\s+svc_/gm)].length, 5);

    const plan = await cli(['billing', 'plan', '--json']);
    assert.equal(plan.code, 0, plan.stderr);
    assert.equal(plan.json().plan, 'free');
    assert.equal(plan.json().included_queries, 1000);
  });

  it('a rate-limited request prints the code and how long to wait', async () => {
    // The daemon's clock is set to start a fresh UTC minute as it starts, so the minute's budget
    // can be spent with most of the minute left, instead of sleeping into the next minute.
    const offset = 60_000 - (Date.now() % 60_000);
    const limited = await startTestDaemon({ label: 'cli_limits', env: { RATE_LIMITS_ENABLED: 'true', CLOCK_OFFSET_MS: String(offset) } });
    try {
      const u = await createTenant(limited, 'limited');
      const req = http(limited.url);
      // Free tier: 10 requests per minute for all keys of a user, in fixed UTC minutes. Spend the
      // minute's budget, making sure enough of the minute is left for the CLI to start (on a very
      // slow start, wait for the next minute).
      for (;;) {
        let r = await req('GET', '/api/v1/collections/', { key: u.key });
        while (r.status !== 429) r = await req('GET', '/api/v1/collections/', { key: u.key });
        const wait = Number(r.headers.get('retry-after'));
        if (wait >= 8) break;
        await new Promise((res) => setTimeout(res, (wait + 1) * 1000));
      }
      const r = await runCli(['collections', 'list'], {
        env: { ...e.env, DOCSIFT_URL: limited.url, DOCSIFT_API_KEY: u.key, DOCSIFT_MAX_RETRIES: '0' },
      });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /\(RATE_LIMIT_EXCEEDED\)/);
      assert.match(r.stderr, /^hint: Wait \d+ s \(Retry-After\) and try again\./m);
      const j = await runCli(['collections', 'list', '--json'], {
        env: { ...e.env, DOCSIFT_URL: limited.url, DOCSIFT_API_KEY: u.key, DOCSIFT_MAX_RETRIES: '0' },
      });
      const err = JSON.parse(j.stderr).error;
      assert.equal(err.status, 429);
      assert.ok(err.retry_after > 0 && err.retry_after <= 60, String(err.retry_after));
    } finally {
      await limited.close();
    }
  });
});
