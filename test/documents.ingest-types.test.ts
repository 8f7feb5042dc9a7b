import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { BAD_FILES, HTML_NOISE_WORDS, PDF_PAGE2_PHRASE, samplePath, SAMPLES } from './fixtures/samples.js';
import { EVENT_DATA_FIELDS } from './helpers/document-fields.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { startWebhookReceiver, subscribeReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

// Every supported type goes through the real worker (builtin embedder): upload → extract → chunk →
// embed → index. The phrases are checked in content_text and chunk text, and found through search.

interface Detail {
  uuid: string;
  title: string;
  status: string;
  source_type: string;
  chunks_count: number;
  content_text: string;
  error_message: string;
  chunks: { id: string; content: string; chunk_index: number; embedding_model: string; page: number | null }[];
}

interface EventRow {
  type: string;
  organization_id: string;
  payload: { event: string; timestamp: string; data: Record<string, unknown> };
}

const TEXT_DOC = 'Pasted note.\n\nThe velvetcinder phrase lives only in this text-only document.';

describe('ingestion of every supported type', () => {
  let d: TestDaemon;
  let t: Tenant;
  let req: ReturnType<typeof http>;
  let coll: { uuid: string; name: string; slug: string };
  const byFile = new Map<string, Detail>();
  let rx: WebhookReceiver;

  before(async () => {
    d = await startTestDaemon({ label: 'doc_ingest', worker: true, env: { ALLOW_PRIVATE_URLS: 'true' } });
    t = await createTenant(d, 'ingest');
    req = http(d.url);
    // Events are stored for an organization with an active webhook (the only reader of them).
    rx = await startWebhookReceiver();
    await subscribeReceiver(req, t.key, rx);
    const c = await req('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Ingest types' } });
    assert.equal(c.status, 201, c.text);
    coll = c.body;

    const form = new FormData();
    const files = [
      ...SAMPLES.map((s) => [s.file, s.mediaType]),
      [BAD_FILES.corruptPdf, 'application/pdf'],
      [BAD_FILES.encryptedPdf, 'application/pdf'],
      [BAD_FILES.emptyTxt, 'text/plain'],
    ];
    for (const [file, type] of files) form.append('files', new Blob([await readFile(samplePath(file!))], { type: type! }), file!);
    form.append('tags', 'Alpha, beta');
    const r = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, { key: t.key, body: form });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.total_skipped, 0, JSON.stringify(r.body.skipped));
    const ids = new Map<string, string>(
      r.body.uploaded.map((u: { uuid: string; original_filename: string }) => [u.original_filename, u.uuid]),
    );
    const text = await req('POST', `/api/v1/collections/${coll.uuid}/documents/`, {
      key: t.key,
      json: { source_type: 'text', content: TEXT_DOC, tags: 'Alpha, beta' },
    });
    assert.equal(text.status, 201, text.text);
    ids.set('(text)', text.body.uuid);

    // Wait until the worker has settled every document.
    const deadline = Date.now() + 45_000;
    for (;;) {
      const pending = await d.deps.sql`select 1 from documents where collection_id = ${coll.uuid} and status = 'pending'`;
      if (!pending.length) break;
      if (Date.now() > deadline) throw new Error(`${pending.length} documents still pending`);
      await new Promise((res) => setTimeout(res, 200));
    }
    for (const [file, id] of ids) {
      const g = await req('GET', `/api/v1/documents/${id}/`, { key: t.key });
      assert.equal(g.status, 200, g.text);
      byFile.set(file, g.body);
    }
  });
  after(async () => {
    await d?.close();
    await rx?.close();
  });

  const events = (id: string) =>
    d.deps.sql<EventRow[]>`select type, organization_id, payload from events where payload->'data'->>'uuid' = ${id} order by created_at`;

  for (const s of SAMPLES) {
    it(`${s.type}: indexed, and "${s.phrase}" is in content_text, in a chunk, and found by search`, async () => {
      const doc = byFile.get(s.file)!;
      assert.equal(doc.status, 'indexed', `${s.file}: ${doc.error_message}`);
      assert.equal(doc.source_type, s.type);
      assert.equal(doc.error_message, '');
      assert.ok(doc.chunks_count >= 1);
      assert.equal(doc.chunks.length, doc.chunks_count);
      assert.deepEqual(
        doc.chunks.map((c) => c.chunk_index),
        doc.chunks.map((_, i) => i),
        'chunks ordered by chunk_index from 0',
      );
      assert.ok(
        doc.content_text.toLowerCase().includes(s.phrase),
        `${s.file}: phrase missing from content_text: ${doc.content_text.slice(0, 300)}`,
      );
      assert.ok(
        doc.chunks.some((c) => c.content.toLowerCase().includes(s.phrase)),
        `${s.file}: phrase missing from chunks`,
      );
      for (const c of doc.chunks) assert.equal(c.embedding_model, d.deps.embedder.model);
      const rows = await d.deps.sql<
        { n: number }[]
      >`select count(*)::int as n from chunks where document_id = ${doc.uuid} and embedding is not null`;
      assert.equal(rows[0]?.n, doc.chunks_count, 'every chunk has an embedding');
      const found = await req('POST', '/api/v1/search/', { key: t.key, json: { query: s.phrase, limit: 3 } });
      assert.equal(found.status, 200, found.text);
      assert.equal(found.body.results[0]?.document_id, doc.uuid, `${s.file}: search for "${s.phrase}" did not rank it first`);
    });
  }

  it('text-only document: indexed from its content', async () => {
    const doc = byFile.get('(text)')!;
    assert.equal(doc.status, 'indexed', doc.error_message);
    assert.equal(doc.source_type, 'text');
    assert.ok(doc.content_text.includes('velvetcinder'));
    assert.ok(doc.chunks.some((c) => c.content.includes('velvetcinder')));
    assert.deepEqual(
      (await events(doc.uuid)).map((e) => e.type),
      ['document.indexed'],
    );
  });

  it('PDF chunks carry page numbers; the page-2 phrase is on page 2', async () => {
    const doc = byFile.get('sample.pdf')!;
    for (const c of doc.chunks) assert.ok(typeof c.page === 'number' && c.page >= 1, JSON.stringify(c));
    const p2 = doc.chunks.find((c) => c.content.toLowerCase().includes(PDF_PAGE2_PHRASE));
    assert.ok(p2, `page-2 phrase "${PDF_PAGE2_PHRASE}" not in any chunk`);
    assert.equal(p2.page, 2);
    const p1 = doc.chunks.find((c) => c.content.toLowerCase().includes('quillfeather'));
    assert.equal(p1?.page, 1);
    // Non-paged formats carry no page.
    for (const c of byFile.get('sample.txt')!.chunks) assert.equal(c.page, null);
  });

  it('HTML is reduced to its main text: script, style, nav and footer words are dropped', () => {
    const doc = byFile.get('sample.html')!;
    for (const w of HTML_NOISE_WORDS) assert.ok(!doc.content_text.toLowerCase().includes(w), `${w} leaked into content_text`);
  });

  it('indexed documents have one document.indexed event in the spec payload shape with error_message null', async () => {
    for (const s of SAMPLES) {
      const doc = byFile.get(s.file)!;
      const ev = await events(doc.uuid);
      assert.deepEqual(
        ev.map((e) => e.type),
        ['document.indexed'],
        s.file,
      );
      const e = ev[0]!;
      assert.equal(e.organization_id, t.orgId);
      assert.equal(e.payload.event, 'document.indexed');
      assert.ok(!Number.isNaN(Date.parse(e.payload.timestamp)));
      assert.deepEqual(Object.keys(e.payload.data).sort(), EVENT_DATA_FIELDS);
      assert.equal(e.payload.data.uuid, doc.uuid);
      assert.equal(e.payload.data.status, 'indexed');
      assert.equal(e.payload.data.error_message, null);
      assert.equal(e.payload.data.chunks_count, doc.chunks_count);
      assert.equal(e.payload.data.tags, 'Alpha,beta', 'tags are a comma-separated string');
      assert.equal(e.payload.data.collection_uuid, coll.uuid);
      assert.equal(e.payload.data.collection_name, coll.name);
      assert.equal(e.payload.data.original_filename, s.file);
      assert.equal(e.payload.data.source_type, s.type);
      assert.equal(typeof e.payload.data.file_size, 'number');
    }
  });

  for (const bad of [BAD_FILES.corruptPdf, BAD_FILES.encryptedPdf, BAD_FILES.emptyTxt]) {
    it(`${bad}: failed with a readable error_message, no chunks, and a document.failed event`, async () => {
      const doc = byFile.get(bad)!;
      assert.equal(doc.status, 'failed');
      assert.equal(typeof doc.error_message, 'string');
      assert.ok(doc.error_message.length >= 10 && doc.error_message.length < 500, doc.error_message);
      assert.ok(
        !/\bat [\w.]+ \(|node_modules|\n\s+at /.test(doc.error_message),
        `error_message looks like a stack trace: ${doc.error_message}`,
      );
      assert.equal(doc.chunks_count, 0);
      assert.deepEqual(doc.chunks, []);
      const ev = await events(doc.uuid);
      assert.deepEqual(
        ev.map((e) => e.type),
        ['document.failed'],
      );
      const data = ev[0]!.payload.data;
      assert.equal(ev[0]!.payload.event, 'document.failed');
      assert.deepEqual(Object.keys(data).sort(), EVENT_DATA_FIELDS);
      assert.equal(data.status, 'failed');
      assert.equal(data.error_message, doc.error_message);
      assert.equal(data.chunks_count, 0);
      assert.equal(data.tags, 'Alpha,beta');
    });
  }

  it('error messages say what went wrong', () => {
    assert.match(byFile.get(BAD_FILES.encryptedPdf)!.error_message, /encrypt|password/i);
    assert.match(byFile.get(BAD_FILES.emptyTxt)!.error_message, /no text|empty/i);
  });

  it('no processing job is left behind', async () => {
    const jobs = await d.deps.sql`select key from graphile_worker.jobs where task_identifier = 'process_document'`;
    assert.equal(jobs.length, 0, JSON.stringify(jobs));
  });
});
