// Collection export (GET /api/v1/collections/{uuid}/export/) and import (POST
// /api/v1/collections/import/): an archive of originals and a JSONL manifest, rebuilt on a fresh
// instance through the normal pipeline with the same documents, titles, tags and metadata and the
// same top 10 for the fixed queries; a re-import adds nothing; scoped keys need read to export and
// write to import; no tenant reaches another's collection; broken archives are 400s.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { readTar, tarEnd, tarHeader, tarPadding } from '../daemon/src/transfer/tar.js';
import { samplePath } from './fixtures/samples.js';
import { createTenant, http, startTestDaemon, type TestDaemon, type Tenant } from './helpers/daemon.js';
import { makeCollection, waitSettled } from './helpers/docs.js';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { topicText, topTens } from './helpers/topic-corpus.js';

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** An archive's entries, read whole. */
async function entriesOf(archive: Buffer): Promise<{ name: string; data: Buffer }[]> {
  const out: { name: string; data: Buffer }[] = [];
  for await (const e of readTar(Readable.from([archive]))) {
    const parts: Buffer[] = [];
    for await (const p of e.body) parts.push(p as Buffer);
    out.push({ name: e.name, data: Buffer.concat(parts) });
  }
  return out;
}

function tarOf(entries: { name: string; data: Buffer }[], end = true): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) parts.push(tarHeader(e.name, e.data.length, new Date()), e.data, tarPadding(e.data.length));
  if (end) parts.push(tarEnd());
  return Buffer.concat(parts);
}

