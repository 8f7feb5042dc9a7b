// The `docsift` process itself, against a real daemon: a reader that stops early (`| head -1`) ends
// a command quietly with exit 0; the shipped binary runs compiled JavaScript and loads no heavy
// package (tsx, ink, React, inquirer, undici) for commands that do not use it.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cliEnv, runCli, type CliEnv } from '../cli/testing/run-cli.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';

const TRACE = fileURLToPath(new URL('../cli/testing/trace-modules.mjs', import.meta.url));

describe('docsift CLI process: closed stdout, start-up', () => {
  let d: TestDaemon;
  let t: Tenant;
  let other: Tenant;
  let e: CliEnv;
  let tmp: string;

  before(async () => {
    d = await startTestDaemon({ label: 'cli_process', worker: true });
    [t, other] = await Promise.all([createTenant(d, 'cli-process'), createTenant(d, 'cli-process-other')]);
    e = await cliEnv({ DOCSIFT_URL: d.url, DOCSIFT_API_KEY: t.key });
    tmp = await mkdtemp(path.join(os.tmpdir(), 'docsift-cli-process-'));
    const req = http(d.url);
    const col = await makeCollection(req, t.key, 'Handbook');
    const docs = await Promise.all(
      Array.from({ length: 12 }, (_, i) => addText(req, t.key, col.uuid, `Vacation policy ${i}`, `Vacation days and leave, part ${i}.`)),
    );
    await waitSettled(
      req,
      t.key,
      docs.map((x) => x.uuid),
    );
  });
  after(async () => {
    await d?.close();
    await rm(tmp, { recursive: true, force: true });
  });

  for (const args of [
    ['search', 'vacation'],
    ['docs', 'list'],
    ['--json', 'docs', 'list'],
    ['--json', 'search', 'vacation'],
    ['--version'],
    ['--help'],
  ]) {
    it(`\`docsift ${args.join(' ')}\` with stdout closed by its reader exits 0 quietly`, async () => {
      const r = await runCli(args, { env: e.env, closeStdout: true });
      // stderr keeps its usual notes (a search's "5 results · hybrid"), never an error or a stack.
      assert.doesNotMatch(r.stderr, /EPIPE|error|\bat .*:\d+:\d+/i);
      assert.equal(r.code, 0, r.stderr);
    });
  }

  it('a command that fails still reports on stderr and exits 1 when stdout is closed', async () => {
    const r = await runCli(['docs', 'show', '00000000-0000-4000-8000-000000000000'], { env: e.env, closeStdout: true });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /DOCUMENT_NOT_FOUND/);
    assert.doesNotMatch(r.stderr, /EPIPE|at .*\.js:\d+/);
  });

  it("another tenant's documents stay invisible to a closed-stdout search (the search ran, scoped to its key)", async () => {
    const r = await runCli(['--json', 'search', 'vacation'], { env: { ...e.env, DOCSIFT_API_KEY: other.key } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.json().results.length, 0);
  });

  /** ES modules a run resolved, as file URLs. */
  const traced = async (args: string[], name: string) => {
    const file = path.join(tmp, `${name}.txt`);
    const r = await runCli(args, { env: { ...e.env, DOCSIFT_TRACE_MODULES: file }, nodeArgs: ['--import', TRACE] });
    assert.equal(r.code, 0, r.stderr);
    return { r, modules: (await readFile(file, 'utf8')).split('\n').filter(Boolean) };
  };
  const heavy = /\/node_modules\/(tsx|ink|react|@inquirer|undici|esbuild|typescript)\//;

  it("one-request commands never start Node's fetch (its first request compiles undici's parser)", async () => {
    const poison = `data:text/javascript,${encodeURIComponent('globalThis.fetch = () => { throw new Error("global fetch was used"); };')}`;
    for (const args of [['whoami'], ['search', 'vacation', '--limit', '2'], ['docs', 'list', '--json'], ['collections', 'list']]) {
      const r = await runCli(args, { env: e.env, nodeArgs: ['--import', poison] });
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /global fetch was used/);
    }
  });

  it('--version loads neither the command tree nor any package', async () => {
    const { r, modules } = await traced(['--version'], 'version');
    assert.match(r.stdout, /^\d+\.\d+\.\d+\n$/);
    const files = modules.filter((m) => m.startsWith('file:'));
    assert.ok(
      files.some((m) => m.endsWith('/dist/main.js')),
      files.join('\n'),
    );
    assert.deepEqual(
      files.filter((m) => /\/node_modules\/(?!\.cache\/)/.test(m) || /\/run-[^/]*\.js$/.test(m) || m.endsWith('.ts')),
      [],
    );
  });

  it('whoami and search run compiled JavaScript and load none of tsx, ink, React, inquirer or undici', async () => {
    for (const args of [['whoami'], ['search', 'vacation', '--limit', '2'], ['docs', 'list', '--json']]) {
      const { modules } = await traced(args, args[0]!);
      assert.deepEqual(
        modules.filter((m) => heavy.test(m)),
        [],
        args.join(' '),
      );
      assert.deepEqual(
        modules.filter((m) => m.endsWith('.ts') || m.endsWith('.tsx')),
        [],
        args.join(' '),
      );
    }
  });
});
