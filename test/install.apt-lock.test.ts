// The first start as root installs PostgreSQL and pgvector with apt. When another process holds
// apt's lock (an unattended upgrade on a fresh machine), apt-get waits for it a bounded time
// (-o DPkg::Lock::Timeout=, DOCSIFT_APT_LOCK_TIMEOUT, 300 s), and when it is still held the start
// fails saying that starting again will work. apt-get here is a stand-in on PATH that records its
// arguments: the real one would need the lock of this shared machine.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runInstallScript } from '../daemon/src/local-pg/binaries.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('installing with apt while another process holds its lock', () => {
  let tmp: string;
  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'docsift-apt-'));
  });
  after(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  /** A fake apt-get that records its arguments, prints `stderr` and exits with `code`. */
  async function fakeAptGet(name: string, code: number, stderr: string): Promise<{ bin: string; args: () => Promise<string> }> {
    const bin = path.join(tmp, name);
    const { mkdir } = await import('node:fs/promises');
    await mkdir(bin);
    const log = path.join(bin, 'args.log');
    await writeFile(path.join(bin, 'apt-get'), `#!/bin/sh\necho "$*" >> ${log}\necho '${stderr}' >&2\nexit ${code}\n`);
    await chmod(path.join(bin, 'apt-get'), 0o755);
    return { bin, args: () => readFile(log, 'utf8') };
  }

  const aptGet = (bin: string, env: Record<string, string> = {}) =>
    spawnSync('bash', ['-c', `. ${path.join(root, 'scripts/apt.sh')}; apt_get install -y -q pkg; echo after`], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, ...env },
    });

  it('waits for the lock a bounded time, then exits 75 saying to run again', async () => {
    const f = await fakeAptGet(
      'locked',
      100,
      'E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (unattended-upgr)',
    );
    const r = aptGet(f.bin, { DOCSIFT_APT_LOCK_TIMEOUT: '7' });
    assert.equal(r.status, 75, r.stderr);
    assert.match(await f.args(), /-o DPkg::Lock::Timeout=7 install -y -q pkg/);
    assert.match(r.stderr, /held apt's lock for 7 s; nothing was installed\. Run the same command again/);
    assert.doesNotMatch(r.stdout, /after/, 'the installer stops there');
  });

  it('waits 300 s by default, and passes apt-get on when it succeeds', async () => {
    const f = await fakeAptGet('ok', 0, '');
    const r = aptGet(f.bin);
    assert.equal(r.status, 0, r.stderr);
    assert.match(await f.args(), /-o DPkg::Lock::Timeout=300 install/);
    assert.match(r.stdout, /after/);
  });

  it('leaves any other apt failure as it was', async () => {
    const f = await fakeAptGet('other', 100, 'E: Unable to locate package pkg');
    const r = spawnSync('bash', ['-c', `set -e; . ${path.join(root, 'scripts/apt.sh')}; apt_get install -y pkg`], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${f.bin}:${process.env.PATH}` },
    });
    assert.equal(r.status, 100);
    assert.doesNotMatch(r.stderr, /lock/);
  });

  it('a start that met the lock says starting again will work', async () => {
    const script = path.join(tmp, 'install.sh');
    await writeFile(script, 'echo "==> refreshing apt package lists"\necho "==> another process held apt\'s lock" >&2\nexit 75\n');
    const logs: string[] = [];
    await assert.rejects(
      runInstallScript(undefined, (m) => logs.push(m), script),
      (err: Error) => {
        assert.match(err.message, /Start docsift again once that process has finished/);
        assert.match(err.message, /DOCSIFT_APT_LOCK_TIMEOUT/);
        return true;
      },
    );
    assert.deepEqual(logs, ['refreshing apt package lists', "another process held apt's lock"]);
  });

  it('every installer goes through apt_get for what takes the lock', async () => {
    for (const f of (await readdir(path.join(root, 'scripts'))).filter((n) => n.endsWith('.sh') && n !== 'apt.sh')) {
      const text = await readFile(path.join(root, 'scripts', f), 'utf8');
      assert.doesNotMatch(text, /^\s*[^#\n]*\bapt-get (install|update|upgrade|remove)\b/m, `${f} calls apt-get directly`);
    }
  });
});
