// `docsift keys create`, `keys list` and `keys rotate` against a real daemon: one date format in
// every human output, and rotate's help says what a rotation does, which the rotation then shows
// (new uuid and secret; same name, grants and tier; the expiry period restarts; the old key stops).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cliEnv, runCli, type CliEnv } from '../cli/testing/run-cli.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const DATE = /\d{4}-\d{2}-\d{2} \d{2}:\d{2}/;

describe('docsift keys: dates and rotation', () => {
  let d: TestDaemon;
  let t: Tenant;
  let other: Tenant;
  let e: CliEnv;
  const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { ...e.env, ...env } });

  before(async () => {
    d = await startTestDaemon({ label: 'cli_keys_rotate' });
    [t, other] = await Promise.all([createTenant(d, 'cli-keys-rotate'), createTenant(d, 'cli-keys-rotate-other')]);
    e = await cliEnv({ DOCSIFT_URL: d.url, DOCSIFT_API_KEY: t.key });
    assert.equal((await cli(['collections', 'create', 'Rotated'])).code, 0);
  });
  after(() => d?.close());

  it('create and list print the expiry in one format', async () => {
    const created = await cli(['keys', 'create', 'dated', '--collection', 'rotated', '--expires', '30d']);
    assert.equal(created.code, 0, created.stderr);
    const shown = /expires ([^)]*)\)/.exec(created.stdout)?.[1];
    assert.match(shown ?? '', new RegExp(`^${DATE.source}$`), created.stdout);
    const list = await cli(['keys', 'list']);
    const row = list.stdout.split('\n').find((l) => /\bdated\b/.test(l));
    assert.ok(row?.includes(shown!), `${shown} not in: ${row}`);
  });

  it('rotate --help states the new uuid, the kept grants and tier, the restarted expiry and the old key', async () => {
    const help = await cli(['keys', 'rotate', '--help']);
    assert.equal(help.code, 0);
    for (const fact of [/new uuid/, /grants/, /tier/, /expiry restarts from now/, /old key stops working immediately/, /revoked/])
      assert.match(help.stdout.replace(/\s+/g, ' '), fact);
  });

  it('a rotation does what the help says', async () => {
    const made = await cli(['keys', 'create', 'rotating', '--write', 'rotated', '--expires', '30d', '--json']);
    const before = made.json();
    const r = await cli(['keys', 'rotate', before.uuid, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const after = r.json();
    assert.notEqual(after.uuid, before.uuid);
    assert.notEqual(after.key, before.key);
    assert.equal(after.name, before.name);
    assert.equal(after.rate_tier, before.rate_tier);
    assert.equal(after.expires_in, '30d');
    assert.ok(new Date(after.expires_at).getTime() >= new Date(before.expires_at).getTime());
    assert.deepEqual(after.grants, before.grants);
    const old = await http(d.url)('GET', '/api/v1/keys/current/', { key: before.key });
    assert.equal(old.status, 401);
    const human = await cli(['keys', 'rotate', after.uuid]);
    assert.match(human.stdout, new RegExp(`expires ${DATE.source}`));
  });

  it("another organization's key cannot rotate this one", async () => {
    const made = (await cli(['keys', 'create', 'mine', '--collection', 'rotated', '--json'])).json();
    const r = await cli(['keys', 'rotate', made.uuid], { DOCSIFT_API_KEY: other.key });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /not found|NOT_FOUND/i);
  });
});
