// Chaos: malformed multipart bodies and clients that vanish mid-file, on upload and on replace.
// The daemon runs in this process, so an unhandled stream 'error' would fail this file outright.
// Every fault ends with the same check: the process still serves, no document row was added, the
// blob store holds exactly the blobs that rows reference (no temp file), and no fd is left open.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { samplePath } from './fixtures/samples.js';
import { blobFiles, multipartBody, openFdsUnder, rawRequest, until, type Part } from './helpers/chaos.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const BOUNDARY = '----chaosBoundary7MA4YWxkTrZu0gW';

/** Deterministic PRNG (mulberry32), so a failing mutation can be replayed. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One random corruption of a multipart body: cut, delete, duplicate, flip or inject bytes. */
function mutate(body: Buffer, rnd: () => number): Buffer {
  const at = Math.floor(rnd() * body.length);
  const span = 1 + Math.floor(rnd() * 64);
  switch (Math.floor(rnd() * 6)) {
    case 0:
      return body.subarray(0, at);
    case 1:
      return Buffer.concat([body.subarray(0, at), body.subarray(at + span)]);
    case 2:
      return Buffer.concat([body.subarray(0, at + span), body.subarray(at)]);
    case 3: {
      const b = Buffer.from(body);
      for (let i = 0; i < 8; i++) b[Math.floor(rnd() * b.length)] = Math.floor(rnd() * 256);
      return b;
    }
    case 4: {
      const junk = ['\r\n', `--${BOUNDARY}\r\n`, `--${BOUNDARY}--`, 'Content-Disposition: form-data\r\n', '\r\n\r\n', '\u0000'];
      return Buffer.concat([body.subarray(0, at), Buffer.from(junk[Math.floor(rnd() * junk.length)]!), body.subarray(at)]);
    }
    default:
      return Buffer.concat([body.subarray(0, at), Buffer.from(body.subarray(at).toString('latin1').replace(/\r\n/, '\n'), 'latin1')]);
  }
}

