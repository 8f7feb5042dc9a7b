// The CLI on a real pseudo-terminal (util-linux `script`): prompts for missing arguments, colour,
// the live ink progress bar of a bulk upload and the indexing counts, highlighted search matches.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cliEntry, cliEnv, type CliEnv } from '../cli/testing/run-cli.js';
import { SAMPLES_DIR } from './fixtures/samples.js';
import { createTenant, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const ESC = '\x1b';

/** Runs the CLI inside `script`, typing each answer once its prompt has appeared. */
async function runInPty(
  args: string[],
  env: Record<string, string>,
  answers: { when: RegExp; send: string }[] = [],
): Promise<{ code: number | null; output: string }> {
  // `script` cannot copy a window size from a pipe: give the terminal one, as a real one has.
  const cmd = `stty cols 120 rows 40; exec ${[process.execPath, await cliEntry(), ...args].map(quote).join(' ')}`;
  const child = spawn('script', ['-q', '-e', '-c', cmd, '/dev/null'], { env, cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  let seenUpTo = 0;
  const pending = [...answers];
  child.stdout.setEncoding('utf8').on('data', (s: string) => {
    output += s;
    const next = pending[0];
    if (next?.when.test(output.slice(seenUpTo))) {
      pending.shift();
      seenUpTo = output.length;
      child.stdin.write(next.send);
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const code = await new Promise<number | null>((r) => child.on('close', r));
  clearTimeout(timer);
  return { code, output };
}

const plain = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');

describe('docsift CLI on a terminal', () => {
  let d: TestDaemon;
  let t: Tenant;
  let e: CliEnv;
  let env: Record<string, string>;

  before(async () => {
    d = await startTestDaemon({ label: 'cli_tty', worker: true });
    t = await createTenant(d, 'cli-tty');
    e = await cliEnv({ DOCSIFT_URL: d.url, DOCSIFT_API_KEY: t.key, TERM: 'xterm-256color', COLUMNS: '120', LINES: '40' });
    env = { ...e.env };
    delete env.NO_COLOR;
  });
  after(() => d?.close());

  it('login asks for the URL and, hidden, the key', async () => {
    const bare = { ...env };
    delete bare.DOCSIFT_URL;
    delete bare.DOCSIFT_API_KEY;
    const r = await runInPty(['login'], bare, [
      { when: /Server URL/, send: `${d.url}\r` },
      { when: /API key/, send: `${t.key}\r` },
    ]);
    assert.equal(r.code, 0, r.output);
    const out = plain(r.output);
    assert.match(
      out,
      new RegExp(`✓ Logged in to ${d.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} as ${t.email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    );
    assert.ok(!out.includes(t.key), 'the key is never echoed');
    assert.match(out, /API key \(svc_…\) •{44}/);
  });

  it('prompts for a missing collection name and prints in colour', async () => {
    const r = await runInPty(['collections', 'create'], env, [{ when: /Collection name/, send: 'Terminal Papers\r' }]);
    assert.equal(r.code, 0, r.output);
    assert.match(plain(r.output), /✓ Created collection Terminal Papers \(slug terminal-papers\)\./);
    assert.ok(r.output.includes(`${ESC}[1mTerminal Papers${ESC}[22m`), 'bold name');
    const list = await runInPty(['collections', 'list'], env);
    assert.ok(list.output.includes(`${ESC}[1mNAME`), 'bold table header');
    assert.match(plain(list.output), /Terminal Papers\s+terminal-papers\s+0\s+0\s+private/);
  });

  it('bulk upload: choose the collection, live ink progress of files and bytes, indexing counts, summary', async () => {
    const r = await runInPty(['docs', 'upload', path.relative(root, SAMPLES_DIR), '--wait', '--batch-size', '4'], env, [
      { when: /Collection/, send: '\r' },
    ]);
    const out = plain(r.output);
    assert.equal(r.code, 1, `processing failures give exit 1\n${out}`);
    // ink frames: the bar, file and byte counters, the outcome line.
    assert.match(out, /Uploading [█░]{30} \d+%/);
    assert.match(out, /Uploading █{30} 100%/);
    assert.match(out, /21\/21 files · [\d.]+ KiB \/ [\d.]+ KiB/);
    assert.match(out, /18 uploaded · 3 skipped · 0 failed/);
    assert.match(out, /Indexing {2}[█░]{30} 0 pending · 15 indexed · 3 failed/);
    assert.match(out, /✓ Uploaded 18 of 21 files .* to Terminal Papers \(terminal-papers\)\./);
    assert.match(out, /Skipped 3:[\s\S]*image\.png — Unsupported file type/);
    assert.match(out, /Indexing: 15 indexed, 3 failed, 0 pending\./);
    assert.match(out, /✗ \S*corrupt\.pdf — /);
  });

  it('search highlights the matched words', async () => {
    const r = await runInPty(['search', 'kestrelmarble', '--mode', 'text'], env);
    assert.equal(r.code, 0, r.output);
    assert.ok(r.output.includes(`${ESC}[1m${ESC}[33mkestrelmarble${ESC}[39m${ESC}[22m`), JSON.stringify(r.output.slice(0, 600)));
    assert.match(plain(r.output), /1\. sample\.md {2}Terminal Papers \(terminal-papers\) · score \d\.\d{3}/);
  });
});
