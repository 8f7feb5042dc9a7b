// The `docsift` binary as a child process against a real daemon: login and profiles, whoami,
// collections, error output and exit codes, MCP config. JSON output is checked field by field.
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliEnv, runCli, type CliEnv } from '../cli/testing/run-cli.js';
import { createTenant, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

describe('docsift CLI: login, whoami, collections, errors', () => {
  let d: TestDaemon;
  let t: Tenant;
  let other: Tenant;
  let e: CliEnv;
  const cli = (args: string[], o: { input?: string; env?: Record<string, string> } = {}) =>
    runCli(args, { env: { ...e.env, ...o.env }, ...(o.input !== undefined ? { input: o.input } : {}) });

  before(async () => {
    d = await startTestDaemon({ label: 'cli_basics' });
    [t, other] = await Promise.all([createTenant(d, 'cli'), createTenant(d, 'cli-other')]);
    e = await cliEnv();
  });
  after(() => d?.close());

  it('without credentials, commands exit 4 with a hint; a bad key is refused at login and nothing is saved', async () => {
    const [none, bad] = await Promise.all([
      cli(['collections', 'list']),
      cli(['login', '--url', d.url, '--api-key-stdin'], { input: 'svc_' + 'x'.repeat(40) }),
    ]);
    assert.equal(none.code, 4, none.stderr);
    assert.match(none.stderr, /Not logged in/);
    assert.match(none.stderr, /hint: Run `docsift login`/);
    assert.equal(bad.code, 4, bad.stderr);
    assert.match(bad.stderr, /refused this key/);
    await assert.rejects(stat(path.join(e.configDir, 'config.json')));
  });

  it('login verifies the key and saves a 0600 profile; whoami reports the key field by field', async () => {
    const login = await cli(['login', '--url', d.url, '--api-key-stdin', '--json'], { input: `${t.key}\n` });
    assert.equal(login.code, 0, login.stderr);
    const l = login.json();
    assert.equal(l.profile, 'default');
    assert.equal(l.url, d.url);
    assert.equal(l.config_path, path.join(e.configDir, 'config.json'));
    assert.equal(l.user.email, t.email);
    assert.equal(l.organization.uuid, t.orgId);

    const file = path.join(e.configDir, 'config.json');
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    const config = JSON.parse(await readFile(file, 'utf8'));
    assert.deepEqual(config, { default_profile: 'default', profiles: { default: { url: d.url, api_key: t.key } } });

    const who = await cli(['whoami', '--json']);
    assert.equal(who.code, 0, who.stderr);
    const w = who.json();
    assert.equal(w.url, d.url);
    assert.equal(w.profile, 'default');
    assert.equal(w.credentials_source, 'profile');
    assert.equal(w.prefix, t.key.slice(0, w.prefix.length));
    assert.ok(w.prefix.startsWith('svc_'), "w.prefix.startsWith('svc_')");
    assert.equal(w.is_full_access, true);
    assert.equal(w.rate_tier, 'free');
    assert.equal(w.expires_at, null);
    assert.equal(w.organization.uuid, t.orgId);
    assert.equal(w.user.email, t.email);
    assert.equal(w.is_active, true);

    const human = await cli(['whoami']);
    assert.equal(human.code, 0, human.stderr);
    for (const label of ['Server', 'Key', 'Type', 'Tier', 'Expires', 'Organization', 'User'])
      assert.match(human.stdout, new RegExp(`^${label}\\s`, 'm'));
    assert.match(human.stdout, /full access/);
    assert.match(human.stdout, /never/);
  });

  it('DOCSIFT_API_KEY overrides the default profile; an explicit --profile wins over it; unknown profiles exit 4', async () => {
    const [envWho, profileWho, missing] = await Promise.all([
      cli(['whoami', '--json'], { env: { DOCSIFT_API_KEY: other.key, DOCSIFT_URL: d.url } }),
      cli(['whoami', '--json', '--profile', 'default'], { env: { DOCSIFT_API_KEY: other.key } }),
      cli(['whoami', '--profile', 'nope']),
    ]);
    assert.equal(envWho.json().user.email, other.email);
    assert.equal(envWho.json().credentials_source, 'env');
    assert.equal(profileWho.json().user.email, t.email);
    assert.equal(missing.code, 4);
    assert.match(missing.stderr, /No profile named "nope"/);
  });

  it('collections: create, list, show, update, subscribe, unsubscribe, delete with --json', async () => {
    const created = await cli(['collections', 'create', 'CLI Papers', '--description', 'from the CLI', '--json']);
    assert.equal(created.code, 0, created.stderr);
    const c = created.json();
    assert.equal(c.name, 'CLI Papers');
    assert.equal(c.slug, 'cli-papers');
    assert.equal(c.description, 'from the CLI');
    assert.equal(c.is_public, false);
    assert.equal(c.document_count, 0);
    assert.equal(c.total_chunks, 0);
    assert.equal(c.is_subscribed, false);
    assert.match(c.uuid, /^[0-9a-f-]{36}$/);

    const [list, bySlug, byName] = await Promise.all([
      cli(['collections', 'list', '--json']),
      cli(['collections', 'show', 'cli-papers', '--json']),
      cli(['collections', 'show', 'CLI Papers', '--json']),
    ]);
    assert.deepEqual(
      list.json().map((x: { slug: string }) => x.slug),
      ['cli-papers'],
    );
    assert.deepEqual(bySlug.json(), c);
    assert.equal(byName.json().uuid, c.uuid);

    const updated = await cli(['collections', 'update', c.uuid, '--name', 'CLI Papers v2', '--public', '--json']);
    assert.equal(updated.code, 0, updated.stderr);
    assert.equal(updated.json().name, 'CLI Papers v2');
    assert.equal(updated.json().slug, 'cli-papers');
    assert.equal(updated.json().is_public, true);

    // Another user subscribes to the now public collection.
    const as = { env: { DOCSIFT_API_KEY: other.key } };
    const sub = await cli(['collections', 'subscribe', 'cli-papers', '--json'], as);
    assert.deepEqual(sub.json(), { status: 'subscribed', collection: 'cli-papers' });
    // A subscriber is not the owner: 403 with the API's code and a hint, exit 1.
    const [seen, notOwner] = await Promise.all([
      cli(['collections', 'list', '--json'], as),
      cli(['collections', 'delete', c.uuid, '--yes', '--json'], as),
    ]);
    assert.equal(seen.json()[0].is_subscribed, true);
    assert.equal(notOwner.code, 1);
    const err = JSON.parse(notOwner.stderr).error;
    assert.equal(err.code, 'NOT_COLLECTION_OWNER');
    assert.equal(err.status, 403);
    assert.match(err.hint, /Only the owner/);
    const [unsub, table] = await Promise.all([
      cli(['collections', 'unsubscribe', 'cli-papers', '--json'], as),
      cli(['collections', 'list']),
    ]);
    assert.deepEqual(unsub.json(), { status: 'unsubscribed', collection: 'cli-papers' });

    assert.match(table.stdout, /^NAME\s+SLUG\s+DOCS\s+CHUNKS\s+ACCESS\s+UUID$/m);
    assert.match(table.stdout, /CLI Papers v2\s+cli-papers\s+0\s+0\s+public/);

    const del = await cli(['collections', 'delete', 'cli-papers', '--yes', '--json']);
    assert.deepEqual(del.json(), { uuid: c.uuid, slug: 'cli-papers', deleted: true });
  });

  it('usage errors exit 2: unknown commands, missing arguments, nothing to change, confirmation without a TTY', async () => {
    const results = await Promise.all([
      cli(['frobnicate']),
      cli(['docs', 'upload']),
      cli(['collections', 'update', 'x']),
      cli(['collections', 'create']),
      cli(['search', 'x', '--limit', '99']),
    ]);
    for (const r of results) assert.equal(r.code, 2, `${r.stdout}\n${r.stderr}`);
    assert.match(results[1]!.stderr, /missing required argument 'paths'/);
    assert.match(results[2]!.stderr, /Nothing to change/);
    assert.match(results[3]!.stderr, /Missing collection name/);
    assert.match(results[4]!.stderr, /--limit must be a whole number between 1 and 50/);
    const mk = await cli(['collections', 'create', 'Doomed', '--json']);
    const noYes = await cli(['collections', 'delete', mk.json().uuid]);
    assert.equal(noYes.code, 2);
    assert.match(noYes.stderr, /Missing confirmation[\s\S]*--yes/);
  });

  it("API errors print the API's message and code with a hint; --json puts a JSON error on stderr", async () => {
    const [human, json] = await Promise.all([
      cli(['docs', 'show', '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f']),
      cli(['docs', 'show', '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f', '--json']),
    ]);
    assert.equal(human.code, 1);
    assert.equal(human.stdout, '');
    assert.match(human.stderr, /^error: .+ \(DOCUMENT_NOT_FOUND\)$/m);
    assert.match(human.stderr, /^hint: See `docsift docs list`/m);
    assert.match(human.stderr, /^request id: \S+$/m);
    assert.equal(json.code, 1);
    const err = JSON.parse(json.stderr).error;
    assert.equal(err.code, 'DOCUMENT_NOT_FOUND');
    assert.equal(err.status, 404);
    assert.equal(typeof err.message, 'string');
    assert.equal(typeof err.request_id, 'string');
  });

  it('mcp config prints ready-to-paste client configuration for this server and key', async () => {
    const [generic, desktop] = await Promise.all([
      cli(['mcp', 'config', '--json']),
      cli(['mcp', 'config', '--client', 'claude-desktop', '--json']),
    ]);
    assert.deepEqual(generic.json(), {
      mcpServers: { docsift: { type: 'http', url: `${d.url}/mcp`, headers: { Authorization: `Bearer ${t.key}` } } },
    });
    const server = desktop.json().mcpServers.docsift;
    assert.equal(server.command, 'npx');
    assert.deepEqual(server.args.slice(0, 3), ['-y', 'mcp-remote', `${d.url}/mcp`]);
    assert.equal(server.env.DOCSIFT_AUTH, `Bearer ${t.key}`);
  });
});
