// `--where` / `--filter` on search and docs list, and metadata from `docs sync` (--meta, --path-key).
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliEnv, runCli, type CliEnv } from '../cli/testing/run-cli.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { waitSettled } from './helpers/docs.js';

describe('CLI filters and sync metadata', () => {
  let d: TestDaemon;
  let t: Tenant;
  let other: Tenant;
  let e: CliEnv;
  let dir: string;
  const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { ...e.env, ...env } });

  before(async () => {
    d = await startTestDaemon({ label: 'cli_filter', worker: true });
    t = await createTenant(d, 'cli-filter');
    other = await createTenant(d, 'cli-filter-b');
    e = await cliEnv({ DOCSIFT_URL: d.url, DOCSIFT_API_KEY: t.key });
    dir = await mkdtemp(path.join(os.tmpdir(), 'docsift-filter-'));
    await mkdir(path.join(dir, 'legal'), { recursive: true });
    await writeFile(path.join(dir, 'legal/nda.md'), '# NDA\nmutual confidentiality agreement');
    await writeFile(path.join(dir, 'hr.md'), '# HR\nvacation agreement');
    for (const key of [t.key, other.key]) {
      const c = await http(d.url)('POST', '/api/v1/collections/', { key, json: { name: 'Repo' } });
      assert.equal(c.status, 201, c.text);
    }
  });
  after(async () => {
    await d?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('docs sync attaches --meta and the relative path; search and docs list filter on them', async () => {
    const sync = await cli([
      'docs',
      'sync',
      dir,
      '-c',
      'repo',
      '--meta',
      'repo=acme/api',
      '--meta',
      'commit=abc123',
      '--meta',
      'year=2024',
      '--path-key',
      'path',
      '--wait',
      '--json',
    ]);
    assert.equal(sync.code, 0, sync.stderr);
    const docs = (await http(d.url)('GET', '/api/v1/documents/?collection=repo', { key: t.key })).body;
    await waitSettled(
      http(d.url),
      t.key,
      docs.map((x: any) => x.uuid),
    );
    const byPath = Object.fromEntries(docs.map((x: any) => [x.original_filename, x.metadata]));
    assert.deepEqual(byPath['legal/nda.md'], { repo: 'acme/api', commit: 'abc123', year: 2024, path: 'legal/nda.md' });
    assert.deepEqual(byPath['hr.md'], { repo: 'acme/api', commit: 'abc123', year: 2024, path: 'hr.md' });

    const s = await cli(['search', 'agreement', '--mode', 'text', '--where', 'commit = abc123 and path prefix legal/', '--json']);
    assert.equal(s.code, 1, 'prefix applies to original_filename only: a usage error from the service');
    const ok = await cli([
      'search',
      'agreement',
      '--mode',
      'text',
      '--where',
      'commit = abc123 and year >= 2024',
      '--filter',
      '{"original_filename":{"prefix":"legal/"}}',
      '--json',
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(
      JSON.parse(ok.stdout).results.map((r: any) => r.metadata.path),
      ['legal/nda.md'],
    );
    const list = await cli(['docs', 'list', '--where', 'path = hr.md', '--json']);
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual(
      JSON.parse(list.stdout).map((x: any) => x.original_filename),
      ['hr.md'],
    );
    const bad = await cli(['search', 'x', '--where', 'year >']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /--where/);
  });

  it('cross-tenant: another tenant’s key sees none of it through the same filter', async () => {
    const r = await cli(['search', 'agreement', '--mode', 'text', '--where', 'commit = abc123', '--json'], { DOCSIFT_API_KEY: other.key });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).results, []);
  });
});
