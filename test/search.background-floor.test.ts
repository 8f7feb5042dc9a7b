import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';

// The failure this file guards against: hybrid search padded every query with the nearest unrelated
// chunks, and models outside the defaults table had no floor at all. The default floor now judges a
// vector-only chunk against what the same query scores on a sample of the searched chunks, whatever
// the model.
const NONSENSE = ['xqzzv blorpt fnargle', 'zzqx vuhrk', 'blorvent quaxil', 'kvrtz mnbq'];

const TOPICS = [
  ['Baking bread', 'Knead the dough, let it rise overnight and bake the loaf until golden.'],
  ['Income tax', 'File your income tax return before April; deductions lower what you owe.'],
  ['Cats', 'The cat sat on the mat and purred. Felines sleep for most of the day.'],
  ['Saturn', 'Saturn has bright rings of ice and rock and dozens of moons.'],
  ['Tyres', 'Check the tyre pressure monthly and rotate the tyres every ten thousand kilometres.'],
  ['Tomatoes', 'Tomato seedlings need warm soil, full sun and steady watering.'],
  ['Mortgages', 'A fixed-rate mortgage keeps the monthly payment the same for the whole term.'],
  ['Volcanoes', 'Magma rises through the crust and erupts as lava, ash and gas.'],
  ['Chess', 'Control the centre of the board early and castle to protect your king.'],
  ['Coffee', 'Grind the beans just before brewing and use water just off the boil.'],
  ['Marathon', 'Long slow runs build the endurance a marathon needs; taper in the last weeks.'],
  ['Printers', 'If the printer jams, open the rear tray and pull the paper out gently.'],
  ['Vaccines', 'Vaccines train the immune system to recognise a pathogen before infection.'],
  ['Jazz', 'Jazz musicians improvise over chord changes, trading solos in turn.'],
  ['Glaciers', 'Glaciers carve valleys as the ice slowly flows downhill under its own weight.'],
  ['Passwords', 'Use a password manager and a different long password for every account.'],
  ['Bees', 'Honey bees communicate the direction of flowers with a waggle dance.'],
  ['Sourdough', 'Feed the starter flour and water daily to keep the culture active.'],
  ['Knitting', 'Cast on loosely, then alternate knit and purl rows for stockinette stitch.'],
  ['Elections', 'Polling stations open at seven; bring an identity document to vote.'],
  ['Photosynthesis', 'Plants turn light, water and carbon dioxide into sugar and oxygen.'],
  ['Submarines', 'Ballast tanks flood with seawater to let a submarine dive.'],
  ['Wine', 'Red wine is fermented with the grape skins, which give colour and tannin.'],
  ['Earthquakes', 'Tectonic plates slip along faults and release energy as seismic waves.'],
];

async function seed(req: ReturnType<typeof http>, key: string, name: string) {
  const col = await makeCollection(req, key, name);
  const ids: Record<string, string> = {};
  for (const [title, content] of TOPICS) ids[title!] = (await addText(req, key, col.uuid, title!, content!)).uuid;
  await waitSettled(req, key, Object.values(ids), 120_000);
  return { col, ids };
}

