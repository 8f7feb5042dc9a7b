// Languages written without spaces (migration 122, daemon/src/text/segment.ts): Chinese, Japanese,
// Thai and Korean collections indexed and searched through word segmentation, through REST and
// MCP: words, phrases, exclusions and mixed-script queries, highlights, a language change, the
// list of languages, and tenants kept apart.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { passageSegments } from '../daemon/src/web/highlight.js';
import { until } from './helpers/chaos.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const TEXTS = {
  zhService: '维多利亚州的经济以服务业为主导，墨尔本是州首府。',
  zhFarm: '服务和农业是这个国家的两大产业。',
  zhPhone: '新款iPhone电池续航更长，价格为5999元。',
  zhEnglish: 'Battery life of the new phone is longer.',
  jaTokyo: '東京都に住んでいます。東京大学で日本語を勉強しています。',
  jaKyoto: '京都は日本の古い都です。',
  thLanguage: 'ภาษาไทยเป็นภาษาที่สวยงาม',
  thFood: 'ประเทศไทยมีอาหารอร่อย',
  koStudy: '한국어를 공부합니다',
  koFood: '김치는 맛있습니다',
};
type Name = keyof typeof TEXTS;

describe('search in languages written without spaces', () => {
  let d: TestDaemon;
  let a: Tenant;
  let b: Tenant;
  let req: ReturnType<typeof http>;
  const coll: Record<string, any> = {};
  const ids = {} as Record<Name | 'bService', string>;
  const names = new Map<string, string>();
  let mcp: Client;

  const search = async (query: string, collection: string, extra: Record<string, unknown> = {}, key = a.key) => {
    const r = await req('POST', '/api/v1/search/', { key, json: { query, mode: 'text', limit: 20, collection, ...extra } });
    assert.equal(r.status, 200, r.text);
    return r.body.results as { document_id: string; chunk_id: string; content: string; highlights: { start: number; end: number }[] }[];
  };
  const found = async (query: string, collection: string, extra: Record<string, unknown> = {}) =>
    (await search(query, collection, extra)).map((x) => names.get(x.document_id) ?? x.document_id);

  before(async () => {
    d = await startTestDaemon({ label: 'segmented', worker: true });
    req = http(d.url);
    [a, b] = await Promise.all([createTenant(d, 'seg-a'), createTenant(d, 'seg-b')]);
    for (const language of ['chinese', 'japanese', 'thai', 'korean'])
      coll[language] = await makeCollection(req, a.key, language, { language });
    coll.bChinese = await makeCollection(req, b.key, 'B chinese', { language: 'chinese' });
    const home: Record<string, string> = { zh: 'chinese', ja: 'japanese', th: 'thai', ko: 'korean' };
    for (const [name, text] of Object.entries(TEXTS) as [Name, string][]) {
      ids[name] = (await addText(req, a.key, coll[home[name.slice(0, 2)]!].uuid, 'Doc', text)).uuid;
      names.set(ids[name], name);
    }
    ids.bService = (await addText(req, b.key, coll.bChinese.uuid, 'Doc', TEXTS.zhService)).uuid;
    await waitSettled(
      req,
      a.key,
      Object.values(ids).filter((x) => x !== ids.bService),
    );
    await waitSettled(req, b.key, [ids.bService]);
    mcp = new Client({ name: 'docsift-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${a.key}` } } }),
    );
  });
  after(async () => {
    await mcp?.close();
    await d?.close();
  });

  it('lists every language with how it indexes, for any caller, and only to a caller with a key', async () => {
    const r = await req('GET', '/api/v1/languages/', { key: a.key });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.default, 'english');
    const kind = Object.fromEntries(r.body.languages.map((l: any) => [l.name, l.kind]));
    for (const l of ['chinese', 'japanese', 'korean', 'thai']) assert.equal(kind[l], 'segmented', l);
    for (const l of ['english', 'arabic', 'greek', 'hindi', 'turkish', 'german', 'russian']) assert.equal(kind[l], 'stemmer', l);
    assert.equal(kind.simple, 'simple');
    assert.ok(!r.body.languages.some((l: any) => l.name.startsWith('docsift_')), 'no internal variant');
    assert.deepEqual((await req('GET', '/api/v1/languages/', { key: b.key })).body, r.body);
    const anonymous = await req('GET', '/api/v1/languages/');
    assert.equal(anonymous.status, 401, anonymous.text);
    const bad = await req('POST', '/api/v1/collections/', { key: a.key, json: { name: 'Bad', language: 'mandarin' } });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.code, 'VALIDATION_FAILED');
    assert.match(bad.body.fields.language[0], /chinese/);
  });

  it('indexes a segmented collection with docsift’s configuration and keeps the text as written', async () => {
    const [c] = await d.deps.sql<{ text_config: string }[]>`select text_config from collections where id = ${coll.chinese.uuid}`;
    assert.equal(c!.text_config, 'docsift_chinese');
    const [hit] = await search('经济', coll.chinese.uuid);
    assert.equal(hit!.content, TEXTS.zhService);
  });

  it('finds Chinese words, ranks the whole word first, and matches phrases and exclusions as written', async () => {
    assert.deepEqual(await found('经济', coll.chinese.uuid), ['zhService']);
    assert.equal((await found('服务业 经济', coll.chinese.uuid))[0], 'zhService');
    assert.deepEqual(await found('"服务业"', coll.chinese.uuid), ['zhService'], '服务 and 业 apart are not the phrase');
    assert.deepEqual(await found('服务 -农业', coll.chinese.uuid), ['zhService']);
    assert.deepEqual(await found('墨尔本首府', coll.chinese.uuid), ['zhService']);
  });

  it('keeps Latin words and numbers whole in mixed text', async () => {
    assert.equal((await found('iPhone电池', coll.chinese.uuid))[0], 'zhPhone');
    assert.deepEqual(await found('iphone', coll.chinese.uuid), ['zhPhone']);
    assert.deepEqual(await found('Phone', coll.chinese.uuid), ['zhEnglish'], 'a part of a Latin word is not a word');
    assert.deepEqual(await found('5999', coll.chinese.uuid), ['zhPhone']);
    assert.deepEqual(await found('battery', coll.chinese.uuid), ['zhEnglish']);
    assert.deepEqual(await found('"iPhone电池"', coll.chinese.uuid), ['zhPhone']);
  });

  it('finds Japanese, Thai and Korean words, phrases and exclusions', async () => {
    assert.equal((await found('東京', coll.japanese.uuid))[0], 'jaTokyo');
    assert.deepEqual(await found('"日本の"', coll.japanese.uuid), ['jaKyoto']);
    assert.deepEqual(await found('日本 -東京', coll.japanese.uuid), ['jaKyoto']);
    // Thai is segmented into ICU's dictionary words (ประเทศไทย, Thailand, is one).
    assert.deepEqual(await found('ภาษา', coll.thai.uuid), ['thLanguage']);
    assert.deepEqual(await found('อาหาร', coll.thai.uuid), ['thFood']);
    assert.deepEqual((await found('ภาษา อาหาร', coll.thai.uuid)).sort(), ['thFood', 'thLanguage']);
    assert.deepEqual(await found('"ภาษาไทย"', coll.thai.uuid), ['thLanguage']);
    assert.deepEqual(await found('ภาษา -สวยงาม', coll.thai.uuid), []);
    assert.deepEqual(await found('한국어', coll.korean.uuid), ['koStudy']);
    assert.deepEqual(await found('공부 -김치', coll.korean.uuid), ['koStudy']);
  });

  it('phrases and exclusions hold in hybrid mode, and the relevance cut applies to segmented scores', async () => {
    assert.deepEqual(await found('"服务业"', coll.chinese.uuid, { mode: 'hybrid' }), ['zhService']);
    assert.ok(!(await found('服务 -农业', coll.chinese.uuid, { mode: 'hybrid' })).includes('zhFarm'));
    assert.equal((await found('经济', coll.chinese.uuid, { mode: 'hybrid' }))[0], 'zhService');
    // zhService holds 服务, 业 and 经济; zhFarm only 服务 and 业: a threshold between their scores keeps one.
    const scored = (await search('服务业 经济', coll.chinese.uuid)) as unknown as { document_id: string; score: number }[];
    const [first, second] = scored.map((r) => r.score);
    assert.ok(first! > second!, JSON.stringify(scored));
    assert.deepEqual(await found('服务业 经济', coll.chinese.uuid, { score_threshold: (first! + second!) / 2 }), ['zhService']);
  });

  it('searches across collections of different languages, each with its own rule', async () => {
    const all = await found('经济 勉強 ภาษา 한국어', '', { collection: undefined });
    assert.deepEqual(all.sort(), ['jaTokyo', 'koStudy', 'thLanguage', 'zhService']);
  });

  it('MCP search_documents searches the same way: Chinese, Japanese and Thai', async () => {
    const call = async (query: string, collection = coll.chinese.slug) => {
      const r = (await mcp.callTool({
        name: 'search_documents',
        arguments: { query, mode: 'text', limit: 10, collection },
      })) as unknown as {
        structuredContent: { results: { document_id: string }[] };
        isError?: boolean;
      };
      assert.ok(!r.isError, JSON.stringify(r));
      return r.structuredContent.results.map((x) => names.get(x.document_id));
    };
    assert.deepEqual(await call('"服务业"'), ['zhService']);
    assert.deepEqual(await call('服务 -农业'), ['zhService']);
    assert.equal((await call('iPhone电池'))[0], 'zhPhone');
    assert.deepEqual(await call('"日本の"', coll.japanese.slug), ['jaKyoto']);
    assert.deepEqual(await call('日本 -東京', coll.japanese.slug), ['jaKyoto']);
    assert.deepEqual(await call('"ภาษาไทย"', coll.thai.slug), ['thLanguage']);
    assert.deepEqual(await call('ภาษา -สวยงาม', coll.thai.slug), []);
  });

  it('highlights the query’s words as written, each word one mark', async () => {
    const hits = await search('服务业 iPhone', coll.chinese.uuid);
    const passages = new Map(hits.map((h) => [h.chunk_id, passageSegments(h.content, h.highlights)]));
    const marks = (doc: Name) =>
      passages
        .get(hits.find((h) => h.document_id === ids[doc])!.chunk_id)!
        .filter((s) => s.mark)
        .map((s) => s.text);
    assert.deepEqual(marks('zhService'), ['服务业']);
    assert.deepEqual(marks('zhPhone'), ['iPhone']);
    const text = (doc: Name) =>
      passages
        .get(hits.find((h) => h.document_id === ids[doc])!.chunk_id)!
        .map((s) => s.text)
        .join('');
    // The passage is the text as written, not its segmented form.
    assert.equal(text('zhService'), TEXTS.zhService);
  });

  it('reindexes when the language changes, to and from a segmented one', async () => {
    const c = await makeCollection(req, a.key, 'Switch', { language: 'simple' });
    const doc = (await addText(req, a.key, c.uuid, 'Doc', TEXTS.zhService)).uuid;
    await waitSettled(req, a.key, [doc]);
    assert.deepEqual(await found('经济', c.uuid), [], 'under simple the sentence is one word');
    const config = async (want: string) =>
      until(
        async () =>
          (await d.deps.sql<{ c: string }[]>`select text_config as c from collections where id = ${c.uuid}`)[0]!.c === want
            ? true
            : undefined,
        30_000,
        `text_config ${want}`,
      );
    assert.equal((await req('PATCH', `/api/v1/collections/${c.uuid}/`, { key: a.key, json: { language: 'chinese' } })).status, 200);
    await config('docsift_chinese');
    assert.deepEqual(await found('经济', c.uuid), [doc]);
    assert.deepEqual(await found('"服务业"', c.uuid), [doc]);
    assert.equal((await req('PATCH', `/api/v1/collections/${c.uuid}/`, { key: a.key, json: { language: 'english' } })).status, 200);
    await config('docsift_english');
    assert.deepEqual(await found('经济', c.uuid), []);
  });

  it('keeps tenants apart', async () => {
    assert.deepEqual(await found('经济', '', { collection: undefined }), ['zhService']);
    const theirs = (await search('经济', coll.bChinese.uuid, {}, b.key)).map((x) => x.document_id);
    assert.deepEqual(theirs, [ids.bService]);
    const foreign = await req('POST', '/api/v1/search/', {
      key: b.key,
      json: { query: '经济', mode: 'text', collection: coll.chinese.uuid },
    });
    assert.equal(foreign.status, 404, foreign.text);
    const patch = await req('PATCH', `/api/v1/collections/${coll.chinese.uuid}/`, { key: b.key, json: { language: 'thai' } });
    assert.equal(patch.status, 404, patch.text);
  });
});