describe('chaos: malformed multipart and vanishing clients', () => {
  let d: TestDaemon;
  let t: Tenant;
  let req: ReturnType<typeof http>;
  let coll: { uuid: string };
  let keeper: { uuid: string; bytes: Buffer };
  let txt: Buffer<ArrayBuffer>;
  let pdf: Buffer<ArrayBuffer>;
  // node:test turns an uncaught exception into a report on some earlier hook; this file counts them
  // itself, because in a real daemon each one would have ended the process.
  const uncaught: string[] = [];
  const onUncaught = (err: unknown) => uncaught.push(String(err));

  before(async () => {
    process.on('uncaughtException', onUncaught);
    d = await startTestDaemon({ label: 'chaos_multipart' });
    t = await createTenant(d, 'chaos');
    req = http(d.url);
    coll = (await req('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Chaos' } })).body;
    txt = await readFile(samplePath('sample.txt'));
    pdf = await readFile(samplePath('sample.pdf'));
    const f = new FormData();
    f.append('file', new Blob([pdf]), 'keeper.pdf');
    const up = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: t.key, body: f });
    assert.equal(up.status, 201, up.text);
    keeper = { uuid: up.body.uuid, bytes: pdf };
  });
  after(async () => {
    process.off('uncaughtException', onUncaught);
    await d?.close();
  });

  const uploadPath = () => `/api/v1/collections/${coll.uuid}/documents/`;
  const replacePath = () => `/api/v1/documents/${keeper.uuid}/replace/`;
  const send = (p: string, body: Buffer) =>
    req('POST', p, { key: t.key, body: new Uint8Array(body), headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` } });
  const rowCount = async () => (await d.deps.sql<{ n: number }[]>`select count(*)::int as n from documents`)[0]!.n;
  const referenced = async () =>
    (
      await d.deps.sql<{ k: string }[]>`
        select blob_key as k from documents where blob_key is not null union select blob_key from orphan_blobs`
    )
      .map((r) => r.k)
      .sort();

  /** Nothing lost, duplicated or leaked: rows as expected, blobs on disk = referenced blobs, no fd, still serving. */
  async function assertClean(rows: number) {
    assert.equal((await req('GET', '/healthz')).status, 200, 'the process still serves');
    assert.deepEqual(uncaught.splice(0), [], 'no uncaught exception (each would have ended a real daemon)');
    assert.equal(await rowCount(), rows, 'no document row added');
    const want = await referenced();
    const diff = async () => {
      const have = await blobFiles(d.dataDir);
      return { extra: have.filter((f) => !want.includes(f)), missing: want.filter((f) => !have.includes(f)) };
    };
    await until(async () => ((await diff()).extra.length === 0 ? true : undefined), 5000, 'no unreferenced blob or temp file').catch(
      async (err) => assert.fail(`${err.message}: ${JSON.stringify(await diff())}`),
    );
    assert.deepEqual((await diff()).missing, [], 'no referenced blob is missing');
    await until(async () => ((await openFdsUnder(d.dataDir)).length === 0 ? true : undefined), 5000, 'no open fd under the data dir').catch(
      async (err) => assert.fail(`${err.message}: ${JSON.stringify(await openFdsUnder(d.dataDir))}`),
    );
    const [row] = await d.deps.sql<{ blob_key: string }[]>`select blob_key from documents where id = ${keeper.uuid}`;
    assert.ok(await readFile(path.join(d.dataDir, 'blobs', row!.blob_key)), "the existing document's file is intact");
  }

  function assertEnvelope(r: { status: number; body: any; text: string }, codes: string[]) {
    assert.equal(r.status, 400, r.text);
    assert.ok(codes.includes(r.body.code), r.text);
    assert.equal(typeof r.body.error, 'string');
  }

  for (const route of ['upload', 'replace'] as const) {
    describe(`on ${route}`, () => {
      const target = () => (route === 'upload' ? uploadPath() : replacePath());

      it('a body without its closing boundary: 400, nothing kept', async () => {
        const rows = await rowCount();
        const body = multipartBody(BOUNDARY, [{ name: 'file', filename: 'a.txt', type: 'text/plain', data: txt }], { close: false });
        assertEnvelope(await send(target(), body), ['VALIDATION_FAILED']);
        // Cut inside the file's bytes too, and right after the part headers.
        const cut = multipartBody(BOUNDARY, [{ name: 'file', filename: 'a.pdf', type: 'application/pdf', data: pdf }]);
        assertEnvelope(await send(target(), cut.subarray(0, cut.length / 2)), ['VALIDATION_FAILED']);
        assertEnvelope(await send(target(), cut.subarray(0, cut.indexOf('\r\n\r\n') + 4)), ['VALIDATION_FAILED']);
        await assertClean(rows);
      });

      it('missing or malformed part headers: 400, nothing kept', async () => {
        const rows = await rowCount();
        const noDisposition: Part = { name: 'file', rawHeaders: 'Content-Type: text/plain\r\n', data: txt };
        assertEnvelope(await send(target(), multipartBody(BOUNDARY, [noDisposition])), ['NO_FILE_PROVIDED', 'VALIDATION_FAILED']);
        const garbage: Part = { name: 'file', rawHeaders: `Content-Disposition form-data name=file\r\n${'x'.repeat(20_000)}`, data: txt };
        assertEnvelope(await send(target(), multipartBody(BOUNDARY, [garbage])), ['NO_FILE_PROVIDED', 'VALIDATION_FAILED']);
        const unterminated = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n`);
        assertEnvelope(await send(target(), unterminated), ['VALIDATION_FAILED']);
        await assertClean(rows);
      });

      it('parts without a name= (a field, a file): 400 with the envelope, the process keeps serving', async () => {
        const rows = await rowCount();
        // The 60-byte request that ended the API process: a field part whose disposition has no name.
        const nameless = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data\r\n\r\nv\r\n--${BOUNDARY}--\r\n`);
        assertEnvelope(await send(target(), nameless), ['NO_FILE_PROVIDED', 'VALIDATION_FAILED']);
        const namelessFile: Part = { name: '', rawHeaders: 'Content-Disposition: form-data; filename="a.txt"\r\n', data: txt };
        assertEnvelope(await send(target(), multipartBody(BOUNDARY, [namelessFile])), ['NO_FILE_PROVIDED', 'VALIDATION_FAILED']);
        await assertClean(rows);
      });

      it('a field part in a character set busboy cannot decode: 400, not 500 (found by test/fuzz.requests.test.ts)', async () => {
        const rows = await rowCount();
        const odd: Part = {
          name: 'title',
          rawHeaders: 'Content-Disposition: form-data; name="title"\r\nContent-Type: text/plain; charset=x-unknown\r\n',
          data: 'v',
        };
        const file: Part = { name: 'file', filename: 'a.txt', type: 'text/plain', data: txt };
        assertEnvelope(await send(target(), multipartBody(BOUNDARY, [odd, file])), ['VALIDATION_FAILED']);
        await assertClean(rows);
      });

      it('a part handler that throws answers 500 with the envelope, and the process keeps serving', async () => {
        const rows = await rowCount();
        const put = d.deps.blobs.put;
        // A synchronous throw inside busboy's 'file' event: outside the handler's own promise.
        d.deps.blobs.put = () => {
          throw new Error('deliberate part-handler failure');
        };
        try {
          const body = multipartBody(BOUNDARY, [
            { name: route === 'upload' ? 'files' : 'file', filename: 'a.txt', type: 'text/plain', data: txt },
          ]);
          const r = await send(target(), body);
          assert.equal(r.status, 500, r.text);
          assert.equal(r.body.code, 'INTERNAL_ERROR', r.text);
          assert.ok(!r.text.includes('deliberate'), 'no internal detail leaks');
        } finally {
          d.deps.blobs.put = put;
        }
        await assertClean(rows);
      });

      it('80 random mutations of a valid body: never a 5xx, never a crash, nothing leaked', async () => {
        const rows = await rowCount();
        const parts: Part[] =
          route === 'upload'
            ? [
                { name: 'title', data: 'chaos' },
                { name: 'files', filename: 'a.pdf', type: 'application/pdf', data: pdf },
                { name: 'files', filename: 'b.txt', type: 'text/plain', data: txt },
                { name: 'tags', data: 'x,y' },
              ]
            : [
                { name: 'file', filename: 'a.pdf', type: 'application/pdf', data: pdf },
                { name: 'title', data: 'chaos' },
              ];
        const valid = multipartBody(BOUNDARY, parts);
        const rnd = prng(route === 'upload' ? 19 : 91);
        let created = 0;
        for (let i = 0; i < 80; i++) {
          let body = mutate(valid, rnd);
          if (rnd() < 0.3) body = mutate(body, rnd);
          const r = await send(target(), body);
          assert.ok(r.status < 500, `mutation ${i}: ${r.status} ${r.text}`);
          if (r.status >= 400) assert.equal(typeof r.body.code, 'string', `mutation ${i}: envelope, got ${r.text}`);
          if (route === 'upload' && r.status === 201) created += r.body.uploaded ? r.body.total_uploaded : 1;
        }
        await assertClean(rows + created);
      });

      it('a client that disconnects mid-file leaves no temp file and no open fd', async () => {
        const rows = await rowCount();
        const before = await blobFiles(d.dataDir);
        const fileHead = multipartBody(BOUNDARY, [
          { name: route === 'upload' ? 'files' : 'file', filename: 'a.pdf', type: 'application/pdf', data: pdf },
        ]);
        // For the batch, one complete file first: it is stored before the client vanishes, and must go too.
        const head =
          route === 'upload'
            ? Buffer.concat([
                fileHead.subarray(0, fileHead.lastIndexOf(`--${BOUNDARY}--`)),
                Buffer.from(
                  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`,
                ),
              ])
            : Buffer.from(
                `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`,
              );
        const c = rawRequest(d.url, {
          method: 'POST',
          path: target(),
          headers: {
            authorization: `Bearer ${t.key}`,
            'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
            'content-length': String(head.length + 10 * 1024 * 1024),
          },
        });
        try {
          await c.write(head);
          // More than the 64 KB a blob write gathers in memory first, so it streams to a temp file.
          await c.write(Buffer.alloc(256 * 1024, 'z'));
          // The file is being written: a temp file (and its fd) exists now.
          await until(
            async () => ((await blobFiles(d.dataDir)).some((f) => f.includes('.tmp-')) ? true : undefined),
            5000,
            'the temp file',
          );
          assert.ok((await openFdsUnder(d.dataDir)).length > 0, 'the temp file is open while the upload runs');
          if (route === 'upload') assert.ok((await blobFiles(d.dataDir)).length >= before.length + 2, 'the first file was stored');
        } finally {
          // Also when a check above fails: an open upload would keep the daemon from closing.
          c.socket.destroy();
        }
        await assertClean(rows);
      });
    });
  }
});
