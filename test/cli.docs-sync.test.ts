// `docsift docs sync <dir>`, the CI command: a folder synced twice is not duplicated. Files are
// matched to documents by their relative path (original_filename) and compared by SHA-256; changed
// files are replaced in place, gone ones deleted with --delete; a run over an unchanged tree sends
// no file bytes and only a handful of requests; a run cut short is finished by the next one. The
// CLI talks to the daemon through a counting proxy on loopback, which can also lose replies.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliEnv, runCli, type CliEnv } from '../cli/testing/run-cli.js';
import { SYNC_EXTENSIONS } from '../cli/src/file-types.js';
import { SUPPORTED_TYPES } from '../daemon/src/ingest/file-types.js';
import { countingProxy } from './helpers/counting-proxy.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('docsift docs sync', () => {
  let d: TestDaemon;
  let t: Tenant;
  let e: CliEnv;
  let dir: string;
  let proxy: Awaited<ReturnType<typeof countingProxy>>;
  const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { ...e.env, ...env } });
  const remote = async (slug = 'handbook') =>
    (await http(d.url)('GET', `/api/v1/documents/?collection=${slug}`, { key: t.key })).body as {
      uuid: string;
      original_filename: string;
      content_sha256: string | null;
      title: string;
    }[];
  const write = async (rel: string, text: string) => {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  };

  before(async () => {
    d = await startTestDaemon({ label: 'cli_sync' });
    t = await createTenant(d, 'cli-sync');
    proxy = await countingProxy(d.url);
    e = await cliEnv({ DOCSIFT_URL: proxy.url, DOCSIFT_API_KEY: t.key });
    dir = await mkdtemp(path.join(os.tmpdir(), 'docsift-sync-'));
    await write('a.md', '# A\nalpha');
    await write('b.txt', 'bravo');
    await write('sub/c.md', '# C\ncharlie');
    await write('sub/deep/d.txt', 'delta');
    await write('.hidden.md', 'never synced');
    await write('image.png', '\x89PNG\r\n\x1a\n');
    const c = await http(d.url)('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Handbook' } });
    assert.equal(c.status, 201, c.text);
  });
  after(async () => {
    await proxy?.close();
    await d?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the first run uploads every supported file under its relative path; unsupported ones are skipped unsent', async () => {
    const r = await cli(['docs', 'sync', dir, '-c', 'handbook', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const j = r.json();
    assert.deepEqual(j.counts, { uploaded: 4, replaced: 0, unchanged: 0, deleted: 0, kept: 0, skipped: 1, failed: 0 });
    assert.deepEqual(j.uploaded.map((u: { key: string }) => u.key).sort(), ['a.md', 'b.txt', 'sub/c.md', 'sub/deep/d.txt']);
    assert.deepEqual(
      j.skipped.map((s: { key: string; reason: string }) => [s.key, s.reason]),
      [['image.png', 'unsupported file type (not sent)']],
    );
    const docs = await remote();
    assert.deepEqual(docs.map((x) => x.original_filename).sort(), ['a.md', 'b.txt', 'sub/c.md', 'sub/deep/d.txt']);
    assert.equal(docs.find((x) => x.original_filename === 'b.txt')?.content_sha256, sha256('bravo'));
  });

  it('a second run over the unchanged tree sends no file bytes and at most a handful of requests', async () => {
    proxy.reset();
    const r = await cli(['docs', 'sync', dir, '-c', 'handbook', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.json().counts, { uploaded: 0, replaced: 0, unchanged: 4, deleted: 0, kept: 0, skipped: 1, failed: 0 });
    assert.ok(proxy.seen.length <= 4, `${proxy.seen.length} requests: ${proxy.seen.map((s) => `${s.method} ${s.path}`).join(', ')}`);
    assert.ok(
      proxy.seen.every((s) => s.method === 'GET'),
      'only reads',
    );
    assert.equal(await remote().then((x) => x.length), 4);
  });

  it('--dry-run reports the plan and changes nothing', async () => {
    await write('b.txt', 'bravo, edited');
    await unlink(path.join(dir, 'sub/c.md'));
    await write('e.md', '# E\necho');
    const before = await remote();
    proxy.reset();
    const r = await cli(['docs', 'sync', dir, '-c', 'handbook', '--delete', '--dry-run', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const j = r.json();
    assert.equal(j.dry_run, true);
    assert.deepEqual(j.counts, { uploaded: 1, replaced: 1, unchanged: 2, deleted: 1, kept: 0, skipped: 1, failed: 0 });
    assert.deepEqual(
      j.uploaded.map((u: { key: string }) => u.key),
      ['e.md'],
    );
    assert.deepEqual(
      j.replaced.map((u: { key: string }) => u.key),
      ['b.txt'],
    );
    assert.deepEqual(
      j.deleted.map((u: { key: string }) => u.key),
      ['sub/c.md'],
    );
    assert.ok(proxy.seen.every((s) => s.method === 'GET'));
    assert.deepEqual(await remote(), before);
  });

  it('without --delete a gone file’s document is kept and listed; with --delete it goes; a changed file keeps its uuid', async () => {
    const bUuid = (await remote()).find((x) => x.original_filename === 'b.txt')!.uuid;
    const kept = await cli(['docs', 'sync', dir, '-c', 'handbook', '--json']);
    assert.equal(kept.code, 0, kept.stderr);
    assert.deepEqual(kept.json().counts, { uploaded: 1, replaced: 1, unchanged: 2, deleted: 0, kept: 1, skipped: 1, failed: 0 });
    assert.deepEqual(
      kept.json().kept.map((k: { key: string }) => k.key),
      ['sub/c.md'],
    );
    const r = await cli(['docs', 'sync', dir, '-c', 'handbook', '--delete', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.json().counts, { uploaded: 0, replaced: 0, unchanged: 4, deleted: 1, kept: 0, skipped: 1, failed: 0 });
    const docs = await remote();
    assert.deepEqual(docs.map((x) => x.original_filename).sort(), ['a.md', 'b.txt', 'e.md', 'sub/deep/d.txt']);
    const b = docs.find((x) => x.original_filename === 'b.txt')!;
    assert.equal(b.uuid, bUuid, 'replaced in place');
    assert.equal(b.content_sha256, sha256('bravo, edited'));
  });

  it('duplicates left by earlier uploads of the same file are removed with --delete', async () => {
    const up = await cli(['docs', 'upload', path.join(dir, 'a.md'), '-c', 'handbook', '--json']);
    assert.equal(up.code, 0, up.stderr);
    assert.equal((await remote()).filter((x) => x.original_filename === 'a.md').length, 2);
    const r = await cli(['docs', 'sync', dir, '-c', 'handbook', '--delete', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.json().counts.deleted, 1);
    assert.equal(r.json().deleted[0].reason, 'duplicate');
    assert.equal((await remote()).filter((x) => x.original_filename === 'a.md').length, 1);
  });

  it('a run whose replies were lost is finished by the next run, without duplicates', async () => {
    for (let i = 0; i < 6; i++) await write(`batch/f${i}.md`, `# F${i}\nfoxtrot ${i}`);
    let uploads = 0;
    proxy.setLoseReply((s) => s.method === 'POST' && /\/documents\/?$/.test(s.path.split('?')[0]!) && ++uploads > 1);
    try {
      const cut = await cli(['docs', 'sync', dir, '-c', 'handbook', '--batch-size', '2', '--concurrency', '1', '--json']);
      assert.equal(cut.code, 1, cut.stderr);
      assert.ok(cut.json().counts.failed >= 2, JSON.stringify(cut.json().counts));
    } finally {
      proxy.setLoseReply(undefined);
    }
    const again = await cli(['docs', 'sync', dir, '-c', 'handbook', '--json']);
    assert.equal(again.code, 0, again.stderr);
    const docs = await remote();
    const names = docs.map((x) => x.original_filename);
    assert.equal(new Set(names).size, names.length, `no duplicates: ${names.sort().join(', ')}`);
    assert.equal(names.filter((n) => n.startsWith('batch/')).length, 6);
  });

  it('docs upload --skip-existing skips files whose content the collection already holds', async () => {
    proxy.reset();
    const r = await cli(['docs', 'upload', path.join(dir, 'a.md'), path.join(dir, 'e.md'), '-c', 'handbook', '--skip-existing', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const j = r.json();
    assert.equal(j.total_uploaded, 0);
    assert.equal(j.total_existing, 2);
    assert.ok(proxy.seen.every((s) => s.method === 'GET'));
    await write('new.md', '# New\nnovember');
    const n = await cli(['docs', 'upload', path.join(dir, 'new.md'), '-c', 'handbook', '--skip-existing', '--json']);
    assert.equal(n.json().total_uploaded, 1);
  });

  it('a key without write access changes nothing and says why; a missing folder is an error', async () => {
    const k = await http(d.url)('POST', '/api/v1/keys/', { key: t.key, json: { name: 'reader', collections: ['handbook'] } });
    assert.equal(k.status, 201, k.text);
    await write('z.md', '# Z\nzulu');
    const before = await remote();
    const r = await cli(['docs', 'sync', dir, '-c', 'handbook', '--delete'], { DOCSIFT_API_KEY: k.body.key });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /WRITE_ACCESS_REQUIRED/, `the refusal is named on stderr (stdout: ${r.stdout})`);
    assert.deepEqual(await remote(), before);
    const missing = await cli(['docs', 'sync', path.join(dir, 'nope'), '-c', 'handbook']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /not a directory/);
  });

  it('the CLI skips exactly the extensions the daemon refuses', () => {
    assert.deepEqual(
      [...SYNC_EXTENSIONS].sort(),
      Object.values(SUPPORTED_TYPES)
        .flatMap((x) => [...x.extensions])
        .sort(),
    );
  });
});