describe('the background floor holds for a model that knows nothing (random vectors, a model outside the table)', () => {
  let ollama: FakeOllama;
  let d: TestDaemon;
  let t: Tenant;
  let req: ReturnType<typeof http>;
  const search = (json: Record<string, unknown>, key = t.key) => req('POST', '/api/v1/search/', { key, json });
  before(async () => {
    ollama = await startFakeOllama({ dimension: 256, random: true });
    d = await startTestDaemon({
      label: 'bgfloor_random',
      worker: true,
      env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, OLLAMA_MODEL: 'stand-in-random' },
    });
    req = http(d.url);
    t = await createTenant(d, 'bgfloor_random');
    await seed(req, t.key, 'Mixed');
  });
  after(async () => {
    await d?.close();
    await ollama?.close();
  });

  it('adds no vector-only hit: nonsense gets 0 results, a real query only its lexical matches', async () => {
    for (const query of NONSENSE) {
      const r = await search({ query, limit: 50, explain: true });
      assert.equal(r.status, 200);
      assert.equal(r.body.count, 0, `${query}: ${JSON.stringify(r.body.results.map((x: any) => [x.title, x.explain]))}`);
      assert.equal(r.body.explain.defaults_row, 'other');
      assert.equal(r.body.explain.min_score.source, 'background');
      assert.equal(r.body.explain.min_score.background.sample, TOPICS.length);
      assert.ok(r.body.explain.min_score.dropped >= 1);
    }
    const real = await search({ query: 'bake bread overnight', limit: 50, explain: true });
    assert.ok(real.body.count >= 1);
    assert.ok(
      real.body.results.every((x: any) => x.explain.text),
      JSON.stringify(real.body.results.map((x: any) => x.title)),
    );
    // The caller can still ask for the nearest chunks, or set a floor of their own.
    assert.equal((await search({ query: NONSENSE[0], mode: 'vector', limit: 50 })).body.count, TOPICS.length);
    const own = await search({ query: NONSENSE[0], min_score: 0, limit: 50, explain: true });
    assert.ok(own.body.count >= 1 && own.body.results.every((x: any) => x.explain.vector.score >= 0));
    assert.equal(own.body.explain.min_score.source, 'request');
  });

  it('a scope too small for a background adds no vector-only hit either (no measured floor to fall back on)', async () => {
    const small = await makeCollection(req, t.key, 'Small');
    await waitSettled(req, t.key, [(await addText(req, t.key, small.uuid, 'Aardvarks', 'The aardvark digs burrows at night.')).uuid]);
    for (const query of NONSENSE) {
      const r = await search({ query, collection: small.slug, limit: 50, explain: true });
      assert.equal(r.status, 200);
      assert.equal(r.body.count, 0, `${query}: ${JSON.stringify(r.body.results.map((x: any) => [x.title, x.explain]))}`);
    }
    const lexical = await search({ query: 'aardvark burrows', collection: small.slug });
    assert.equal(lexical.body.count, 1, 'a lexical match in the small scope is still found');
    const nearest = await search({ query: NONSENSE[0], collection: small.slug, mode: 'vector' });
    assert.equal(nearest.body.count, 1, 'vector mode still lists the nearest chunk');
  });
});

describe('the background floor with the dense stand-in (a model outside the table, no setting)', () => {
  let ollama: FakeOllama;
  let d: TestDaemon;
  let t: Tenant;
  let other: Tenant;
  let req: ReturnType<typeof http>;
  before(async () => {
    ollama = await startFakeOllama({ dimension: 256, dense: true });
    d = await startTestDaemon({
      label: 'bgfloor_dense',
      worker: true,
      env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, OLLAMA_MODEL: 'stand-in-dense' },
    });
    req = http(d.url);
    t = await createTenant(d, 'bgfloor_dense');
    other = await createTenant(d, 'bgfloor_dense_other');
    await seed(req, t.key, 'Mixed');
    // Another tenant's chunks are never part of anyone else's background.
    const oc = await makeCollection(req, other.key, 'Other');
    await waitSettled(req, other.key, [(await addText(req, other.key, oc.uuid, 'zzqx', 'xqzzv blorpt fnargle zzqx')).uuid]);
  });
  after(async () => {
    await d?.close();
    await ollama?.close();
  });

  it('nonsense gets 0 results; the background counts only the caller’s chunks', async () => {
    for (const query of NONSENSE) {
      const r = await req('POST', '/api/v1/search/', { key: t.key, json: { query, limit: 50, explain: true } });
      assert.equal(r.body.count, 0, `${query}: ${JSON.stringify(r.body.results.map((x: any) => [x.title, x.explain]))}`);
      assert.equal(r.body.explain.min_score.background.chunks, TOPICS.length);
    }
    const own = await req('POST', '/api/v1/search/', { key: other.key, json: { query: NONSENSE[0], explain: true } });
    assert.equal(own.body.count, 1, 'a real lexical match is still found');
  });
});

describe('the background floor with the built-in model', () => {
  let d: TestDaemon;
  let t: Tenant;
  let req: ReturnType<typeof http>;
  let ids: Record<string, string>;
  before(async () => {
    d = await startTestDaemon({ label: 'bgfloor_builtin', worker: true });
    req = http(d.url);
    t = await createTenant(d, 'bgfloor_builtin');
    ({ ids } = await seed(req, t.key, 'Mixed'));
  });
  after(async () => d?.close());

  it('answers nonsense with 0 results and keeps a close paraphrase found only by meaning', async () => {
    for (const query of NONSENSE) {
      const r = await req('POST', '/api/v1/search/', { key: t.key, json: { query, limit: 50, explain: true } });
      assert.equal(r.body.count, 0, `${query}: ${JSON.stringify(r.body.results.map((x: any) => [x.title, x.explain]))}`);
      assert.equal(r.body.explain.min_score.source, 'background');
    }
    const para = await req('POST', '/api/v1/search/', { key: t.key, json: { query: 'kitten napping', explain: true } });
    const vectorOnly = para.body.results.filter((x: any) => !x.explain.text);
    assert.equal(vectorOnly[0]?.document_id, ids.Cats, JSON.stringify(para.body));
    assert.ok(vectorOnly.every((x: any) => x.explain.vector.score >= para.body.explain.min_score.value));
  });
});
