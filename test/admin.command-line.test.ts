// `docsift-daemon admin` as a process: with --json its stdout is the JSON result and nothing else
// (start-up logs such as applied migrations go to stderr), and `admin <sub> --help` prints that
// subcommand's help without touching the database.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { adminHelp } from '../daemon/src/admin-registry.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function runAdmin(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'daemon/src/main.ts', 'admin', ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), NODE_ENV: 'test', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A loopback port nothing listens on: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('docsift-daemon admin on the command line', () => {
  let db: TestDatabase;
  let dataDir: string;
  before(async () => {
    // Empty: the admin command migrates it first, which logs every applied migration.
    db = await createTestDatabase('admin_cli', { empty: true });
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'docsift-admin-cli-'));
  });
  after(async () => {
    await db?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('--json prints only the JSON result on stdout; logs go to stderr', async () => {
    const r = await runAdmin(['create-user', '--email', 'json@admin.example', '--new-org', 'Json', '--json'], {
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
    });
    assert.equal(r.code, 0, r.stderr);
    const parsed = JSON.parse(r.stdout) as { email: string; key: string };
    assert.equal(parsed.email, 'json@admin.example');
    assert.match(parsed.key, /^svc_/);
    const listed = await runAdmin(['list-users', '--json'], { DATABASE_URL: db.url, DATA_DIR: dataDir });
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      (JSON.parse(listed.stdout) as { email: string }[]).map((u) => u.email),
      ['json@admin.example'],
    );
  });

  it('invite links use the public URL the server prints: IPv6 hosts in brackets, wildcards as loopback', async () => {
    const env = { DATABASE_URL: db.url, DATA_DIR: dataDir };
    const made = await runAdmin(['create-user', '--email', 'invite@admin.example', '--new-org', 'Invite', '--json'], env);
    assert.equal(made.code, 0, made.stderr);
    for (const [settings, base] of [
      [{ HOST: '::1', PORT: '8123' }, 'http://[::1]:8123'],
      [{ HOST: '0.0.0.0', PORT: '8124' }, 'http://127.0.0.1:8124'],
      [{ PUBLIC_URL: 'https://docs.example.com/' }, 'https://docs.example.com'],
    ] as const) {
      const r = await runAdmin(['invite', '--email', 'invite@admin.example', '--json'], { ...env, ...settings });
      assert.equal(r.code, 0, r.stderr);
      const { link } = JSON.parse(r.stdout) as { link: string };
      assert.ok(link.startsWith(`${base}/app/invite/`), `${JSON.stringify(settings)}: ${link}`);
      assert.doesNotThrow(() => new URL(link), link);
    }
  });

  it('admin <sub> --help prints its help without connecting to the database', async () => {
    const env = { DATABASE_URL: `postgres://docsift@127.0.0.1:${await closedPort()}/none`, DATA_DIR: dataDir };
    const r = await runAdmin(['set-tier', '--help'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /set-tier \(--key KEY_UUID\|KEY_PREFIX \| --email E\) --tier free\|basic\|pro/);
    assert.match(r.stdout, /Examples:\n {2}docsift-daemon admin set-tier --key svc_/);
    assert.doesNotMatch(r.stdout, /create-user/, 'only the asked subcommand');
    assert.equal(r.stderr, '');
    const unknown = await runAdmin(['no-such-sub', '--help'], env);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown admin subcommand "no-such-sub"/);
  });

  it('every spelling of a help request is answered without work; anything else is not', () => {
    for (const argv of [
      ['set-tier', '-h'],
      ['help', 'set-tier'],
      ['set-tier', '--key', 'x', '--help'],
    ])
      assert.match(adminHelp(argv)?.out ?? '', /^docsift-daemon admin set-tier /, argv.join(' '));
    for (const argv of [[], ['--help'], ['help']]) {
      const all = adminHelp(argv)?.out ?? '';
      assert.match(all, /create-user[\s\S]*set-tier[\s\S]*invite[\s\S]*Examples/, argv.join(' '));
    }
    assert.equal(adminHelp(['set-tier', '--key', 'svc_x', '--tier', 'pro']), undefined);
  });
});
