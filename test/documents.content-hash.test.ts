// What `docs sync` relies on: every file document carries the SHA-256 of its bytes (list and detail,
// computed while the upload streams), and a relative path sent as the part's file name is kept as
// original_filename (normalized; the title and the download name stay the base name).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { samplePath } from './fixtures/samples.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { addText, makeCollection } from './helpers/docs.js';

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

describe('document content hash and path identity', () => {
  let d: TestDaemon;
  let owner: Tenant;
  let other: Tenant;
  let req: ReturnType<typeof http>;
  let coll: { uuid: string; slug: string };

  before(async () => {
    d = await startTestDaemon({ label: 'doc_hash' });
    owner = await createTenant(d, 'hash-owner');
    other = await createTenant(d, 'hash-other');
    req = http(d.url);
    coll = await makeCollection(req, owner.key, 'Hashed');
  });
  after(async () => d?.close());

  const upload = (form: FormData, key = owner.key) => req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key, body: form });
  const listed = async (key = owner.key) =>
    (await req('GET', `/api/v1/documents/?collection=${coll.slug}`, { key })).body as {
      uuid: string;
      original_filename: string;
      title: string;
      content_sha256: string | null;
    }[];

  it('single and batch uploads expose the SHA-256 of the stored bytes in the list and the detail', async () => {
    const pdf = await readFile(samplePath('sample.pdf'));
    const txt = await readFile(samplePath('sample.txt'));
    const single = new FormData();
    single.append('file', new Blob([pdf]), 'sample.pdf');
    const one = await upload(single);
    assert.equal(one.status, 201, one.text);
    const batch = new FormData();
    batch.append('files', new Blob([txt]), 'sample.txt');
    const many = await upload(batch);
    assert.equal(many.status, 201, many.text);

    const byUuid = new Map((await listed()).map((x) => [x.uuid, x]));
    assert.equal(byUuid.get(one.body.uuid)?.content_sha256, sha256(pdf));
    assert.equal(byUuid.get(many.body.uploaded[0].uuid)?.content_sha256, sha256(txt));
    const detail = await req('GET', `/api/v1/documents/${one.body.uuid}/`, { key: owner.key });
    assert.equal(detail.body.content_sha256, sha256(pdf));
  });

  it('text documents hash their content; URL documents have none', async () => {
    const text = await addText(req, owner.key, coll.uuid, 'Inline', 'inline words for hashing');
    const url = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, {
      key: owner.key,
      json: { source_type: 'url', url: 'https://example.com/page.html' },
    });
    assert.equal(url.status, 201, url.text);
    const byUuid = new Map((await listed()).map((x) => [x.uuid, x]));
    assert.equal(byUuid.get(text.uuid)?.content_sha256, sha256('inline words for hashing'));
    assert.equal(byUuid.get(url.body.uuid)?.content_sha256, null);
  });

  it('a relative path in the file name is kept as original_filename; the title is its base name', async () => {
    const form = new FormData();
    form.append('files', new Blob(['alpha words']), 'guide/intro.txt');
    form.append('files', new Blob(['beta words']), 'guide\\deep\\notes.md');
    const r = await upload(form);
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(
      r.body.uploaded.map((u: { original_filename: string; title: string }) => [u.original_filename, u.title]),
      [
        ['guide/intro.txt', 'intro.txt'],
        ['guide/deep/notes.md', 'notes.md'],
      ],
    );
    const row = (await listed()).find((x) => x.original_filename === 'guide/deep/notes.md');
    assert.equal(row?.content_sha256, sha256('beta words'));
  });

  it('replace stores the new file’s hash and name', async () => {
    const form = new FormData();
    form.append('file', new Blob(['version one']), 'docs/changing.txt');
    const first = await upload(form);
    assert.equal(first.status, 201, first.text);
    const next = new FormData();
    next.append('file', new Blob(['version two']), 'docs/changing.txt');
    const r = await req('POST', `/api/v1/documents/${first.body.uuid}/replace/`, { key: owner.key, body: next });
    assert.equal(r.status, 200, r.text);
    const row = (await listed()).find((x) => x.uuid === first.body.uuid);
    assert.equal(row?.content_sha256, sha256('version two'));
    assert.equal(row?.original_filename, 'docs/changing.txt');
  });

  it('path traversal and absolute paths are normalized away; the download is named by the base name', async () => {
    const form = new FormData();
    form.append('files', new Blob(['gamma words']), '../../etc/./escape.txt');
    form.append('files', new Blob(['delta words']), '/abs/x/../root.txt');
    form.append('files', new Blob(['epsilon words']), 'C:\\Users\\me\\drive.txt');
    const r = await upload(form);
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(
      r.body.uploaded.map((u: { original_filename: string }) => u.original_filename),
      ['etc/escape.txt', 'abs/root.txt', 'Users/me/drive.txt'],
    );
    const link = await req('GET', `/api/v1/documents/${r.body.uploaded[0].uuid}/download/`, { key: owner.key });
    assert.equal(link.status, 302);
    const file = await fetch(link.headers.get('location')!);
    assert.equal(file.status, 200);
    const disposition = file.headers.get('content-disposition') ?? '';
    assert.match(disposition, /filename="escape\.txt"/);
    assert.doesNotMatch(disposition, /etc/);
  });

  it('another tenant sees neither the documents nor their hashes', async () => {
    const theirs = await req('GET', `/api/v1/documents/?collection=${coll.slug}`, { key: other.key });
    assert.equal(theirs.status, 200);
    assert.deepEqual(theirs.body, []);
  });
});
