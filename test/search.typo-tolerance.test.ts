import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

// Typo tolerance (search/typo-tolerance.ts): a plain query word no searched document holds is read
// as the nearest one they do, within 1 edit (5–8 letters; 4 by an insertion) or 2 (9 or more); the answer says so.

describe('search: typo tolerance', () => {
  let d: TestDaemon;
  let a: Tenant;
  let b: Tenant;
  let req: ReturnType<typeof http>;
  const ids: Record<string, string> = {};
  let clinic: string;
  let notes: string;
  before(async () => {
    d = await startTestDaemon({ label: 'typos', worker: true });
    req = http(d.url);
    a = await createTenant(d, 'typa');
    b = await createTenant(d, 'typb');
    const clinicColl = await makeCollection(req, a.key, 'Clinic');
    clinic = clinicColl.slug;
    const clinicUuid = clinicColl.uuid;
    const notesColl = await makeCollection(req, a.key, 'Notes');
    notes = notesColl.slug;
    const other = await makeCollection(req, b.key, 'Cardiology');
    const add = async (key: string, coll: string, name: string, content: string) => {
      const r = await req('POST', `/api/v1/collections/${coll}/documents/`, { key, json: { source_type: 'text', title: name, content } });
      assert.equal(r.status, 201, r.text);
      ids[name] = r.body.uuid;
    };
    await add(a.key, clinicUuid, 'diabetes', 'Diabetes treatment starts with diet and exercise for most patients.');
    await add(a.key, clinicUuid, 'insulin', 'Insulin therapy for diabetes when diet is not enough.');
    await add(a.key, clinicUuid, 'fracture', 'A fracture of the wrist heals in six weeks.');
    await add(a.key, notesColl.uuid, 'migraine', 'Migraine headaches respond to rest in a dark room.');
    await add(b.key, other.uuid, 'cardiomyopathy', 'Cardiomyopathy weakens the heart muscle.');
    await waitSettled(req, a.key, [ids.diabetes!, ids.insulin!, ids.fracture!, ids.migraine!]);
    await waitSettled(req, b.key, [ids.cardiomyopathy!]);
    // The vocabulary follows the lists at the fold (the worker's job every minute): fold now.
    await d.deps.sql`select fold_text_stats()`;
  });
  after(async () => d?.close());

  const search = (key: string, json: Record<string, unknown>) => req('POST', '/api/v1/search/', { key, json: { limit: 10, ...json } });
  const docs = (r: { body: { results: { document_id: string }[] } }) => [...new Set(r.body.results.map((x) => x.document_id))].sort();

  it('reads an unknown word as the nearest word the documents hold, and says so', async () => {
    for (const mode of ['text', 'hybrid']) {
      const r = await search(a.key, { query: 'diabetis treatment', mode, explain: true });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.correction, {
        query: 'diabetes treatment',
        words: [{ word: 'diabetis', correction: 'diabetes', edits: 1 }],
      });
      assert.ok(docs(r).includes(ids.diabetes!), `${mode}: the diabetes document is found`);
      assert.equal(r.body.results[0].document_id, ids.diabetes, `${mode}: it leads (it also holds "treatment")`);
      assert.deepEqual(r.body.explain.typo_tolerance, {
        enabled: true,
        source: 'setting',
        corrections: [{ word: 'diabetis', lexeme: 'diabeti', correction: 'diabet', edits: 1, chunks: 2 }],
      });
    }
  });

  it('corrects a typo in a suffix the stemmer no longer strips, keeping the capital', async () => {
    const r = await search(a.key, { query: 'Fractureq', mode: 'text' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.correction?.query, 'Fracture');
    assert.deepEqual(docs(r), [ids.fracture]);
  });

  it('never corrects a known word, a short word, a quoted word, or when asked not to', async () => {
    const none = async (json: Record<string, unknown>) => {
      const r = await search(a.key, { mode: 'text', ...json });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.correction, null, JSON.stringify(json));
      return r;
    };
    assert.deepEqual(docs(await none({ query: 'diabetes' })).length, 2);
    await none({ query: 'rost' }); // 4 letters, a substitution from "rest": a short word is only ever a letter short
    await none({ query: 'dyabtes' }); // 2 edits from "diabetes": 7 letters allow 1
    assert.equal((await none({ query: '"diabetis"' })).body.count, 0, 'a quoted word is taken as written');
    const off = await none({ query: 'diabetis', typo_tolerance: false, explain: true });
    assert.equal(off.body.count, 0);
    assert.deepEqual(off.body.explain.typo_tolerance, { enabled: false, source: 'request', corrections: [] });
  });

  it('reads a four-letter word as the five-letter word it is one letter short of', async () => {
    const r = await search(a.key, { query: 'wrst', mode: 'text' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.correction?.words, [{ word: 'wrst', correction: 'wrist', edits: 1 }]);
    assert.deepEqual(docs(r), [ids.fracture]);
  });

  it('keeps an exclusion next to a typo, and never corrects into an excluded word', async () => {
    const r = await search(a.key, { query: 'diabetis -insulin', mode: 'text' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.correction?.query, 'diabetes -insulin');
    assert.deepEqual(docs(r), [ids.diabetes], 'the insulin document stays excluded');
    const excluded = await search(a.key, { query: 'diabetis -diabetes', mode: 'text' });
    assert.equal(excluded.status, 200, excluded.text);
    assert.equal(excluded.body.correction, null, 'the only correction is an excluded word');
    assert.equal(excluded.body.count, 0);
  });

  it('corrects only toward words of the searched collections, never another tenant’s', async () => {
    // "cardiomyopathy" is only in tenant B's collection: tenant A's typo of it finds nothing to read it as.
    const cross = await search(a.key, { query: 'cardiomyopaty', mode: 'text', explain: true });
    assert.equal(cross.status, 200, cross.text);
    assert.equal(cross.body.correction, null);
    assert.equal(cross.body.count, 0);
    assert.deepEqual(cross.body.explain.typo_tolerance.corrections, []);
    const own = await search(b.key, { query: 'cardiomyopaty', mode: 'text' });
    assert.equal(own.body.correction?.query, 'cardiomyopathy', 'tenant B’s own search is corrected');
    const two = await search(b.key, { query: 'cardiomiopaty', mode: 'text' });
    assert.deepEqual(
      two.body.correction?.words,
      [{ word: 'cardiomiopaty', correction: 'cardiomyopathy', edits: 2 }],
      '2 edits from 9 letters',
    );
    assert.equal((await search(a.key, { query: 'cardiomiopaty', mode: 'text' })).body.correction, null, 'nor at 2 edits');
    // Within a tenant too: a word only another of its collections holds is not a correction.
    const scoped = await search(a.key, { query: 'migrane', collection: clinic, mode: 'text' });
    assert.equal(scoped.body.correction, null);
    const both = await search(a.key, { query: 'migrane', collections: [clinic, notes], mode: 'text' });
    assert.equal(both.body.correction?.query, 'migraine');
  });

  it('refuses a typo_tolerance that is not a boolean', async () => {
    const r = await search(a.key, { query: 'diabetes', typo_tolerance: 'yes' });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'VALIDATION_FAILED');
    assert.ok(r.body.fields.typo_tolerance);
  });
});
