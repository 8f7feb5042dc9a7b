// The READMEs' runnable code blocks, executed in order as a new user would paste them, against a real
// daemon with its worker. A block is runnable when its info string says so: ```sh runnable or
// ```ts runnable. Shell blocks run through bash (-e, pipefail) with `docsift` on PATH the way the
// README says (npm install links it into node_modules/.bin); TS blocks run through tsx. The only
// inputs are the variables the README tells the reader to export: DOCSIFT_URL and DOCSIFT_API_KEY.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cliEntry } from '../cli/testing/run-cli.js';
import { createTenant, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const READMES = ['README.md', 'sdk/README.md', 'cli/README.md'];

export interface RunnableBlock {
  file: string;
  line: number;
  lang: 'sh' | 'ts';
  code: string;
}

/** Fenced blocks whose info string is `sh runnable`, `bash runnable` or `ts runnable`. */
export function runnableBlocks(file: string, text: string): RunnableBlock[] {
  const blocks: RunnableBlock[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(sh|bash|ts|typescript)\s+runnable\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i + 1;
    while (++i < lines.length && !/^```\s*$/.test(lines[i]!));
    const lang = open[1] === 'ts' || open[1] === 'typescript' ? 'ts' : 'sh';
    blocks.push({ file, line: start, lang, code: lines.slice(start, i).join('\n') });
  }
  return blocks;
}

function run(cmd: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('README code blocks marked runnable', () => {
  let d: TestDaemon;
  let t: Tenant;
  let scratch: string;
  let env: Record<string, string>;
  const blocks = READMES.filter((f) => existsSync(path.join(root, f))).flatMap((f) =>
    runnableBlocks(f, readFileSync(path.join(root, f), 'utf8')),
  );

  before(async () => {
    d = await startTestDaemon({ label: 'docs_readme', worker: true });
    t = await createTenant(d, 'readme');
    scratch = await mkdtemp(path.join(os.tmpdir(), 'docsift-readme-'));
    // `docsift` as npm links it (bin/docsift.mjs beside its bundle), built from the current sources:
    // the one in node_modules/.bin runs whatever dist/ the last `npm install` built.
    const bin = path.join(scratch, 'bin');
    await mkdir(bin);
    await writeFile(path.join(bin, 'docsift'), `#!/bin/sh\nexec "${process.execPath}" "${await cliEntry()}" "$@"\n`);
    await chmod(path.join(bin, 'docsift'), 0o755);
    env = {
      PATH: `${bin}${path.delimiter}${path.join(root, 'node_modules/.bin')}${path.delimiter}${process.env.PATH ?? ''}`,
      HOME: scratch,
      TMPDIR: os.tmpdir(),
      DOCSIFT_CONFIG_DIR: path.join(scratch, 'config'),
      NO_COLOR: '1',
      DOCSIFT_URL: d.url,
      DOCSIFT_API_KEY: t.key,
    };
  });
  after(async () => {
    await d?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('finds the runnable blocks (the marker parser sees both languages)', () => {
    const sample = '```sh runnable\necho a\n```\n```sh\nnot me\n```\n```ts runnable\nconst x = 1;\n```\n';
    assert.deepEqual(
      runnableBlocks('x.md', sample).map((b) => [b.lang, b.code, b.line]),
      [
        ['sh', 'echo a', 1],
        ['ts', 'const x = 1;', 7],
      ],
    );
    assert.ok(
      blocks.some((b) => b.file === 'README.md' && b.lang === 'sh'),
      'README.md has a runnable shell block',
    );
    assert.ok(
      blocks.some((b) => b.file === 'README.md' && b.lang === 'ts'),
      'README.md has a runnable TS block',
    );
  });

  it('every runnable block succeeds, in order, without edits', async () => {
    const dir = path.join(root, 'test/artifacts/readme');
    await mkdir(dir, { recursive: true });
    for (const [n, b] of blocks.entries()) {
      const where = `${b.file}:${b.line}`;
      let r: { code: number | null; out: string };
      if (b.lang === 'sh') {
        r = await run('bash', ['-eo', 'pipefail', '-c', b.code], env);
      } else {
        // Inside the repository, so `@docsift/sdk` resolves as it does for a reader of the README.
        const file = path.join(dir, `block-${process.pid}-${n}.mts`);
        await writeFile(file, b.code);
        r = await run(process.execPath, ['--conditions=docsift:source', '--import', 'tsx', file], env);
        await rm(file, { force: true });
      }
      assert.equal(r.code, 0, `${where} (${b.lang}) failed:\n${b.code}\n--- output ---\n${r.out}`);
    }
  });

  it('a fresh install resolves @docsift/sdk/node without the source condition (the quickstart command)', () => {
    // `npm install` builds the SDK (root `prepare`), so `node --import tsx examples/quickstart.ts` finds dist/.
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    assert.ok(pkg.scripts.prepare, 'package.json has a prepare script');
    const r = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', "await import('@docsift/sdk/node'); await import('@docsift/sdk');"],
      {
        cwd: path.join(root, 'examples'),
        encoding: 'utf8',
      },
    );
    assert.equal(r.status, 0, r.stderr);
  });
});
