import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

// An empty answer says why (search/empty-reason.ts): no documents, none passing the filter (with the
// filter's warnings), every result under score_threshold, or nothing matched.

describe('search: why an answer is empty', () => {
  let d: TestDaemon;
  let a: Tenant;
  let b: Tenant;
  let req: ReturnType<typeof http>;
  let empty: string;
  before(async () => {
    d = await startTestDaemon({ label: 'emptyreason', worker: true });
    req = http(d.url);
    a = await createTenant(d, 'era');
    b = await createTenant(d, 'erb');
    const hr = await makeCollection(req, a.key, 'HR');
    empty = (await makeCollection(req, a.key, 'Empty')).slug;
    const other = await makeCollection(req, b.key, 'Other');
    const add = async (key: string, coll: string, title: string, content: string, metadata: object, tags?: string) => {
      const r = await req('POST', `/api/v1/collections/${coll}/documents/`, {
        key,
        json: { source_type: 'text', title, content, metadata, ...(tags ? { tags } : {}) },
      });
      assert.equal(r.status, 201, r.text);
      return r.body.uuid as string;
    };
    const mine = [
      await add(a.key, hr.uuid, 'old', 'Vacation policy: 20 days per year.', { year: 2020, dept: 'legal' }, 'policy'),
      await add(a.key, hr.uuid, 'new', 'Vacation policy: 25 days per year.', { year: 2025, dept: 'hr' }),
    ];
    const theirs = [await add(b.key, other.uuid, 'theirs', 'Vacation policy of another tenant.', { Region: 'north', dept: 'Legal' })];
    await waitSettled(req, a.key, mine);
    await waitSettled(req, b.key, theirs);
  });
  after(async () => d?.close());

  const search = (json: Record<string, unknown>, key = a.key) =>
    req('POST', '/api/v1/search/', { key, json: { query: 'vacation policy', limit: 10, ...json } });

  it('answers with results and no reason or warnings', async () => {
    const r = await search({});
    assert.equal(r.status, 200, r.text);
    assert.ok(r.body.count > 0);
    assert.equal(r.body.reason, null);
    assert.deepEqual(r.body.warnings, []);
  });

  it('says no document passes the filter, and why: a string against numbers', async () => {
    for (const mode of ['hybrid', 'text', 'vector']) {
      const r = await search({ mode, filter: { year: { gt: '2024' } } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.count, 0);
      assert.equal(r.body.reason.code, 'no_documents_pass_filter', mode);
      assert.match(r.body.reason.message, /not the cause/);
      assert.deepEqual(
        r.body.warnings.map((w: any) => [w.code, w.field]),
        [['string_compared_with_number', 'year']],
      );
    }
  });

  it('names a key no searched document has, and the keys that differ only in case', async () => {
    const r = await search({ filter: { Year: 2025 } });
    assert.equal(r.body.reason.code, 'no_documents_pass_filter');
    assert.deepEqual(r.body.warnings, [
      {
        code: 'unknown_field',
        field: 'Year',
        message: 'No searched document has the metadata key "Year"; did you mean "year"?',
        did_you_mean: ['year'],
      },
    ]);
  });

  it('names a value no searched document has, with its other case; a number against strings', async () => {
    const r = await search({ filter: { and: [{ dept: 'LEGAL' }, { year: 2020 }] } });
    assert.equal(r.body.reason.code, 'no_documents_pass_filter');
    assert.deepEqual(
      r.body.warnings.map((w: any) => [w.code, w.field, w.did_you_mean]),
      [['value_not_found', 'dept', ['legal']]],
    );
    const n = await search({ filter: { dept: 2020 } });
    assert.deepEqual(
      n.body.warnings.map((w: any) => [w.code, w.field]),
      [['number_compared_with_string', 'dept']],
    );
  });

  it('never suggests another tenant’s keys or values', async () => {
    const key = await search({ filter: { region: 'north' } });
    assert.equal(key.body.reason.code, 'no_documents_pass_filter');
    assert.deepEqual(key.body.warnings, [
      { code: 'unknown_field', field: 'region', message: 'No searched document has the metadata key "region".' },
    ]);
    // Tenant B's own "Legal" is not offered to tenant A, whose only case variant is "legal".
    const value = await search({ filter: { dept: 'LeGaL' } });
    assert.deepEqual(value.body.warnings[0].did_you_mean, ['legal']);
  });

  it('says tags left nothing, and that an empty collection holds no document', async () => {
    const tags = await search({ tags: ['nosuchtag'] });
    assert.equal(tags.body.reason.code, 'no_documents_pass_filter');
    assert.match(tags.body.reason.message, /passes the tags/);
    assert.deepEqual(tags.body.warnings, []);
    const none = await search({ collection: empty });
    assert.equal(none.body.reason.code, 'no_documents');
  });

  it('says when score_threshold dropped every result, and when nothing matched', async () => {
    const drop = await search({ mode: 'vector', min_score: 0, score_threshold: 0.99 });
    assert.equal(drop.body.count, 0);
    assert.equal(drop.body.reason.code, 'below_score_threshold');
    const none = await search({ mode: 'text', query: 'zebra' });
    assert.equal(none.body.count, 0);
    assert.deepEqual(none.body.reason, {
      code: 'no_match',
      message: 'Nothing relevant was found in the searched documents: none holds any of the query’s words.',
    });
  });

  it('says when the query’s phrase or exclusion left nothing that its words found', async () => {
    const phrase = await search({ mode: 'text', query: '"vacation zebra"' });
    assert.equal(phrase.body.count, 0);
    assert.deepEqual(phrase.body.reason, {
      code: 'operators_left_nothing',
      message:
        'Nothing passes the query’s operators, though the same search without them finds results: every result must hold "vacation zebra".',
    });
    for (const mode of ['hybrid', 'text', 'vector']) {
      const r = await search({ mode, query: 'vacation days -policy', min_score: 0 });
      assert.equal(r.body.count, 0, mode);
      assert.equal(r.body.reason.code, 'operators_left_nothing', mode);
      assert.match(r.body.reason.message, /none may hold "policy"\.$/, mode);
    }
    const both = await search({ mode: 'text', query: '"vacation policy" -days -"per year"' });
    assert.match(both.body.reason.message, /: every result must hold "vacation policy", and none may hold "days" or "per year"\.$/);
    // The same filter holds without the operators: under it, no document holds the words either.
    const filtered = await search({ mode: 'text', query: '"vacation zebra"', filter: { year: 2030 } });
    assert.equal(filtered.body.reason.code, 'no_documents_pass_filter');
  });

  it('blames the words, not the operators, when the words find nothing either; never another tenant’s', async () => {
    const none = await search({ mode: 'text', query: '"zebra giraffe"' });
    assert.equal(none.body.reason.code, 'no_match');
    // Only tenant B's document holds "another tenant": tenant A's search without the phrase finds nothing.
    const theirs = await search({ mode: 'text', query: '"another tenant"' });
    assert.equal(theirs.body.reason.code, 'no_match');
    const own = await search({ mode: 'text', query: '"another tenant" vacation' }, b.key);
    assert.equal(own.body.count, 1);
  });
});
