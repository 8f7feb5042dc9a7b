// CI-style bulk ingestion: thousands of files through `docsift docs upload --json` (no TTY), in
// batched requests, with the summary and counts checked. The worker is off: this measures the
// upload path, not processing.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliEnv, runCli, type CliEnv } from '../cli/testing/run-cli.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

// 2,000 took 11.8 s alone and 40 s under the full suite on a 2-core machine; 1,000 keeps this file well inside its time budget.
const FILES = 1000;

describe('docsift docs upload: bulk batch mode', () => {
  let d: TestDaemon;
  let t: Tenant;
  let e: CliEnv;
  let dir: string;

  before(async () => {
    d = await startTestDaemon({ label: 'cli_bulk' });
    t = await createTenant(d, 'cli-bulk');
    e = await cliEnv({ DOCSIFT_URL: d.url, DOCSIFT_API_KEY: t.key });
    dir = await mkdtemp(path.join(os.tmpdir(), 'docsift-bulk-'));
    // Nested folders, a few unsupported files and dot-files that must not be picked up.
    for (let i = 0; i < FILES; i++) {
      const sub = path.join(dir, `part-${i % 10}`, i % 3 ? 'notes' : 'memos');
      await mkdir(sub, { recursive: true });
      await writeFile(path.join(sub, `note-${i}.${i % 2 ? 'md' : 'txt'}`), `# Note ${i}\n\nBulk ingestion test note number ${i}.\n`);
    }
    for (let i = 0; i < 5; i++)
      await writeFile(path.join(dir, `image-${i}.png`), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, i]));
    await writeFile(path.join(dir, '.DS_Store'), 'junk');
    await mkdir(path.join(dir, '.git'));
    await writeFile(path.join(dir, '.git', 'HEAD'), 'ref: refs/heads/main');
    const c = await http(d.url)('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Bulk' } });
    assert.equal(c.status, 201, c.text);
  });
  after(async () => {
    await d?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it(`uploads ${FILES} files in batches of 100 with 4 requests in flight, skipping the unsupported ones`, async () => {
    const started = Date.now();
    const r = await runCli(
      ['docs', 'upload', dir, '--collection', 'bulk', '--tags', 'bulk', '--batch-size', '100', '--concurrency', '4', '--json'],
      { env: e.env, timeoutMs: 80_000 },
    );
    const seconds = (Date.now() - started) / 1000;
    assert.equal(r.code, 0, r.stderr);
    const j = r.json();
    assert.equal(j.total_files, FILES + 5);
    assert.equal(j.total_uploaded, FILES);
    assert.equal(j.total_skipped, 5);
    assert.equal(j.total_failed, 0);
    assert.ok(
      j.skipped.every(
        (s: { filename: string; reason: string }) => /^image-\d\.png$/.test(s.filename) && /Unsupported file type/.test(s.reason),
      ),
      JSON.stringify(j.skipped),
    );
    assert.equal(new Set(j.uploaded.map((u: { uuid: string }) => u.uuid)).size, FILES);
    assert.ok(
      j.uploaded.every((u: { path: string; original_filename: string }) => path.basename(u.path) === u.original_filename),
      'each result maps back to its path',
    );
    // Progress lines in the log (no TTY): the final state is always printed.
    assert.match(r.stderr, new RegExp(`upload: ${FILES + 5}/${FILES + 5} files, .* \\(${FILES} uploaded, 5 skipped, 0 failed\\)`));
    const count = await http(d.url)('GET', '/api/v1/collections/', { key: t.key });
    assert.equal(count.body[0].document_count, FILES);
    // Reported for the record; generous bound for a loaded 2-core machine.
    process.stderr.write(
      `[cli.bulk] ${FILES} files in ${seconds.toFixed(1)} s (${(FILES / seconds).toFixed(0)} files/s, CLI start included)\n`,
    );
    assert.ok(seconds < 60, `${seconds} s`);
  });
});