describe('collection export and import', () => {
  let ollama: FakeOllama;
  let src: TestDaemon;
  let dst: TestDaemon;
  let owner: Tenant;
  let other: Tenant;
  let fresh: Tenant;
  let coll: { uuid: string; slug: string };
  let archive: Buffer;
  const env = () => ({ EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, OLLAMA_MODEL: 'nomic-embed-text' });
  const exportOf = async (d: TestDaemon, key: string, uuid: string) => {
    const r = await fetch(`${d.url}/api/v1/collections/${uuid}/export/`, { headers: { authorization: `Bearer ${key}` } });
    return { status: r.status, headers: r.headers, body: Buffer.from(await r.arrayBuffer()) };
  };
  const importTo = (d: TestDaemon, key: string, body: Buffer, query = '') =>
    http(d.url)('POST', `/api/v1/collections/import/${query}`, {
      key,
      body: new Uint8Array(body),
      headers: { 'content-type': 'application/x-tar' },
    });
  const documentsOf = async (d: TestDaemon, collection: string) =>
    (
      await d.deps.sql<{ title: string; source_type: string; tags: string[]; metadata: object; content_sha256: string; status: string }[]>`
        select title, source_type, tags, metadata, content_sha256, status from documents
         where collection_id = ${collection} and deleted_at is null order by title`
    ).map((r) => ({ ...r }));

  before(async () => {
    ollama = await startFakeOllama({ dimension: 16 });
    src = await startTestDaemon({ label: 'export_src', worker: true, env: env() });
    dst = await startTestDaemon({ label: 'import_dst', worker: true, env: env() });
    owner = await createTenant(src, 'exporter');
    other = await createTenant(src, 'stranger');
    fresh = await createTenant(dst, 'importer');
    const req = http(src.url);
    coll = await makeCollection(req, owner.key, 'Field notes', { description: 'Notes from the survey', language: 'english' });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const form = new FormData();
      form.append('file', new Blob([topicText(i)]), `note-${i}.md`);
      form.append('tags', `survey, n${i}`);
      form.append('metadata', JSON.stringify({ site: `S${i % 3}`, n: i }));
      const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: owner.key, body: form });
      assert.equal(r.status, 201, r.text);
      ids.push(r.body.uuid);
    }
    for (const file of ['sample.pdf', 'sample.docx']) {
      const form = new FormData();
      form.append('file', new Blob([await readFile(samplePath(file))]), file);
      const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: owner.key, body: form });
      assert.equal(r.status, 201, r.text);
      ids.push(r.body.uuid);
    }
    for (let i = 12; i < 18; i++) {
      const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, {
        key: owner.key,
        json: { source_type: 'text', title: `Inline ${i}`, content: topicText(i), tags: ['inline'], metadata: { n: i } },
      });
      assert.equal(r.status, 201, r.text);
      ids.push(r.body.uuid);
    }
    await waitSettled(req, owner.key, ids, 120_000);
  });
  after(async () => {
    await src?.close();
    await dst?.close();
    await ollama?.close();
  });

  it('exports a tar of the manifest and the originals, each with its upload checksum', async () => {
    const r = await exportOf(src, owner.key, coll.uuid);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/x-tar');
    assert.match(r.headers.get('content-disposition') ?? '', /filename="field-notes\.docsift\.tar"/);
    archive = r.body;
    const entries = await entriesOf(archive);
    assert.equal(entries[0]!.name, 'manifest.jsonl');
    const lines = entries[0]!.data
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines[0].type, 'collection');
    assert.deepEqual(
      { ...lines[0].collection, uuid: undefined },
      {
        uuid: undefined,
        name: 'Field notes',
        slug: 'field-notes',
        description: 'Notes from the survey',
        language: 'english',
        is_public: false,
      },
    );
    const docs = lines.slice(1);
    assert.equal(docs.length, 20);
    const files = new Map(entries.slice(1).map((e) => [e.name, e.data]));
    assert.equal(files.size, 14);
    for (const d of docs.filter((x) => x.file)) assert.equal(sha256(files.get(d.file)!), d.content_sha256, d.title);
    assert.equal(docs.filter((x) => x.source_type === 'text' && x.content === topicText(Number(x.title.split(' ')[1]))).length, 6);
  });

  it('imports on a fresh instance: same documents, titles, tags, metadata and top 10', async () => {
    const r = await importTo(dst, fresh.key, archive);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.created_collection, true);
    assert.equal(r.body.imported, 20);
    assert.deepEqual(r.body.failed, []);
    assert.equal(r.body.collection.name, 'Field notes');
    const target = r.body.collection.uuid;
    const ids = (await dst.deps.sql<{ id: string }[]>`select id from documents where collection_id = ${target}`).map((x) => x.id);
    await waitSettled(http(dst.url), fresh.key, ids, 120_000);
    assert.deepEqual(await documentsOf(dst, target), await documentsOf(src, coll.uuid));
    const byTitle = (x: { title?: string }) => x.title ?? '';
    assert.deepEqual(
      await topTens(http(dst.url), fresh.key, [target], undefined, byTitle),
      await topTens(http(src.url), owner.key, [coll.uuid], undefined, byTitle),
    );
  });

  it('importing the same archive again adds nothing', async () => {
    const r = await importTo(dst, fresh.key, archive);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.created_collection, false);
    assert.equal(r.body.imported, 0);
    assert.equal(r.body.already_present, 20);
    assert.equal(r.body.collection.document_count, 20);
  });

  it('scoped keys: read to export, write to import, and never a new collection', async () => {
    const req = http(src.url);
    const scoped = await req('POST', '/api/v1/keys/', { key: owner.key, json: { name: 'reader', collections: [coll.slug] } });
    assert.equal(scoped.status, 201, scoped.text);
    assert.equal((await exportOf(src, scoped.body.key, coll.uuid)).status, 200);
    assert.equal((await importTo(src, scoped.body.key, archive)).body.code, 'SCOPED_KEY_FORBIDDEN');
    const ro = await importTo(src, scoped.body.key, archive, `?collection=${coll.uuid}`);
    assert.equal(ro.status, 403);
    assert.equal(ro.body.code, 'WRITE_ACCESS_REQUIRED');
    const blind = await req('POST', '/api/v1/keys/', { key: owner.key, json: { name: 'no grants' } });
    assert.equal((await exportOf(src, blind.body.key, coll.uuid)).status, 404);
    const target = await makeCollection(req, owner.key, 'Copy target');
    const grant = await req('POST', `/api/v1/keys/${scoped.body.uuid}/collections/`, {
      key: owner.key,
      json: { collection: target.slug, permission: 'write' },
    });
    assert.equal(grant.status < 300, true, grant.text);
    const w = await importTo(src, scoped.body.key, archive, `?collection=${target.uuid}`);
    assert.equal(w.status, 200, w.text);
    assert.equal(w.body.collection.uuid, target.uuid);
    assert.equal(w.body.imported, 20);
  });

  it('no tenant exports or imports into another’s collection', async () => {
    const e = await exportOf(src, other.key, coll.uuid);
    assert.equal(e.status, 404);
    assert.equal(JSON.parse(e.body.toString()).code, 'COLLECTION_NOT_FOUND');
    const i = await importTo(src, other.key, archive, `?collection=${coll.uuid}`);
    assert.equal(i.status, 404);
    assert.equal(i.body.code, 'COLLECTION_NOT_FOUND');
    // With the archive in hand, a tenant rebuilds it as its own collection.
    const own = await importTo(src, other.key, archive);
    assert.equal(own.status, 200, own.text);
    assert.notEqual(own.body.collection.uuid, coll.uuid);
    const [n] = await src.deps.sql<{ n: number }[]>`select count(*)::int as n from documents where collection_id = ${coll.uuid}`;
    assert.equal(n!.n, 20);
  });

  it('refuses what is not an export, and a truncated archive is completed by importing again', async () => {
    const notTar = await importTo(dst, fresh.key, Buffer.from('{"hello": "world"}'.padEnd(2048, ' ')));
    assert.equal(notTar.status, 400);
    assert.equal(notTar.body.code, 'VALIDATION_FAILED');
    const entries = await entriesOf(archive);
    const noManifest = await importTo(dst, fresh.key, tarOf(entries.slice(1)));
    assert.equal(noManifest.status, 400);
    assert.match(noManifest.body.error, /first entry must be manifest\.jsonl/);
    const head = JSON.parse(entries[0]!.data.toString().split('\n')[0]!);
    const newer = Buffer.from(`${JSON.stringify({ ...head, version: 99 })}\n`);
    const future = await importTo(dst, fresh.key, tarOf([{ name: 'manifest.jsonl', data: newer }]));
    assert.equal(future.status, 400);
    assert.match(future.body.error, /format version 99/);
    assert.equal((await importTo(dst, fresh.key, Buffer.alloc(0))).status, 400);

    // A second collection's archive, cut after its fourth file: what arrived is imported, a re-import adds the rest.
    const other2 = await makeCollection(http(src.url), owner.key, 'Cut short');
    const copy = await importTo(src, owner.key, archive, `?collection=${other2.uuid}`);
    assert.equal(copy.status, 200, copy.text);
    const full = (await exportOf(src, owner.key, other2.uuid)).body;
    const cut = tarOf((await entriesOf(full)).slice(0, 5), false);
    const partial = await importTo(dst, fresh.key, cut);
    assert.equal(partial.status, 400);
    assert.match(partial.body.error, /truncated.*; 4 document\(s\) were imported before it/);
    const rest = await importTo(dst, fresh.key, full);
    assert.equal(rest.status, 200, rest.text);
    assert.equal(rest.body.imported + rest.body.already_present, 20);
    assert.ok(rest.body.already_present > 0);
  });

  it('a damaged original is refused with the reason, the others imported', async () => {
    const entries = await entriesOf(archive);
    const i = entries.findIndex((e) => e.name.startsWith('files/'));
    const bad = Buffer.from(entries[i]!.data);
    bad[0] = bad[0]! ^ 1;
    entries[i] = { name: entries[i]!.name, data: bad };
    const target = await makeCollection(http(dst.url), fresh.key, 'Damaged copy');
    const r = await importTo(dst, fresh.key, tarOf(entries), `?collection=${target.uuid}`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.imported, 19);
    assert.equal(r.body.failed.length, 1);
    assert.match(r.body.failed[0].reason, /damaged: SHA-256/);
  });
});
