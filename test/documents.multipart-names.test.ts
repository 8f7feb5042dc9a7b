// A multipart part must be named (RFC 7578 §4.2: Content-Disposition: form-data; name="…"). A part
// whose disposition cannot be read (`name=` with no value, a bare `name`, no disposition at all) is
// refused exactly like `name=""`, on every route that takes multipart: the API's upload and
// replace, and the web UI's upload and replace.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { admin } from './helpers/browser.js';
import { multipartBody, type Part } from './helpers/chaos.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { samplePath } from './fixtures/samples.js';
import { webSession } from './helpers/web-session.js';

const BOUNDARY = 'namesBoundary42';
const PASSWORD = 'correct horse battery staple';

describe('multipart part names: one rule on every multipart route', () => {
  let d: TestDaemon;
  let t: Tenant;
  let other: Tenant;
  let req: ReturnType<typeof http>;
  let coll: { uuid: string };
  let docId: string;
  let web: { cookie: string; csrf: string };
  const rows = async () => (await d.deps.sql<{ n: number }[]>`select count(*)::int as n from documents`)[0]!.n;

  before(async () => {
    d = await startTestDaemon({ label: 'mpnames' });
    req = http(d.url);
    t = await createTenant(d, 'mpn');
    other = await createTenant(d, 'mpo');
    await admin(d, ['set-password', '--email', t.email, '--password-stdin'], PASSWORD);
    web = await webSession(d, t.email, PASSWORD);
    coll = (await req('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Names' } })).body;
    const f = new FormData();
    f.append('file', new Blob([new Uint8Array(await readFile(samplePath('sample.txt')))]), 'keeper.txt');
    docId = (await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: t.key, body: f })).body.uuid;
    assert.ok(docId);
  });
  after(async () => d?.close());

  const routes = {
    'API upload': { path: () => `/api/v1/collections/${coll.uuid}/documents/`, web: false, file: 'files' },
    'API replace': { path: () => `/api/v1/documents/${docId}/replace/`, web: false, file: 'file' },
    'web upload': { path: () => `/app/collections/${coll.uuid}/documents`, web: true, file: 'files' },
    'web replace': { path: () => `/app/documents/${docId}/replace`, web: true, file: 'file' },
  } as const;

  async function send(route: keyof typeof routes, parts: Part[], key = t.key) {
    const r = routes[route];
    const headers: Record<string, string> = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
    if (r.web) Object.assign(headers, { cookie: web.cookie, 'x-csrf-token': web.csrf, accept: 'application/json' });
    const res = await fetch(d.url + r.path(), {
      method: 'POST',
      headers: r.web ? headers : { ...headers, authorization: `Bearer ${key}` },
      body: new Uint8Array(multipartBody(BOUNDARY, parts)),
    });
    const text = await res.text();
    return { status: res.status, text, body: JSON.parse(text) };
  }

  // The dispositions of a part that has no usable name; `name=""` is the one refused before.
  const nameless = ['form-data; name=""', 'form-data; name=', 'form-data; name', 'form-data'];
  const field = (disposition: string): Part => ({ name: '', rawHeaders: `Content-Disposition: ${disposition}\r\n`, data: 'legal' });
  const file = (disposition: string): Part => ({
    name: '',
    rawHeaders: `Content-Disposition: ${disposition}; filename="a.txt"\r\nContent-Type: text/plain\r\n`,
    data: 'nameless file',
  });

  for (const route of Object.keys(routes) as (keyof typeof routes)[]) {
    it(`${route}: a nameless field beside a good file is refused like name=""`, async () => {
      const before = await rows();
      const good: Part = { name: routes[route].file, filename: 'b.txt', type: 'text/plain', data: 'a good file' };
      const answers = [];
      for (const disposition of nameless) {
        const r = await send(route, [field(disposition), good]);
        assert.equal(r.status, 400, `${disposition}: ${r.text}`);
        assert.equal(r.body.code, 'VALIDATION_FAILED', `${disposition}: ${r.text}`);
        answers.push(r.body);
      }
      for (const [i, a] of answers.entries()) assert.deepEqual(a, answers[0], nameless[i]);
      assert.equal(await rows(), before, 'nothing stored');
    });

    it(`${route}: a nameless file part is refused like name=""`, async () => {
      const before = await rows();
      const answers = [];
      for (const disposition of nameless.slice(0, 3)) {
        const r = await send(route, [file(disposition)]);
        assert.equal(r.status, 400, `${disposition}: ${r.text}`);
        assert.equal(r.body.code, 'VALIDATION_FAILED', `${disposition}: ${r.text}`);
        answers.push(r.body);
      }
      for (const [i, a] of answers.entries()) assert.deepEqual(a, answers[0], nameless[i]);
      assert.equal(await rows(), before, 'nothing stored');
    });
  }

  it('a part with no Content-Disposition at all, or one that is not form-data, is refused too', async () => {
    const good: Part = { name: 'files', filename: 'b.txt', type: 'text/plain', data: 'a good file' };
    const expected = (await send('API upload', [field('form-data; name=""'), good])).body;
    for (const rawHeaders of ['Content-Type: text/plain\r\n', 'Content-Disposition: attachment; name="tags"\r\n']) {
      const r = await send('API upload', [{ name: '', rawHeaders, data: 'x' }, good]);
      assert.deepEqual(r.body, expected, rawHeaders);
    }
  });

  it('named parts still pass, with a quoted or a token name, and an epilogue after the closing boundary', async () => {
    const before = await rows();
    const body = Buffer.concat([
      multipartBody(BOUNDARY, [
        { name: '', rawHeaders: 'Content-Disposition: form-data; name=tags\r\n', data: 'x, y' },
        { name: 'files', filename: 'c.txt', type: 'text/plain', data: 'a named file' },
      ]),
      Buffer.from(`epilogue naming --${BOUNDARY} again\r\n--${BOUNDARY}\r\n`),
    ]);
    const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, {
      key: t.key,
      body: new Uint8Array(body),
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.body.uploaded[0].tags, ['x', 'y']);
    assert.equal(await rows(), before + 1);
  });

  it('cross-tenant: another tenant’s key gets 404 for the collection, whatever its parts are named', async () => {
    for (const parts of [[field('form-data; name=')], [{ name: 'files', filename: 'd.txt', type: 'text/plain', data: 'x' }]]) {
      const r = await send('API upload', parts, other.key);
      assert.equal(r.status, 404, r.text);
      assert.equal(r.body.code, 'COLLECTION_NOT_FOUND');
    }
  });
});
