// The CLI under a 429: while it waits it says so on one line, with the reason and the time left
// (once for every request that hit the same limit, and inside the live progress view on a
// terminal instead of beside it), and when it gives up, an administrator of the server is told the
// exact command that raises the tier. The daemon's clock is placed at a chosen point of its UTC
// minute, so each scenario knows how long the minute's window still has to run.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliEntry, cliEnv, runCli, type CliEnv } from '../cli/testing/run-cli.js';
import type { Clock } from '../daemon/src/types.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const plain = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '\n');

describe('docsift CLI under rate limits', () => {
  let d: TestDaemon;
  let e: CliEnv;
  let dir: string;
  // The daemon's time is real time plus this; it only ever moves forward.
  let offset = 0;
  const clock: Clock = { now: () => new Date(Date.now() + offset) };

  /** Moves the daemon's clock to `secondsLeft` before the end of a later UTC minute. */
  function placeInMinute(secondsLeft: number): void {
    const now = Date.now() + offset;
    const nextMinute = now - (now % 60_000) + 120_000;
    offset += nextMinute - secondsLeft * 1000 - now;
  }

  /** A fresh Free-tier user (own counters) who has spent all but `left` requests of this minute. */
  async function spentTenant(label: string, left: number, admin = false): Promise<Tenant> {
    const t = await createTenant(d, label);
    if (admin) await d.deps.sql`update users set is_admin = true where id = ${t.userId}`;
    const req = http(d.url);
    for (let i = 0; i < 10 - left; i++) assert.equal((await req('GET', '/api/v1/collections/', { key: t.key })).status, 200);
    return t;
  }

  before(async () => {
    d = await startTestDaemon({ label: 'cli_rate', env: { RATE_LIMITS_ENABLED: 'true' }, clock });
    e = await cliEnv({ DOCSIFT_URL: d.url });
    dir = await mkdtemp(path.join(os.tmpdir(), 'docsift-rate-'));
    for (let i = 0; i < 4; i++) await writeFile(path.join(dir, `note-${i}.md`), `# Note ${i}\nrate limited upload ${i}`);
  });
  after(async () => {
    await d?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the 429 names the tier, and tells an administrator so', async () => {
    placeInMinute(50);
    const member = await spentTenant('rl-member', 0);
    const admin = await spentTenant('rl-admin', 0, true);
    const req = http(d.url);
    const a = await req('GET', '/api/v1/collections/', { key: member.key });
    assert.equal(a.status, 429);
    assert.equal(a.headers.get('x-ratelimit-tier'), 'free');
    assert.equal(a.headers.get('x-ratelimit-admin'), null);
    const b = await req('GET', '/api/v1/collections/', { key: admin.key });
    assert.equal(b.status, 429);
    assert.equal(b.headers.get('x-ratelimit-admin'), 'true');
  });

  it('giving up: an administrator of a local server is told the exact set-tier command; others whom to ask', async () => {
    placeInMinute(50);
    const admin = await spentTenant('rl-admin-hint', 0, true);
    const member = await spentTenant('rl-member-hint', 0);
    const env = { ...e.env, DOCSIFT_MAX_RETRIES: '0' };
    const a = await runCli(['collections', 'list'], { env: { ...env, DOCSIFT_API_KEY: admin.key } });
    assert.equal(a.code, 1);
    const prefix = admin.key.slice(0, 12);
    assert.match(a.stderr, new RegExp(`^hint: .*npm run -s daemon -- admin set-tier --key ${prefix} --tier pro`, 'm'));
    assert.doesNotMatch(a.stderr, /ask an administrator/);
    const m = await runCli(['collections', 'list'], { env: { ...env, DOCSIFT_API_KEY: member.key } });
    assert.equal(m.code, 1);
    assert.match(m.stderr, /^hint: .*ask an administrator of this server to raise it/m);
    assert.match(m.stderr, new RegExp(`admin set-tier --key ${member.key.slice(0, 12)} --tier pro`));
  });

  it('waiting out a 429 prints one line with the reason and the time, however many requests hit it', async () => {
    placeInMinute(7);
    // Two requests left: creating the collection and the CLI's lookup pass, the four uploads in flight all get 429.
    const t = await spentTenant('rl-wait', 2);
    await http(d.url)('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Limited' } });
    const r = await runCli(['docs', 'upload', dir, '-c', 'limited', '--batch-size', '1', '--concurrency', '4'], {
      env: { ...e.env, DOCSIFT_API_KEY: t.key },
      timeoutMs: 90_000,
    });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stderr.split('\n').filter((l) => /rate limit/i.test(l));
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, /^rate limited — resuming in \d+ s \(10 requests per minute on the free tier\)$/);
    assert.match(r.stdout, /Uploaded 4 of 4 files/);
  });

  it('on a terminal the wait is one line inside the live progress view, updated in place', async () => {
    placeInMinute(7);
    const t = await spentTenant('rl-tty', 2);
    await http(d.url)('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Limited TTY' } });
    const env = { ...e.env, DOCSIFT_API_KEY: t.key, TERM: 'xterm-256color' };
    const args = ['docs', 'upload', dir, '-c', 'limited-tty', '--batch-size', '1', '--concurrency', '4'];
    const cmd = `stty cols 120 rows 40; exec ${[process.execPath, await cliEntry(), ...args].map(quote).join(' ')}`;
    const child = spawn('script', ['-q', '-e', '-c', cmd, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (output += s));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    const code = await new Promise<number | null>((res) => child.on('close', res));
    clearTimeout(timer);
    assert.equal(code, 0, output);
    const out = plain(output);
    assert.match(out, /rate limited — resuming in \d+ s \(10 requests per minute on the free tier\)/);
    // Nothing is written beside the view: no plain retry notes between its frames.
    assert.doesNotMatch(out, /retrying in/);
    assert.doesNotMatch(out, /Rate limit exceeded/);
    assert.match(out, /Uploaded 4 of 4 files/);
  });
});
