// Cursors of the keyset-paginated lists (/documents/, /webhooks/deliveries/, /keys/usage/): a cursor
// the server did not produce is 400 VALIDATION_FAILED with the envelope, never a 500 from PostgreSQL
// (year 0, negative years, years after 9999, impossible days), and a produced one still pages.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const b64 = (s: string) => Buffer.from(s).toString('base64url');
const UUID = '0b7c3c9e-8d3f-4c39-9d0e-2f6a4d1e5b7a';
/** Timestamps JavaScript parses but PostgreSQL refuses, or that no row could carry. */
const FORGED_TS = [
  '0000-01-01T00:00:00.000Z',
  '-000001-01-01T00:00:00.000Z',
  '-271821-04-20T00:00:00.000Z',
  '+010000-01-01T00:00:00.000Z',
  '+275760-09-13T00:00:00.000Z',
  '2026-02-30T00:00:00.000Z',
  '2026-01-01',
  ' 2026-01-01T00:00:00.000Z',
  '1',
];

describe('pagination: forged cursors', () => {
  let d: TestDaemon;
  let req: ReturnType<typeof http>;
  let t: Tenant;

  before(async () => {
    d = await startTestDaemon({ label: 'cursors' });
    req = http(d.url);
    t = await createTenant(d, 'cursors');
    const coll = (await req('POST', '/api/v1/collections/', { key: t.key, json: { name: 'C' } })).body;
    for (let i = 0; i < 3; i++) {
      const f = new FormData();
      f.append('content', `doc ${i}`);
      f.append('title', `d${i}`);
      f.append('source_type', 'text');
      const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: t.key, body: f });
      assert.equal(r.status, 201, r.text);
    }
    await d.deps.usageLog.flush();
  });
  after(async () => d?.close());

  function assert400(r: { status: number; body: any; text: string }, what: string) {
    assert.equal(r.status, 400, `${what}: ${r.status} ${r.text}`);
    assert.equal(r.body.code, 'VALIDATION_FAILED', what);
    assert.equal(typeof r.body.error, 'string', what);
    assert.ok(r.body.fields?.cursor, `${what}: fields.cursor`);
  }

  for (const [route, make] of [
    ['/api/v1/documents/?limit=2&cursor=', (ts: string) => b64(`${ts}|${UUID}`)],
    ['/api/v1/webhooks/deliveries/?cursor=', (ts: string) => b64(`${ts}|${UUID}`)],
    ['/api/v1/keys/usage/?cursor=', (ts: string) => b64(JSON.stringify([ts, 1]))],
  ] as const) {
    it(`${route.split('?')[0]}: a forged date is 400 VALIDATION_FAILED, never 500`, async () => {
      for (const ts of FORGED_TS) assert400(await req('GET', route + make(ts), { key: t.key }), `${route} ${ts}`);
    });
  }

  it('other forged parts: negative or fractional ids, extra fields, non-canonical encodings', async () => {
    const ts = '2026-01-01T00:00:00.000Z';
    for (const c of [b64(`${ts}|${UUID}|x`), b64(`${ts}|${UUID.toUpperCase()}`), `${b64(`${ts}|${UUID}`)}=`, `${b64(`${ts}|${UUID}`)}*`])
      assert400(await req('GET', `/api/v1/documents/?limit=2&cursor=${encodeURIComponent(c)}`, { key: t.key }), c);
    for (const c of [
      b64(JSON.stringify([ts, -1])),
      b64(JSON.stringify([ts, 1.5])),
      b64(JSON.stringify([ts, 1, 2])),
      b64(JSON.stringify({ 0: ts })),
    ])
      assert400(await req('GET', `/api/v1/keys/usage/?cursor=${c}`, { key: t.key }), c);
  });

  it('a cursor the server produced still pages', async () => {
    const first = await req('GET', '/api/v1/documents/?limit=2', { key: t.key });
    assert.equal(first.status, 200, first.text);
    const next = first.headers.get('x-next-cursor');
    assert.ok(next);
    const second = await req('GET', `/api/v1/documents/?limit=2&cursor=${next}`, { key: t.key });
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.length, 1);
    const u = await req('GET', '/api/v1/keys/usage/?recent_limit=1', { key: t.key });
    assert.equal(u.status, 200, u.text);
    assert.ok(u.body.recent.next_cursor);
    const u2 = await req('GET', `/api/v1/keys/usage/?recent_limit=1&cursor=${u.body.recent.next_cursor}`, { key: t.key });
    assert.equal(u2.status, 200, u2.text);
  });

  it('a cursor is no key to another tenant: it only moves the position within the caller’s own rows', async () => {
    const other = await createTenant(d, 'cursors-other');
    const first = await req('GET', '/api/v1/documents/?limit=1', { key: t.key });
    const r = await req('GET', `/api/v1/documents/?limit=10&cursor=${first.headers.get('x-next-cursor')}`, { key: other.key });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, []);
  });
});
