// `docsift docs …` and `docsift search` as child processes against a real daemon with its worker:
// bulk upload of the mixed samples folder with --wait, globs, listing, download, replace, wait, search.
import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cliEnv, runCli, type CliEnv } from '../cli/testing/run-cli.js';
import { SAMPLES_DIR } from './fixtures/samples.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const samples = path.relative(root, SAMPLES_DIR);

interface UploadJson {
  collection: { uuid: string; slug: string; name: string };
  total_files: number;
  total_bytes: number;
  total_uploaded: number;
  total_skipped: number;
  total_failed: number;
  uploaded: { path: string; uuid: string; status: string; tags: string[]; original_filename: string; file_size: number; title: string }[];
  skipped: { path: string; filename: string; reason: string; code?: string }[];
  failed: unknown[];
  wait?: {
    total: number;
    indexed: number;
    failed: number;
    pending: number;
    timed_out: boolean;
    documents: { uuid: string; path?: string; status: string; error_message?: string }[];
  };
}

describe('docsift CLI: documents and search', () => {
  let d: TestDaemon;
  let t: Tenant;
  let e: CliEnv;
  let upload: UploadJson;
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(args, { env: { ...e.env, ...env }, cwd: root, timeoutMs: 120_000 });

  before(async () => {
    d = await startTestDaemon({ label: 'cli_docs', worker: true });
    t = await createTenant(d, 'cli-docs');
    // Credentials from the environment only: no login step.
    e = await cliEnv({ DOCSIFT_URL: d.url, DOCSIFT_API_KEY: t.key });
    const c = await cli(['collections', 'create', 'Samples', '--json']);
    assert.equal(c.code, 0, c.stderr);
  });
  after(() => d?.close());

  it('uploads a folder of mixed files in batches, waits, reports skipped and failed, exits 1 for processing failures', async () => {
    const r = await cli([
      'docs',
      'upload',
      samples,
      '--collection',
      'samples',
      '--tags',
      'cli,samples',
      '--batch-size',
      '5',
      '--concurrency',
      '2',
      '--wait',
      '--timeout',
      '90',
      '--json',
    ]);
    assert.equal(r.code, 1, `three samples fail processing, so the exit code is 1\n${r.stderr}`);
    upload = r.json<UploadJson>();
    assert.deepEqual(upload.collection.slug, 'samples');
    assert.equal(upload.total_files, 21);
    assert.equal(upload.total_uploaded, 18);
    assert.equal(upload.total_skipped, 3);
    assert.equal(upload.total_failed, 0);
    assert.equal(upload.uploaded.length, 18);
    assert.equal(upload.total_bytes, upload.uploaded.reduce((n, u) => n + u.file_size, 0) + 26 + 43 + 29);
    for (const u of upload.uploaded) {
      assert.equal(u.path, path.join(samples, u.original_filename));
      assert.equal(u.status, 'pending');
      assert.deepEqual(u.tags, ['cli', 'samples']);
      assert.match(u.uuid, /^[0-9a-f-]{36}$/);
    }
    assert.deepEqual(upload.skipped.map((s) => [s.path, s.filename]).sort(), [
      [path.join(samples, 'fake.docx'), 'fake.docx'],
      [path.join(samples, 'fake.pdf'), 'fake.pdf'],
      [path.join(samples, 'image.png'), 'image.png'],
    ]);
    assert.match(upload.skipped.find((s) => s.filename === 'image.png')!.reason, /Unsupported file type/);
    assert.match(upload.skipped.find((s) => s.filename === 'fake.pdf')!.reason, /does not match its type/);

    const w = upload.wait!;
    assert.deepEqual([w.total, w.indexed, w.failed, w.pending, w.timed_out], [18, 15, 3, 0, false]);
    const failed = w.documents.filter((x) => x.status === 'failed');
    assert.deepEqual(failed.map((x) => path.basename(x.path!)).sort(), ['corrupt.pdf', 'empty.txt', 'encrypted.pdf']);
    for (const f of failed) assert.ok((f.error_message ?? '').length > 0, `error_message of ${f.path}`);
    // Without a TTY, progress is a line every few seconds on stderr plus the final state.
    assert.match(r.stderr, /upload: 21\/21 files, .* \(18 uploaded, 3 skipped, 0 failed\)/);
    assert.match(r.stderr, /indexing: 0 pending, 15 indexed, 3 failed \(of 18\)/);
  });

  it('quoted globs expand, missing paths are reported as skipped, and the human summary lists reasons', async () => {
    const r = await cli(['docs', 'upload', `${samples}/*.md`, `${samples}/nope.txt`, '-c', 'Samples', '--quiet']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^✓ Uploaded 2 of 2 files \(.+\) to Samples \(samples\)\.$/m);
    assert.match(r.stdout, /^Skipped 1:$/m);
    assert.match(
      r.stdout,
      new RegExp(`^  ${path.join(samples, 'nope.txt').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} — no such file or directory$`, 'm'),
    );
    assert.equal(r.stderr, '', '--quiet: no progress');
  });

  it('lists with paging flags, shows a document, waits for documents by uuid', async () => {
    const [page, all, failedOnly] = await Promise.all([
      cli(['docs', 'list', '--collection', 'samples', '--limit', '5', '--json']),
      cli(['docs', 'list', '--collection', 'samples', '--all', '--json']),
      cli(['docs', 'list', '--collection', 'samples', '--status', 'failed', '--json']),
    ]);
    assert.equal(page.json().length, 5);
    assert.match(page.stderr, /more documents: docsift docs list -c samples --limit 5 --cursor \S+ --json \(or --all\)/);
    assert.equal(all.json().length, 20);
    assert.deepEqual(
      failedOnly
        .json()
        .map((x: { original_filename: string }) => x.original_filename)
        .sort(),
      ['corrupt.pdf', 'empty.txt', 'encrypted.pdf'],
    );
    const item = all.json()[0];
    for (const f of [
      'uuid',
      'title',
      'source_type',
      'status',
      'tags',
      'chunks_count',
      'original_filename',
      'file_size',
      'collection_name',
      'collection_slug',
      'created_at',
    ])
      assert.ok(f in item, f);

    const md = upload.uploaded.find((u) => u.original_filename === 'sample.md')!;
    const show = await cli(['docs', 'show', md.uuid, '--json']);
    const doc = show.json();
    assert.equal(doc.uuid, md.uuid);
    assert.equal(doc.status, 'indexed');
    assert.match(doc.content_text, /kestrelmarble/);
    assert.equal(doc.error_message, '');
    assert.ok(doc.chunks.length >= 1, 'chunks');

    const empty = upload.uploaded.find((u) => u.original_filename === 'empty.txt')!;
    const waited = await cli(['docs', 'wait', md.uuid, empty.uuid, '--json']);
    assert.equal(waited.code, 1, 'one of them failed');
    const wj = waited.json();
    assert.deepEqual([wj.indexed, wj.failed, wj.pending, wj.timed_out], [1, 1, 0, false]);
    assert.deepEqual(
      wj.documents.map((x: { uuid: string; status: string }) => [x.uuid, x.status]),
      [
        [md.uuid, 'indexed'],
        [empty.uuid, 'failed'],
      ],
    );
  });

  it('search: ranked results with title, collection and score; readable text without a TTY', async () => {
    const r = await cli(['search', 'kestrelmarble', '--collection', 'samples', '--limit', '3', '--mode', 'hybrid', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const s = r.json();
    assert.equal(s.query, 'kestrelmarble');
    assert.equal(s.mode, 'hybrid');
    assert.ok(s.results.length >= 1 && s.results.length <= 3, String(s.results.length));
    const top = s.results[0];
    assert.equal(top.title, 'sample.md');
    assert.equal(top.collection_slug, 'samples');
    assert.equal(top.collection_name, 'Samples');
    assert.equal(typeof top.score, 'number');
    // sample.md was uploaded twice (with tags, then by the glob test without): identical scores, either may rank first.
    assert.ok(
      s.results.some((x: { title: string; tags: string[] }) => x.title === 'sample.md' && x.tags.join() === 'cli,samples'),
      JSON.stringify(s.results.map((x: { tags: string[] }) => x.tags)),
    );
    for (let i = 1; i < s.results.length; i++) assert.ok(s.results[i - 1].score >= s.results[i].score, 'ranked by score');

    const human = await cli(['search', 'kestrelmarble', 'extraction', '--collection', 'samples', '--mode', 'text']);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^1\. sample\.md {2}Samples \(samples\) · score \d\.\d{3}$/m);
    assert.match(human.stdout, /The kestrelmarble sample proves md extraction works\./);
    assert.doesNotMatch(human.stdout, /\x1b\[/, 'no colour codes without a TTY');
    const none = await cli(['search', 'zzzqqqxxx', '--mode', 'text']);
    assert.match(none.stdout, /No results for "zzzqqqxxx"\./);
  });

  it('download writes the original bytes; replace keeps the uuid and re-indexes', async () => {
    const pdf = upload.uploaded.find((u) => u.original_filename === 'sample.pdf')!;
    const dir = await mkdtemp(path.join(os.tmpdir(), 'docsift-dl-'));
    const dl = await cli(['docs', 'download', pdf.uuid, '-o', dir, '--json']);
    assert.equal(dl.code, 0, dl.stderr);
    assert.deepEqual(dl.json(), { uuid: pdf.uuid, path: path.join(dir, 'sample.pdf'), bytes: pdf.file_size });
    assert.deepEqual(await readFile(path.join(dir, 'sample.pdf')), await readFile(path.join(SAMPLES_DIR, 'sample.pdf')));
    const link = await cli(['docs', 'download', pdf.uuid, '--url-only']);
    assert.match(link.stdout.trim(), new RegExp(`^${d.url}/files/\\S+$`));

    const rep = await cli(['docs', 'replace', pdf.uuid, path.join(samples, 'sample.txt'), '--title', 'Replaced', '--wait', '--json']);
    assert.equal(rep.code, 0, rep.stderr);
    const rj = rep.json();
    assert.equal(rj.uuid, pdf.uuid);
    assert.equal(rj.title, 'Replaced');
    assert.equal(rj.original_filename, 'sample.txt');
    assert.deepEqual([rj.wait.indexed, rj.wait.failed], [1, 0]);
  });

  it('a read-only scoped key cannot upload: exit 1 with WRITE_ACCESS_REQUIRED and the grant hint', async () => {
    const req = http(d.url);
    const k = await req('POST', '/api/v1/keys/', { key: t.key, json: { name: 'reader', collections: ['samples'] } });
    assert.equal(k.status, 201, k.text);
    const r = await cli(['docs', 'upload', path.join(samples, 'sample.md'), '-c', 'samples', '--quiet'], { DOCSIFT_API_KEY: k.body.key });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^error: .+ \(WRITE_ACCESS_REQUIRED\)$/m);
    assert.match(r.stderr, /^hint: .*docsift keys grant <key> <collection> --permission write/m);
  });
});
