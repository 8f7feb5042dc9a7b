import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';

// In hybrid mode text matches are evidence only when the query is about the searched documents
// (search/evidence.ts): an off-topic question sharing a common word with a document finds nothing,
// while text mode keeps every lexical match. With the built-in model, and with random vectors (a model
// that knows nothing, which cannot judge: every match counts, so hybrid never falls below text).

const ABSTRACTS = [
  'Hand hygiene compliance reduces hospital acquired infections in intensive care units.',
  'Statin therapy lowers cholesterol and cardiovascular events in older adults.',
  'Vitamin D supplementation and bone fracture risk in postmenopausal women.',
  'Gut microbiota composition differs between lean and obese twins.',
  'Sleep deprivation impairs glucose tolerance in healthy volunteers.',
  'Aspirin use and colorectal cancer incidence in a large cohort.',
  'Long term exposure to air pollution and lung function decline.',
  'Insulin resistance in skeletal muscle precedes type 2 diabetes.',
  'Antibiotic resistance genes spread through hospital wastewater.',
  'Exercise training improves endothelial function in heart failure.',
  'Telomere length shortens with chronic psychological stress.',
  'Breastfeeding duration and childhood asthma risk.',
  'Smoking cessation and weight gain over five years.',
  'Coffee consumption is not associated with arrhythmia.',
  'Measles vaccination coverage and outbreak size.',
  'Tumor necrosis factor blockade in rheumatoid arthritis.',
  'Salt intake and blood pressure in a randomized trial.',
  'Depression screening in primary care settings.',
  'Malaria parasites develop resistance to artemisinin.',
  'Obesity surgery and remission of diabetes.',
];
const OFF_TOPIC = 'how long should I knead pizza dough by hand';

async function abstracts(d: TestDaemon): Promise<{ t: Tenant; req: ReturnType<typeof http>; handDoc: string }> {
  const req = http(d.url);
  const t = await createTenant(d, 'evidence');
  const col = await makeCollection(req, t.key, 'Abstracts');
  const ids: string[] = [];
  for (const [i, text] of ABSTRACTS.entries()) ids.push((await addText(req, t.key, col.uuid, `Abstract ${i}`, text)).uuid);
  await waitSettled(req, t.key, ids, 180_000);
  return { t, req, handDoc: ids[0]! };
}

describe('search: hybrid evidence with the built-in model', () => {
  let d: TestDaemon;
  let s: Awaited<ReturnType<typeof abstracts>>;
  before(async () => {
    d = await startTestDaemon({ label: 'evidence', worker: true });
    s = await abstracts(d);
  });
  after(async () => d?.close());

  const search = (json: Record<string, unknown>) =>
    s.req('POST', '/api/v1/search/', { key: s.t.key, json: { limit: 10, explain: true, ...json } });

  it('an off-topic question sharing a common word finds nothing in hybrid mode, and says so', async () => {
    const r = await search({ query: OFF_TOPIC });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.count, 0, JSON.stringify(r.body.results.map((x: any) => x.content)));
    assert.equal(r.body.reason.code, 'no_match');
    assert.equal(r.body.explain.evidence.on, false);
    assert.equal(r.body.explain.evidence.basis, 'off_topic');
    assert.ok(r.body.explain.evidence.coverage < 0.55);
  });

  it('text mode keeps every lexical match, with its coverage', async () => {
    const r = await search({ query: OFF_TOPIC, mode: 'text' });
    assert.equal(r.status, 200, r.text);
    const hit = r.body.results.find((x: any) => x.document_id === s.handDoc);
    assert.ok(hit, 'the chunk holding "hand" is a text match');
    assert.ok(hit.explain.text.coverage > 0 && hit.explain.text.coverage < 0.55, String(hit.explain.text.coverage));
    assert.equal(r.body.explain.evidence, null);
  });

  it('a real question finds the chunk holding its words in hybrid mode', async () => {
    const r = await search({ query: 'does hand hygiene reduce infections in hospitals' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.results[0]?.document_id, s.handDoc);
    assert.equal(r.body.explain.evidence.on, true);
    assert.ok(r.body.results[0].explain.text.coverage >= 0.55);
  });
});

describe('search: hybrid evidence with random vectors', () => {
  let ollama: FakeOllama;
  let d: TestDaemon;
  let s: Awaited<ReturnType<typeof abstracts>>;
  before(async () => {
    ollama = await startFakeOllama({ dimension: 64, random: true });
    d = await startTestDaemon({
      label: 'evidence_random',
      worker: true,
      env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, OLLAMA_MODEL: 'stand-in-random' },
    });
    s = await abstracts(d);
  });
  after(async () => {
    await d?.close();
    await ollama?.close();
  });

  it('a model that shows no structure cannot judge: hybrid keeps what text mode keeps', async () => {
    const r = await s.req('POST', '/api/v1/search/', { key: s.t.key, json: { query: OFF_TOPIC, limit: 10, explain: true } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.explain.evidence.basis, 'no_structure');
    assert.ok(r.body.results.some((x: any) => x.document_id === s.handDoc));
  });
});
