import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findCorrections } from '../daemon/src/search/typo-tolerance.js';
import { makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

// The daemon's memory of the words typo tolerance need not correct (search/correction-cache.ts):
// keyed by the scope's vocabulary generations, so a chunk written or deleted changes the answer at
// once, and by the collections' numbers, so another tenant's words never answer for this one.

describe('search: typo correction cache', () => {
  let d: TestDaemon;
  let a: Tenant;
  let b: Tenant;
  let req: ReturnType<typeof http>;
  let clinic: string;
  let other: string;
  const add = async (key: string, coll: string, title: string, content: string) => {
    const r = await req('POST', `/api/v1/collections/${coll}/documents/`, { key, json: { source_type: 'text', title, content } });
    assert.equal(r.status, 201, r.text);
    await waitSettled(req, key, [r.body.uuid]);
    return r.body.uuid as string;
  };
  before(async () => {
    d = await startTestDaemon({ label: 'typocache', worker: true });
    req = http(d.url);
    a = await createTenant(d, 'tca');
    b = await createTenant(d, 'tcb');
    clinic = (await makeCollection(req, a.key, 'Clinic')).uuid;
    other = (await makeCollection(req, b.key, 'Other')).uuid;
    await add(a.key, clinic, 'diabetes', 'Diabetes treatment starts with diet and exercise for most patients.');
    await add(a.key, clinic, 'canker', 'Canker sores heal within a week.');
    await add(b.key, other, 'diabetis', 'Diabetis is how this tenant spells it, beside gastroparesis.');
  });
  after(async () => d?.close());

  const search = (key: string, query: string) =>
    req('POST', '/api/v1/search/', { key, json: { query, mode: 'text', limit: 10 } }).then((r) => {
      assert.equal(r.status, 200, r.text);
      return r.body;
    });
  const lookups = () => d.deps.corrections.lookups;

  it('asks the lists once for known words, and not again until a chunk of the scope changes', async () => {
    assert.equal((await search(a.key, 'diabetes treatment')).correction, null);
    const first = lookups();
    assert.equal((await search(a.key, 'treatment diabetes')).correction, null);
    assert.equal((await search(a.key, 'diabetes tea')).correction, null, 'words under four letters are never looked up');
    assert.equal(lookups(), first, 'every word of four letters or more was remembered as known');
    await d.deps.sql`select fold_text_stats()`;
    await search(a.key, 'diabetes treatment');
    assert.equal(lookups(), first, 'a fold changes no list’s words: the generation holds');
    await add(b.key, other, 'unrelated', 'Another tenant’s upload touches none of these lists.');
    await search(a.key, 'diabetes treatment');
    assert.equal(lookups(), first, 'another scope’s upload leaves this one remembered');
    await add(a.key, clinic, 'more', 'A further clinic note.');
    await search(a.key, 'diabetes treatment');
    assert.equal(lookups(), first + 1, 'an upload to the scope asks again');
  });

  it('corrects a remembered word at once after the only document holding it is deleted, and not after it is back', async () => {
    const cancer = await add(a.key, clinic, 'cancer', 'Cancer screening saves lives.');
    assert.equal((await search(a.key, 'cancer')).correction, null);
    assert.equal((await search(a.key, 'cancer')).correction, null, 'remembered as known');
    assert.equal((await req('DELETE', `/api/v1/documents/${cancer}/`, { key: a.key })).status, 204);
    const gone = await search(a.key, 'cancer');
    assert.deepEqual(gone.correction?.words, [{ word: 'cancer', correction: 'canker', edits: 1 }], 'unknown at once: read as canker');
    const asked = lookups();
    assert.deepEqual((await search(a.key, 'cancer')).correction, gone.correction, 'the whole answer is remembered');
    assert.equal(lookups(), asked, 'without asking the lists again');
    await add(a.key, clinic, 'cancer again', 'Cancer screening, uploaded again.');
    assert.equal((await search(a.key, 'cancer')).correction, null, 'known again at once, before any fold');
  });

  it('never lets a word another tenant holds count as known here', async () => {
    // Tenant B holds "diabetis": its search remembers the word as known for its own collection only.
    assert.equal((await search(b.key, 'diabetis')).correction, null);
    assert.equal((await search(b.key, 'diabetis')).correction, null);
    const own = await search(a.key, 'diabetis');
    assert.deepEqual(own.correction?.words, [{ word: 'diabetis', correction: 'diabetes', edits: 1 }]);
    assert.equal((await search(a.key, 'gastroparesis')).correction, null, 'nor corrected toward it');
    assert.equal((await search(a.key, 'gastroparesis')).count, 0);
  });

  it('answers as the uncached look-up does, whatever the query’s words and punctuation', async () => {
    const queries = [
      'diabetis treatment',
      'Diabetes-treatment',
      "patient's diabetis",
      'diabetes/treatmant',
      'exercize, diet!',
      'http://example.com/diabetis',
      'diabetis@example.com',
      'Diabètes traitement',
      'διαβήτης treatment',
      'диабет treatmant',
      'diabetis2 treatment3',
      '糖尿病 diabetis',
      '"diabetis" -treatment treatmant',
      'about which there',
      'a b c',
      '',
    ];
    const ids = [clinic];
    for (const round of [1, 2]) {
      for (const q of queries) {
        const cached = await d.deps.corrections.find((fn) => d.deps.reads.run(fn), 'english', q, ids);
        const plain = await d.deps.reads.run((sql) => findCorrections(sql, 'english', q, ids));
        assert.deepEqual(cached, plain, `round ${round}: ${JSON.stringify(q)}`);
      }
    }
  });

  it('answers no scope with no correction and no statement', async () => {
    const before = lookups();
    assert.deepEqual(await d.deps.corrections.find((fn) => d.deps.reads.run(fn), 'english', 'diabetis', []), []);
    assert.equal(lookups(), before);
  });
});
