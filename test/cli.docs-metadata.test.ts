// Metadata from the command line, against a real daemon with its worker: `docs upload --meta`,
// `docs update` (title, tags, --meta, --unset-meta), metadata in `docs show`, the media type an
// upload stores (the extension's, as curl sends it), and --where hints; across tenants.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SUPPORTED_TYPES } from '../daemon/src/ingest/file-types.js';
import { MEDIA_TYPES } from '../sdk/src/media-types.js';
import { cliEnv, runCli, type CliEnv } from '../cli/testing/run-cli.js';
import { SAMPLES_DIR } from './fixtures/samples.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { makeCollection, waitSettled } from './helpers/docs.js';

const sample = (name: string) => path.join(SAMPLES_DIR, name);

describe('docsift CLI: document metadata', () => {
  let d: TestDaemon;
  let t: Tenant;
  let other: Tenant;
  let e: CliEnv;
  let req: ReturnType<typeof http>;
  let col: { uuid: string; slug: string };
  const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { ...e.env, ...env }, timeoutMs: 120_000 });
  const detail = async (uuid: string) => (await req('GET', `/api/v1/documents/${uuid}/`, { key: t.key })).body;

  before(async () => {
    d = await startTestDaemon({ label: 'cli_docs_meta', worker: true });
    [t, other] = await Promise.all([createTenant(d, 'cli-meta'), createTenant(d, 'cli-meta-other')]);
    e = await cliEnv({ DOCSIFT_URL: d.url, DOCSIFT_API_KEY: t.key });
    req = http(d.url);
    col = await makeCollection(req, t.key, 'Contracts');
  });
  after(() => d?.close());

  it('the SDK names the media type of every extension the service takes, as the service lists it', () => {
    const expected = Object.fromEntries(
      Object.values(SUPPORTED_TYPES).flatMap((info) => info.extensions.map((x) => [x, info.mediaTypes[0]] as const)),
    );
    assert.deepEqual({ ...MEDIA_TYPES }, expected);
  });

  it('docs upload --meta sends typed metadata with every file; the stored media type is the file’s', async () => {
    const r = await cli([
      'docs',
      'upload',
      sample('sample.pdf'),
      sample('sample.md'),
      '-c',
      col.slug,
      '--meta',
      'dept=legal',
      '--meta',
      'year=2024',
      '--meta',
      'note=a, b and c',
      '--wait',
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const out = r.json();
    assert.equal(out.total_uploaded, 2);
    const meta = { dept: 'legal', year: 2024, note: 'a, b and c' };
    for (const u of out.uploaded) assert.deepEqual(u.metadata, meta, 'the upload answer echoes it');
    const rows = await d.deps.sql<{ original_filename: string; media_type: string; metadata: unknown }[]>`
      select original_filename, media_type, metadata from documents where collection_id = ${col.uuid} order by original_filename`;
    assert.deepEqual(
      rows.map((x) => [x.original_filename, x.media_type]),
      [
        ['sample.md', 'text/markdown'],
        ['sample.pdf', 'application/pdf'],
      ],
    );
    for (const row of rows) assert.deepEqual(row.metadata, meta);
    // One file with a title is a single upload: the same metadata.
    const one = await cli(['docs', 'upload', sample('sample.txt'), '-c', col.slug, '--title', 'Memo', '--meta', 'dept=hr', '--json']);
    assert.equal(one.code, 0, one.stderr);
    assert.deepEqual(one.json().uploaded[0].metadata, { dept: 'hr' });
    assert.equal(
      (await d.deps.sql<{ media_type: string }[]>`select media_type from documents where id = ${one.json().uploaded[0].uuid}`)[0]!
        .media_type,
      'text/plain',
    );
  });

  it('docs upload --meta refuses a malformed pair (exit 2) and bad metadata (exit 1, the key named)', async () => {
    const bad = await cli(['docs', 'upload', sample('sample.txt'), '-c', col.slug, '--meta', 'novalue']);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--meta takes key=value/);
    const refused = await cli(['docs', 'upload', sample('sample.txt'), '-c', col.slug, '--title', 'x', '--meta', '1bad=x', '--json']);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stdout + refused.stderr, /metadata\.1bad/);
  });

  it('docs show prints the metadata, one key=value per line, typed as --meta reads it', async () => {
    const u = await cli([
      'docs',
      'upload',
      sample('sample.txt'),
      '-c',
      col.slug,
      '--title',
      'Shown',
      '--meta',
      'year=2024',
      '--meta',
      "code='007'",
      '--meta',
      'signed=true',
      '--json',
    ]);
    assert.equal(u.code, 0, u.stderr);
    const uuid = u.json().uploaded[0].uuid;
    const r = await cli(['docs', 'show', uuid]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Metadata\s+code='007'\n\s+signed=true\n\s+year=2024\n/);
    const plain = await cli(['docs', 'upload', sample('sample.txt'), '-c', col.slug, '--title', 'Bare', '--json']);
    const none = await cli(['docs', 'show', plain.json().uploaded[0].uuid]);
    assert.match(none.stdout, /Metadata\s+—/);
    const json = await cli(['docs', 'show', uuid, '--json']);
    assert.deepEqual(json.json().metadata, { year: 2024, code: '007', signed: true });
  });

  it('docs update changes title and tags, merges --meta and removes --unset-meta keys, in place', async () => {
    const u = await cli(['docs', 'upload', sample('sample.txt'), '-c', col.slug, '--title', 'Draft', '--meta', 'dept=legal', '--json']);
    const uuid = u.json().uploaded[0].uuid;
    await waitSettled(req, t.key, [uuid]);
    const chunks = (await detail(uuid)).chunks_count;
    const r = await cli([
      'docs',
      'update',
      uuid,
      '--title',
      'Final',
      '--tags',
      'signed,2024',
      '--meta',
      'year=2025',
      '--meta',
      'owner=Ann',
      '--unset-meta',
      'dept',
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.json().title, 'Final');
    const after = await detail(uuid);
    assert.equal(after.title, 'Final');
    assert.deepEqual(after.tags, ['signed', '2024']);
    assert.deepEqual(after.metadata, { year: 2025, owner: 'Ann' });
    assert.equal(after.status, 'indexed', 'no reprocessing');
    assert.equal(after.chunks_count, chunks);
    const human = await cli(['docs', 'update', uuid, '--unset-meta', 'owner']);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /Updated .*Final/);
    assert.deepEqual((await detail(uuid)).metadata, { year: 2025 });
    const cleared = await cli(['docs', 'update', uuid, '--tags', '', '--json']);
    assert.equal(cleared.code, 0, cleared.stderr);
    assert.deepEqual((await detail(uuid)).tags, []);
    // replace keeps the metadata unless --meta gives the new one, whole.
    const kept = await cli(['docs', 'replace', uuid, sample('sample.md'), '--json']);
    assert.equal(kept.code, 0, kept.stderr);
    assert.deepEqual(kept.json().metadata, { year: 2025 });
    const replaced = await cli(['docs', 'replace', uuid, sample('sample.txt'), '--meta', 'version=2', '--json']);
    assert.equal(replaced.code, 0, replaced.stderr);
    assert.deepEqual((await detail(uuid)).metadata, { version: 2 });
  });

  it('docs update: nothing to change or a bad uuid is a usage error (2); another tenant’s document is not found (1)', async () => {
    const u = await cli(['docs', 'upload', sample('sample.txt'), '-c', col.slug, '--title', 'Mine', '--json']);
    const uuid = u.json().uploaded[0].uuid;
    const nothing = await cli(['docs', 'update', uuid]);
    assert.equal(nothing.code, 2, nothing.stderr);
    assert.match(nothing.stderr, /--title, --tags, --meta or --unset-meta/);
    const notUuid = await cli(['docs', 'update', 'contracts', '--title', 'x']);
    assert.equal(notUuid.code, 2, notUuid.stderr);
    for (const args of [
      ['--title', 'stolen'],
      ['--meta', 'dept=stolen'],
    ]) {
      const theirs = await cli(['docs', 'update', uuid, ...args, '--json'], { DOCSIFT_API_KEY: other.key });
      assert.equal(theirs.code, 1, theirs.stderr);
      assert.match(theirs.stdout + theirs.stderr, /DOCUMENT_NOT_FOUND/);
    }
    const mine = await detail(uuid);
    assert.equal(mine.title, 'Mine');
    assert.deepEqual(mine.metadata, {});
  });

  it('docs update with a read-only key: exit 1 WRITE_ACCESS_REQUIRED with the grant hint', async () => {
    const k = await req('POST', '/api/v1/keys/', { key: t.key, json: { name: 'reader', collections: [col.slug] } });
    assert.equal(k.status, 201, k.text);
    const u = await cli(['docs', 'upload', sample('sample.txt'), '-c', col.slug, '--title', 'Locked', '--json']);
    const r = await cli(['docs', 'update', u.json().uploaded[0].uuid, '--meta', 'x=1'], { DOCSIFT_API_KEY: k.body.key });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /WRITE_ACCESS_REQUIRED/);
    assert.match(r.stderr, /keys grant/);
  });

  it('--where: "==" and "&&" are usage errors with the expression rewritten; a quoted number warns', async () => {
    const eq = await cli(['search', 'agreement', '--where', 'dept == legal']);
    assert.equal(eq.code, 2, eq.stderr);
    assert.match(eq.stderr, /"==" is not an operator/);
    assert.match(eq.stderr, /dept = legal/);
    const and = await cli(['docs', 'list', '--where', 'dept = legal && year >= 2024']);
    assert.equal(and.code, 2, and.stderr);
    assert.match(and.stderr, /dept = legal and year >= 2024/);
    const quoted = await cli(['docs', 'list', '--where', "year >= '2024'", '--json']);
    assert.equal(quoted.code, 0, quoted.stderr);
    assert.match(quoted.stderr, /warning: '2024' is quoted.*year >= 2024/);
  });
});
