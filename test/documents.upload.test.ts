import assert from 'node:assert/strict';
import { readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BAD_FILES, samplePath, SAMPLES } from './fixtures/samples.js';
import { UPLOAD_FIELDS } from './helpers/document-fields.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const MB = 1024 * 1024;

describe('document upload', () => {
  let d: TestDaemon;
  let owner: Tenant;
  let other: Tenant;
  let req: ReturnType<typeof http>;
  let coll: { uuid: string; slug: string; name: string };
  let n = 0;

  before(async () => {
    d = await startTestDaemon({ label: 'doc_upload' });
    owner = await createTenant(d, 'upl-owner');
    other = await createTenant(d, 'upl-other');
    req = http(d.url);
    coll = await createCollection(owner.key);
  });
  after(async () => d?.close());

  async function createCollection(key: string, isPublic = false) {
    const r = await req('POST', '/api/v1/collections/', { key, json: { name: `Uploads ${++n}`, is_public: isPublic } });
    assert.equal(r.status, 201, r.text);
    return r.body as { uuid: string; slug: string; name: string };
  }
  async function sampleBlob(file: string, type = 'application/octet-stream') {
    return new Blob([await readFile(samplePath(file))], { type });
  }
  async function form(parts: Record<string, string | [field: 'file' | 'files', file: string][]>) {
    const f = new FormData();
    for (const [k, v] of Object.entries(parts)) {
      if (typeof v === 'string') f.append(k, v);
      else for (const [field, file] of v) f.append(field, await sampleBlob(file), file);
    }
    return f;
  }
  const post = (key: string, body: FormData | undefined, collectionId = coll.uuid, json?: unknown) =>
    req('POST', `/api/v1/collections/${collectionId}/documents/`, json === undefined ? { key, body: body! } : { key, json });
  function assertError(r: { status: number; body: any; text: string }, status: number, code: string) {
    assert.equal(r.status, status, r.text);
    assert.equal(r.body.code, code, r.text);
    assert.equal(typeof r.body.error, 'string');
  }
  const docRows = (collectionId = coll.uuid) =>
    d.deps.sql<{ id: string; blob_key: string | null }[]>`select id, blob_key from documents where collection_id = ${collectionId}`;
  /** Every regular file under <dataDir>/blobs (recursively), including temp files. */
  async function blobFiles(): Promise<string[]> {
    const root = path.join(d.dataDir, 'blobs');
    const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
    return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name));
  }
  async function eventually(check: () => Promise<boolean>, ms = 3000) {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) return false;
      await new Promise((r) => setTimeout(r, 50));
    }
    return true;
  }

  describe('single file', () => {
    it('201 with exactly the upload shape; title defaults to the file name; the blob and a job exist', async () => {
      const bytes = await readFile(samplePath('sample.pdf'));
      const r = await post(owner.key, await form({ file: [['file', 'sample.pdf']] }));
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(Object.keys(r.body).sort(), UPLOAD_FIELDS);
      assert.ok(!('chunks_count' in r.body) && !('collection_slug' in r.body));
      assert.match(r.body.uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.equal(r.body.title, 'sample.pdf');
      assert.equal(r.body.source_type, 'pdf');
      assert.equal(r.body.status, 'pending');
      assert.equal(r.body.original_filename, 'sample.pdf');
      assert.equal(r.body.file_size, bytes.length);
      assert.deepEqual(r.body.tags, []);
      assert.equal(r.body.collection_name, coll.name);
      assert.ok(!Number.isNaN(Date.parse(r.body.created_at)) && r.body.created_at.endsWith('Z'));

      const [row] = await d.deps.sql<
        { blob_key: string; status: string }[]
      >`select blob_key, status from documents where id = ${r.body.uuid}`;
      assert.equal(row?.status, 'pending');
      assert.deepEqual(await readFile(path.join(d.dataDir, 'blobs', row!.blob_key)), bytes, 'stored bytes equal the upload');
      const jobs = await d.deps
        .sql`select 1 from graphile_worker.jobs where task_identifier = 'process_document' and key = ${'process:' + r.body.uuid}`;
      assert.equal(jobs.length, 1, 'processing job enqueued with the row');
    });

    it('title, tags ("a, b,,c" → [a,b,c]) and a source_type override are honoured', async () => {
      const r = await post(
        owner.key,
        await form({ file: [['file', 'sample.md']], title: '  My notes ', tags: 'a, b,,c', source_type: 'txt' }),
      );
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.title, 'My notes');
      assert.deepEqual(r.body.tags, ['a', 'b', 'c']);
      assert.equal(r.body.source_type, 'txt');
      assert.equal(r.body.original_filename, 'sample.md');
    });

    it('every sample type is accepted and detected from its extension', async () => {
      const f = new FormData();
      for (const s of SAMPLES) f.append('files', await sampleBlob(s.file, s.mediaType), s.file);
      const r = await post(owner.key, f);
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.total_skipped, 0, JSON.stringify(r.body.skipped));
      assert.deepEqual(r.body.uploaded.map((u: { source_type: string }) => u.source_type).sort(), SAMPLES.map((s) => s.type).sort());
    });

    it('a write-scoped key can upload', async () => {
      const k = await req('POST', '/api/v1/keys/', { key: owner.key, json: { name: 'writer', collections: [coll.slug] } });
      assert.equal(k.status, 201, k.text);
      const g = await req('POST', `/api/v1/keys/${k.body.uuid}/collections/`, {
        key: owner.key,
        json: { collection: coll.slug, permission: 'write' },
      });
      assert.ok(g.status === 200 || g.status === 201, g.text);
      const r = await post(k.body.key, await form({ file: [['file', 'sample.txt']] }));
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.status, 'pending');
    });
  });

  describe('batch', () => {
    it('stores the good files and skips the bad ones with reasons', async () => {
      const before = (await docRows()).length;
      const filesBefore = (await blobFiles()).length;
      const r = await post(
        owner.key,
        await form({
          files: [
            ['files', 'sample.txt'],
            ['files', BAD_FILES.imagePng],
            ['files', 'sample.csv'],
            ['files', BAD_FILES.fakePdf],
            ['files', BAD_FILES.fakeDocx],
          ],
          tags: 'batch',
        }),
      );
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(Object.keys(r.body).sort(), ['skipped', 'total_skipped', 'total_uploaded', 'uploaded']);
      assert.equal(r.body.total_uploaded, 2);
      assert.equal(r.body.total_skipped, 3);
      assert.deepEqual(r.body.uploaded.map((u: { title: string }) => u.title).sort(), ['sample.csv', 'sample.txt']);
      for (const u of r.body.uploaded) {
        assert.deepEqual(Object.keys(u).sort(), UPLOAD_FIELDS);
        assert.equal(u.status, 'pending');
        assert.deepEqual(u.tags, ['batch']);
      }
      assert.deepEqual(
        r.body.skipped.map((s: { filename: string }) => s.filename).sort(),
        [BAD_FILES.fakeDocx, BAD_FILES.fakePdf, BAD_FILES.imagePng].sort(),
      );
      for (const s of r.body.skipped) assert.ok(typeof s.reason === 'string' && s.reason.length > 5, JSON.stringify(s));
      assert.match(r.body.skipped.find((s: { filename: string }) => s.filename === BAD_FILES.imagePng).reason, /unsupported/i);
      // Each skipped file carries the code a single upload of that file is refused with.
      const codes = Object.fromEntries(r.body.skipped.map((s: { filename: string; code: string }) => [s.filename, s.code]));
      assert.deepEqual(codes, {
        [BAD_FILES.imagePng]: 'UNSUPPORTED_FILE_TYPE',
        [BAD_FILES.fakePdf]: 'INVALID_FILE_CONTENT',
        [BAD_FILES.fakeDocx]: 'INVALID_FILE_CONTENT',
      });
      for (const file of [BAD_FILES.imagePng, BAD_FILES.fakePdf, BAD_FILES.fakeDocx])
        assertError(await post(owner.key, await form({ files: [['file', file]] })), 400, codes[file]);
      assert.equal((await docRows()).length, before + 2);
      assert.ok(await eventually(async () => (await blobFiles()).length === filesBefore + 2), 'blobs of skipped files are removed');
    });

    it('400 NO_FILES_PROVIDED for a `files` field without a file part, and for batch=true', async () => {
      const a = new FormData();
      a.append('files', 'not a file');
      assertError(await post(owner.key, a), 400, 'NO_FILES_PROVIDED');
      const b = new FormData();
      b.append('batch', 'true');
      assertError(await post(owner.key, b), 400, 'NO_FILES_PROVIDED');
    });

    it("replies with a batch's documents in the order of its files, each stored as sent", async () => {
      const ordered = await createCollection(owner.key);
      const names = Array.from({ length: 40 }, (_, i) => `o-${String(39 - i).padStart(2, '0')}.txt`);
      const f = new FormData();
      for (const name of names) f.append('files', new Blob([`contents of ${name}`], { type: 'text/plain' }), name);
      const r = await post(owner.key, f, ordered.uuid);
      assert.equal(r.status, 201, r.text.slice(0, 300));
      const uploaded = r.body.uploaded as { uuid: string; original_filename: string; file_size: number; status: string }[];
      assert.deepEqual(
        uploaded.map((u) => u.original_filename),
        names,
      );
      assert.ok(uploaded.every((u) => u.status !== 'failed'));
      const rows = await d.deps.sql<{ id: string; original_filename: string; file_size: number }[]>`
        select id, original_filename, file_size::int as file_size from documents where collection_id = ${ordered.uuid}`;
      const byId = new Map(rows.map((row) => [row.id, row]));
      assert.equal(rows.length, names.length);
      for (const u of uploaded) {
        assert.equal(byId.get(u.uuid)?.original_filename, u.original_filename);
        assert.equal(u.file_size, Buffer.byteLength(`contents of ${u.original_filename}`));
      }
    });

    it('100 files are accepted; 101 give 400 VALIDATION_FAILED and nothing is kept', async () => {
      const big = await createCollection(owner.key);
      const ok = new FormData();
      for (let i = 0; i < 100; i++) ok.append('files', new Blob([`file ${i}`], { type: 'text/plain' }), `f${i}.txt`);
      const accepted = await post(owner.key, ok, big.uuid);
      assert.equal(accepted.status, 201, accepted.text.slice(0, 300));
      assert.equal(accepted.body.total_uploaded, 100);

      const before = (await docRows()).length;
      const f = new FormData();
      for (let i = 0; i < 101; i++) f.append('files', new Blob([`file ${i}`], { type: 'text/plain' }), `f${i}.txt`);
      const r = await post(owner.key, f);
      assertError(r, 400, 'VALIDATION_FAILED');
      assert.ok(r.body.fields?.files, r.text);
      assert.equal((await docRows()).length, before);
    });
  });

  describe('text and URL documents', () => {
    it('text via multipart and via JSON', async () => {
      const f = new FormData();
      f.append('source_type', 'text');
      f.append('content', 'Pasted words about otters.\nSecond line.');
      f.append('tags', 'x,y');
      const a = await post(owner.key, f);
      assert.equal(a.status, 201, a.text);
      assert.deepEqual(Object.keys(a.body).sort(), UPLOAD_FIELDS);
      assert.equal(a.body.source_type, 'text');
      assert.equal(a.body.status, 'pending');
      assert.deepEqual(a.body.tags, ['x', 'y']);
      assert.equal(a.body.title, 'Pasted words about otters.');

      const b = await post(owner.key, undefined, coll.uuid, {
        source_type: 'text',
        content: 'JSON body text',
        title: 'From JSON',
        tags: 'j',
      });
      assert.equal(b.status, 201, b.text);
      assert.equal(b.body.source_type, 'text');
      assert.equal(b.body.title, 'From JSON');
      assert.deepEqual(b.body.tags, ['j']);
      const [row] = await d.deps.sql<{ waiting: string | null; blob_key: string | null }[]>`
        select (select t.content from document_texts t where t.document_id = d.id) as waiting, blob_key
          from documents d where id = ${b.body.uuid}`;
      // Kept for processing in document_texts, not in the documents row (migration 110).
      assert.equal(row?.waiting, 'JSON body text');
      assert.equal(row?.blob_key, null);
    });

    it('URL via multipart and via JSON (fetched later by the worker)', async () => {
      const f = new FormData();
      f.append('source_type', 'url');
      f.append('url', 'https://example.com/guides/page.html');
      const a = await post(owner.key, f);
      assert.equal(a.status, 201, a.text);
      assert.equal(a.body.source_type, 'url');
      assert.equal(a.body.status, 'pending');
      const b = await post(owner.key, undefined, coll.uuid, { source_type: 'url', url: 'https://example.org/', title: 'Example' });
      assert.equal(b.status, 201, b.text);
      assert.equal(b.body.title, 'Example');
      const [row] = await d.deps.sql<{ source_url: string }[]>`select source_url from documents where id = ${b.body.uuid}`;
      assert.equal(row?.source_url, 'https://example.org/');
    });

    it('400 URL_REQUIRED without a url (multipart and JSON)', async () => {
      const f = new FormData();
      f.append('source_type', 'url');
      assertError(await post(owner.key, f), 400, 'URL_REQUIRED');
      assertError(await post(owner.key, undefined, coll.uuid, { source_type: 'url' }), 400, 'URL_REQUIRED');
      assertError(await post(owner.key, undefined, coll.uuid, { source_type: 'url', url: '   ' }), 400, 'URL_REQUIRED');
    });

    it('400 VALIDATION_FAILED for private, loopback, link-local and non-http URLs (ALLOW_PRIVATE_URLS unset)', async () => {
      const before = (await docRows()).length;
      for (const url of [
        'http://127.0.0.1/',
        'http://localhost:8080/x',
        'http://10.1.2.3/',
        'http://192.168.0.1/',
        'http://172.16.5.4/',
        'http://169.254.169.254/latest/meta-data/',
        'http://[::1]/',
        'http://0.0.0.0/',
        'http://[::ffff:127.0.0.1]/',
        'file:///etc/passwd',
        'ftp://example.com/x',
        'https://user:pw@example.com/',
        'not a url',
        `https://example.com/${'a'.repeat(2100)}`,
      ]) {
        const r = await post(owner.key, undefined, coll.uuid, { source_type: 'url', url });
        assertError(r, 400, 'VALIDATION_FAILED');
        assert.ok(r.body.fields?.url, `${url}: ${r.text}`);
      }
      assert.equal((await docRows()).length, before);
    });

    it('400 VALIDATION_FAILED for a JSON upload that is not text or url, or text without content', async () => {
      assertError(await post(owner.key, undefined, coll.uuid, { source_type: 'pdf' }), 400, 'VALIDATION_FAILED');
      assertError(await post(owner.key, undefined, coll.uuid, { source_type: 'text', content: '  ' }), 400, 'VALIDATION_FAILED');
    });
  });

  describe('400 errors', () => {
    it('NO_FILE_PROVIDED: no file part, or an empty file input', async () => {
      const a = new FormData();
      a.append('title', 'lonely title');
      assertError(await post(owner.key, a), 400, 'NO_FILE_PROVIDED');
      const b = new FormData();
      b.append('file', new Blob([]), '');
      assertError(await post(owner.key, b), 400, 'NO_FILE_PROVIDED');
    });

    it('UNSUPPORTED_FILE_TYPE for a PNG, nothing stored', async () => {
      const before = (await docRows()).length;
      const files = (await blobFiles()).length;
      assertError(await post(owner.key, await form({ file: [['file', BAD_FILES.imagePng]] })), 400, 'UNSUPPORTED_FILE_TYPE');
      assertError(await post(owner.key, await form({ file: [['file', 'sample.txt']], source_type: 'exe' })), 400, 'UNSUPPORTED_FILE_TYPE');
      assert.equal((await docRows()).length, before);
      assert.ok(await eventually(async () => (await blobFiles()).length === files));
    });

    it('INVALID_FILE_CONTENT for a .pdf that is not a PDF and a .docx that is not a zip', async () => {
      const before = (await docRows()).length;
      const files = (await blobFiles()).length;
      for (const bad of [BAD_FILES.fakePdf, BAD_FILES.fakeDocx]) {
        assertError(await post(owner.key, await form({ file: [['file', bad]] })), 400, 'INVALID_FILE_CONTENT');
      }
      // A declared type overriding the extension is checked too.
      assertError(await post(owner.key, await form({ file: [['file', 'sample.txt']], source_type: 'pdf' })), 400, 'INVALID_FILE_CONTENT');
      assert.equal((await docRows()).length, before);
      assert.ok(await eventually(async () => (await blobFiles()).length === files));
    });

    it('FILE_TOO_LARGE while streaming a >50 MB body: refused early, nothing kept', async () => {
      const before = (await docRows()).length;
      const files = (await blobFiles()).length;
      const boundary = '----docsift' + Date.now();
      const head = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.txt"\r\nContent-Type: text/plain\r\n\r\n`,
      );
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
      const total = 60 * MB;
      const piece = Buffer.alloc(256 * 1024, 'a');
      let produced = 0;
      let sentHead = false;
      const stream = new ReadableStream<Uint8Array>({
        pull(ctrl) {
          if (!sentHead) {
            sentHead = true;
            ctrl.enqueue(head);
          } else if (produced < total) {
            produced += piece.length;
            ctrl.enqueue(piece);
          } else {
            ctrl.enqueue(tail);
            ctrl.close();
          }
        },
      });
      const ac = new AbortController();
      const res = await fetch(`${d.url}/api/v1/collections/${coll.uuid}/documents/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: stream,
        duplex: 'half',
        signal: ac.signal,
      } as RequestInit);
      const producedAtResponse = produced;
      const body = await res.json();
      ac.abort();
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(body.code, 'FILE_TOO_LARGE');
      assert.ok(producedAtResponse < total, `response arrived after ${producedAtResponse} of ${total} bytes were produced`);
      assert.ok(producedAtResponse >= 50 * MB, 'the limit is 50 MiB');
      assert.equal((await docRows()).length, before, 'no document row');
      assert.ok(await eventually(async () => (await blobFiles()).length === files), `no blob kept: ${await blobFiles()}`);
    });

    it('in a batch, a file over 50 MB is skipped while the others are stored', async () => {
      const files = (await blobFiles()).length;
      const f = new FormData();
      f.append('files', new Blob([Buffer.alloc(50 * MB + 1, 'b')], { type: 'text/plain' }), 'huge.txt');
      f.append('files', await sampleBlob('sample.txt'), 'sample.txt');
      const r = await post(owner.key, f);
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(
        r.body.uploaded.map((u: { title: string }) => u.title),
        ['sample.txt'],
      );
      assert.equal(r.body.skipped[0]?.filename, 'huge.txt');
      assert.match(r.body.skipped[0]?.reason, /50 MiB/);
      assert.equal(r.body.skipped[0]?.code, 'FILE_TOO_LARGE', 'the code a single upload of it gets');
      assert.ok(await eventually(async () => (await blobFiles()).length === files + 1), 'only the small file is kept');
    });
  });

  describe('access', () => {
    it('403 WRITE_ACCESS_REQUIRED for a read-scoped key', async () => {
      const k = await req('POST', '/api/v1/keys/', { key: owner.key, json: { name: 'reader', collections: [coll.slug] } });
      assert.equal(k.status, 201, k.text);
      const before = (await docRows()).length;
      assertError(await post(k.body.key, await form({ file: [['file', 'sample.txt']] })), 403, 'WRITE_ACCESS_REQUIRED');
      assertError(await post(k.body.key, undefined, coll.uuid, { source_type: 'text', content: 'x' }), 403, 'WRITE_ACCESS_REQUIRED');
      assert.equal((await docRows()).length, before);
    });

    it('403 WRITE_ACCESS_REQUIRED for a subscriber of a public collection', async () => {
      const pub = await createCollection(owner.key, true);
      assert.equal((await req('POST', `/api/v1/collections/${pub.slug}/subscribe/`, { key: other.key })).status, 200);
      assertError(await post(other.key, await form({ file: [['file', 'sample.txt']] }), pub.uuid), 403, 'WRITE_ACCESS_REQUIRED');
      assertError(await post(other.key, undefined, pub.uuid, { source_type: 'text', content: 'x' }), 403, 'WRITE_ACCESS_REQUIRED');
      assert.equal((await docRows(pub.uuid)).length, 0);
    });

    it("404 COLLECTION_NOT_FOUND for another tenant's collection and a malformed id", async () => {
      assertError(await post(other.key, await form({ file: [['file', 'sample.txt']] })), 404, 'COLLECTION_NOT_FOUND');
      assertError(await post(other.key, undefined, coll.uuid, { source_type: 'text', content: 'x' }), 404, 'COLLECTION_NOT_FOUND');
      assertError(await post(owner.key, await form({ file: [['file', 'sample.txt']] }), 'not-a-uuid'), 404, 'COLLECTION_NOT_FOUND');
    });

    it('a slug in the path: 404 COLLECTION_NOT_FOUND whose message names the uuid to use; never for a collection the key cannot see', async () => {
      const before = (await docRows()).length;
      const bySlug = await post(owner.key, await form({ file: [['file', 'sample.txt']] }), coll.slug);
      assertError(bySlug, 404, 'COLLECTION_NOT_FOUND');
      assert.match(bySlug.body.error, new RegExp(`"${coll.slug}" is a slug.*${coll.uuid}`));
      const json = await post(owner.key, undefined, coll.slug, { source_type: 'text', content: 'x' });
      assertError(json, 404, 'COLLECTION_NOT_FOUND');
      assert.ok(json.body.error.includes(coll.uuid), json.text);
      // Another tenant's slug: the plain answer, so neither the uuid nor the existence leaks.
      const theirs = await post(other.key, await form({ file: [['file', 'sample.txt']] }), coll.slug);
      assertError(theirs, 404, 'COLLECTION_NOT_FOUND');
      assert.equal(theirs.body.error, 'Collection not found.');
      assert.equal(
        (await post(owner.key, await form({ file: [['file', 'sample.txt']] }), 'no-such-slug')).body.error,
        'Collection not found.',
      );
      assert.equal((await docRows()).length, before, 'nothing stored');
    });

    it('401 without a key', async () => {
      const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { body: await form({ file: [['file', 'sample.txt']] }) });
      assertError(r, 401, 'AUTHENTICATION_REQUIRED');
    });
  });

  // Last: it breaks the blob directory for the duration of the test.
  it('500 UPLOAD_FAILED when storage cannot be written; no document row is left', async () => {
    const blobs = path.join(d.dataDir, 'blobs');
    const moved = path.join(d.dataDir, 'blobs-moved');
    await rename(blobs, moved);
    await writeFile(blobs, 'not a directory');
    try {
      const before = (await docRows()).length;
      assertError(await post(owner.key, await form({ file: [['file', 'sample.txt']] })), 500, 'UPLOAD_FAILED');
      // Storage being down is not one file's fault: a batch fails as a whole too.
      assertError(
        await post(
          owner.key,
          await form({
            files: [
              ['files', 'sample.txt'],
              ['files', 'sample.md'],
            ],
          }),
        ),
        500,
        'UPLOAD_FAILED',
      );
      assert.equal((await docRows()).length, before);
    } finally {
      await rm(blobs, { force: true });
      await rename(moved, blobs);
    }
  });
});
