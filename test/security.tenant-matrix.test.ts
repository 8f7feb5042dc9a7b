import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { ErrorCode } from '../daemon/src/errors.js';
import { createMember, createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

/*
 * THE TENANT MATRIX: no key may read, list, change or learn the existence of another user's
 * private objects. Every row below names one endpoint. It runs for each of the attacker's three
 * keys (full-access, read-scoped, write-scoped) against every matching victim object that the key
 * cannot see, and once against a never-existing "ghost" object of the same kind. Each answer must
 * be the expected 404 code (never 403, never 2xx), must equal the ghost's answer once identifiers
 * are masked, and must not mention any of the victim's identifiers the request did not itself carry.
 *
 * LATER ISSUES: add one row per new endpoint: search (collection filter), webhooks, usage
 * (/keys/{uuid}/usage/) and every MCP tool belong here, and list endpoints go in the "list
 * endpoints" test. A new kind of victim object (a webhook, say) needs a TargetKind, a field on Side
 * built in buildSide(), and cases in victimTargets() and ghostTarget().
 */
const CASES: Case[] = [
  // Collections, by uuid.
  {
    name: 'get collection',
    method: 'GET',
    target: 'collection',
    path: (p) => `/api/v1/collections/${p.t.uuid}/`,
    code: 'COLLECTION_NOT_FOUND',
  },
  {
    name: 'patch collection',
    method: 'PATCH',
    target: 'collection',
    path: (p) => `/api/v1/collections/${p.t.uuid}/`,
    body: () => ({ name: 'pwned', is_public: true }),
    code: 'COLLECTION_NOT_FOUND',
  },
  {
    name: 'delete collection',
    method: 'DELETE',
    target: 'collection',
    path: (p) => `/api/v1/collections/${p.t.uuid}/`,
    code: 'COLLECTION_NOT_FOUND',
  },
  // Subscriptions, by slug. (Subscribing to a public collection is allowed, so only private ones here.)
  {
    name: 'subscribe',
    method: 'POST',
    target: 'collection',
    only: ['private'],
    path: (p) => `/api/v1/collections/${p.t.slug}/subscribe/`,
    code: 'COLLECTION_NOT_FOUND',
  },
  {
    name: 'unsubscribe',
    method: 'DELETE',
    target: 'collection',
    only: ['private', 'public'],
    path: (p) => `/api/v1/collections/${p.t.slug}/subscribe/`,
    code: 'SUBSCRIPTION_NOT_FOUND',
  },
  // The attacker's own keys pointed at the victim's collections.
  {
    name: 'create key granting victim collection',
    method: 'POST',
    target: 'collection',
    only: ['private', 'public'],
    path: () => '/api/v1/keys/',
    body: (p) => ({ name: 'probe', collections: [p.t.slug] }),
    code: 'COLLECTION_NOT_FOUND',
  },
  {
    name: 'grant victim collection (read) to own key',
    method: 'POST',
    target: 'collection',
    only: ['private', 'public'],
    path: (p) => `/api/v1/keys/${p.me.keys.full.uuid}/collections/`,
    body: (p) => ({ collection: p.t.slug }),
    code: 'COLLECTION_NOT_FOUND',
  },
  {
    name: 'grant victim collection (write) to own scoped key',
    method: 'POST',
    target: 'collection',
    only: ['private', 'public'],
    path: (p) => `/api/v1/keys/${p.me.keys.write.uuid}/collections/`,
    body: (p) => ({ collection: p.t.slug, permission: 'write' }),
    code: 'COLLECTION_NOT_FOUND',
  },
  {
    name: 'delete grant of victim collection from own key',
    method: 'DELETE',
    target: 'collection',
    only: ['private', 'public'],
    path: (p) => `/api/v1/keys/${p.me.keys.read.uuid}/collections/${p.t.slug}/`,
    code: 'GRANT_NOT_FOUND',
  },
  // The victim's keys, by uuid.
  {
    name: 'patch key',
    method: 'PATCH',
    target: 'key',
    path: (p) => `/api/v1/keys/${p.t.uuid}/`,
    body: () => ({ name: 'pwned', expires_in: '30d' }),
    code: 'API_KEY_NOT_FOUND',
  },
  { name: 'revoke key', method: 'DELETE', target: 'key', path: (p) => `/api/v1/keys/${p.t.uuid}/`, code: 'API_KEY_NOT_FOUND' },
  { name: 'rotate key', method: 'POST', target: 'key', path: (p) => `/api/v1/keys/${p.t.uuid}/rotate/`, code: 'API_KEY_NOT_FOUND' },
  {
    name: 'list key grants',
    method: 'GET',
    target: 'key',
    path: (p) => `/api/v1/keys/${p.t.uuid}/collections/`,
    code: 'API_KEY_NOT_FOUND',
  },
  {
    name: 'grant own collection to victim key',
    method: 'POST',
    target: 'key',
    path: (p) => `/api/v1/keys/${p.t.uuid}/collections/`,
    body: (p) => ({ collection: p.me.private.slug, permission: 'write' }),
    code: 'API_KEY_NOT_FOUND',
  },
  {
    name: 'grant victim collection to victim key',
    method: 'POST',
    target: 'key',
    path: (p) => `/api/v1/keys/${p.t.uuid}/collections/`,
    body: (p) => ({ collection: p.victim.private.slug }),
    code: 'API_KEY_NOT_FOUND',
  },
  {
    name: 'delete victim key grant',
    method: 'DELETE',
    target: 'key',
    path: (p) => `/api/v1/keys/${p.t.uuid}/collections/${p.victim.private.slug}/`,
    code: 'API_KEY_NOT_FOUND',
  },
  // Documents: writing into the victim's collections, and the victim's documents by uuid.
  {
    name: 'upload text document (JSON)',
    method: 'POST',
    target: 'collection',
    path: (p) => `/api/v1/collections/${p.t.uuid}/documents/`,
    body: () => ({ source_type: 'text', content: 'pwned', title: 'pwned' }),
    code: 'COLLECTION_NOT_FOUND',
  },
  {
    name: 'upload file (multipart)',
    method: 'POST',
    target: 'collection',
    path: (p) => `/api/v1/collections/${p.t.uuid}/documents/`,
    form: () => textFile('pwned.txt'),
    code: 'COLLECTION_NOT_FOUND',
  },
  { name: 'get document', method: 'GET', target: 'document', path: (p) => `/api/v1/documents/${p.t.uuid}/`, code: 'DOCUMENT_NOT_FOUND' },
  {
    name: 'download document',
    method: 'GET',
    target: 'document',
    path: (p) => `/api/v1/documents/${p.t.uuid}/download/`,
    code: 'DOCUMENT_NOT_FOUND',
  },
  {
    name: 'replace document',
    method: 'POST',
    target: 'document',
    path: (p) => `/api/v1/documents/${p.t.uuid}/replace/`,
    form: () => textFile('pwned.txt'),
    code: 'DOCUMENT_NOT_FOUND',
  },
  {
    name: 'reprocess document',
    method: 'POST',
    target: 'document',
    path: (p) => `/api/v1/documents/${p.t.uuid}/reprocess/`,
    code: 'DOCUMENT_NOT_FOUND',
  },
  {
    name: 'delete document',
    method: 'DELETE',
    target: 'document',
    path: (p) => `/api/v1/documents/${p.t.uuid}/`,
    code: 'DOCUMENT_NOT_FOUND',
  },
  // Search and tags, narrowed to the victim's collection.
  {
    name: 'search in victim collection',
    method: 'POST',
    target: 'collection',
    path: () => '/api/v1/search/',
    body: (p) => ({ query: 'secret text', collection: p.t.slug }),
    code: 'COLLECTION_NOT_FOUND',
  },
  {
    name: 'search by legacy collection_id (uuid)',
    method: 'POST',
    target: 'collection',
    path: () => '/api/v1/search/',
    body: (p) => ({ query: 'secret text', collection_id: p.t.uuid }),
    code: 'COLLECTION_NOT_FOUND',
  },
  {
    name: 'documents by tag in victim collection',
    method: 'GET',
    target: 'collection',
    path: (p) => `/api/v1/tags/${p.victim.tag}/documents/?collection=${p.t.slug}`,
    code: 'COLLECTION_NOT_FOUND',
  },
  // MCP tools (JSON-RPC over /mcp): a tool error with the API code counts as the 404 here.
  {
    name: 'MCP get_document_info',
    method: 'POST',
    target: 'document',
    path: () => '/mcp',
    mcp: (p) => ({ name: 'get_document_info', arguments: { document_id: p.t.uuid } }),
    code: 'DOCUMENT_NOT_FOUND',
  },
  {
    name: 'MCP search_documents in victim collection',
    method: 'POST',
    target: 'collection',
    path: () => '/mcp',
    mcp: (p) => ({ name: 'search_documents', arguments: { query: 'secret text', collection: p.t.slug } }),
    code: 'COLLECTION_NOT_FOUND',
  },
  {
    name: 'MCP search_by_tag in victim collection',
    method: 'POST',
    target: 'collection',
    path: () => '/mcp',
    mcp: (p) => ({ name: 'search_by_tag', arguments: { tag: p.victim.tag, collection: p.t.slug } }),
    code: 'COLLECTION_NOT_FOUND',
  },
];

const MCP_HEADERS = { accept: 'application/json, text/event-stream' };
/** A JSON-RPC tools/call; the tool result's isError/structuredContent are mapped onto status/body. */
function mcpCall(params: { name: string; arguments: Record<string, unknown> }) {
  return { jsonrpc: '2.0', id: 1, method: 'tools/call', params };
}
function fromMcp<T extends { status: number; body: any; text: string }>(r: T): T {
  const result = r.body?.result;
  if (r.status !== 200 || !result) return r;
  const body = result.structuredContent;
  return { ...r, status: result.isError ? 404 : 200, body, text: JSON.stringify(result) };
}

function textFile(name: string): FormData {
  const f = new FormData();
  f.set('file', new Blob(['pwned text'], { type: 'text/plain' }), name);
  return f;
}

/** Who attacks whom: two organizations both ways, plus a colleague inside the victim's organization. */
const PAIRS: [attacker: SideName, victim: SideName][] = [
  ['A', 'B'],
  ['B', 'A'],
  ['A2', 'A'],
];

type KeyKind = 'full' | 'read' | 'write';
const KEY_KINDS: KeyKind[] = ['full', 'read', 'write'];
type SideName = 'A' | 'B' | 'A2';
type TargetKind = 'collection' | 'key' | 'document';
/** private: never visible; public: public, attacker not subscribed; shared: public, attacker subscribed (visible to its full key only). */
type CollectionRole = 'private' | 'public' | 'shared';

interface KeyRef {
  uuid: string;
  secret: string;
  prefix: string;
}
interface CollRef {
  uuid: string;
  slug: string;
  name: string;
}
interface DocRef {
  uuid: string;
  title: string;
}
interface Side {
  label: SideName;
  tenant: Tenant;
  keys: Record<KeyKind, KeyRef>;
  private: CollRef;
  public: CollRef;
  shared: CollRef;
  /** One text document in each collection, tagged with `tag`. */
  docs: Record<CollectionRole, DocRef>;
  tag: string;
}
interface Target {
  kind: TargetKind;
  role: string;
  uuid: string;
  slug: string;
  /** Identifiers that must never show up in an answer unless the request carried them. */
  secrets: string[];
  /** Attacker key kinds that can legitimately see this object (the row is skipped for them). */
  visibleTo: KeyKind[];
}
interface Probe {
  me: Side;
  victim: Side;
  caller: KeyKind;
  t: Target;
}
interface Case {
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  target: TargetKind;
  /** Restrict to these collection roles (default: every role the caller cannot see). */
  only?: CollectionRole[];
  path: (p: Probe) => string;
  body?: (p: Probe) => unknown;
  /** A multipart body instead of JSON. */
  form?: (p: Probe) => FormData;
  /** An MCP tool call instead of a REST request. */
  mcp?: (p: Probe) => { name: string; arguments: Record<string, unknown> };
  expect?: 404;
  code: ErrorCode;
}

function collectionTarget(role: CollectionRole, c: CollRef): Target {
  return {
    kind: 'collection',
    role,
    uuid: c.uuid,
    slug: c.slug,
    secrets: [c.uuid, c.slug, c.name],
    visibleTo: role === 'shared' ? ['full'] : [],
  };
}
const ROLES: CollectionRole[] = ['private', 'public', 'shared'];
function victimTargets(v: Side, kind: TargetKind): Target[] {
  if (kind === 'collection') return ROLES.map((r) => collectionTarget(r, v[r]));
  if (kind === 'document') {
    return ROLES.map((r) => ({
      kind,
      role: r,
      uuid: v.docs[r].uuid,
      slug: '',
      secrets: [v.docs[r].uuid, v.docs[r].title],
      visibleTo: collectionTarget(r, v[r]).visibleTo,
    }));
  }
  return KEY_KINDS.map((k) => ({
    kind: 'key',
    role: `${k} key`,
    uuid: v.keys[k].uuid,
    slug: '',
    secrets: [v.keys[k].uuid, v.keys[k].prefix],
    visibleTo: [],
  }));
}
function ghostTarget(kind: TargetKind): Target {
  const tag = randomBytes(4).toString('hex');
  const uuid = randomUUID();
  return kind === 'collection'
    ? { kind, role: 'ghost', uuid, slug: `ghost-${tag}`, secrets: [], visibleTo: [] }
    : { kind, role: 'ghost', uuid, slug: '', secrets: [], visibleTo: [] };
}
/** Every identifier of a side that another user must never learn. */
function sideSecrets(s: Side): string[] {
  const colls = [s.private, s.public, s.shared].flatMap((c) => [c.uuid, c.slug, c.name]);
  const docs = ROLES.flatMap((r) => [s.docs[r].uuid, s.docs[r].title]);
  const keys = KEY_KINDS.flatMap((k) => [s.keys[k].uuid, s.keys[k].prefix, s.keys[k].secret]);
  return [...colls, ...docs, ...keys, s.tag, s.tenant.userId, s.tenant.orgId, s.tenant.email];
}
function mask(text: string, t: Target): string {
  let out = text;
  for (const id of [t.uuid, t.slug].filter(Boolean)) out = out.split(id).join('<target>');
  return out;
}

describe('security: tenant matrix', () => {
  let d: TestDaemon;
  let req: ReturnType<typeof http>;
  const sides = {} as Record<SideName, Side>;
  const snapshots = new Map<SideName, unknown>();

  async function buildSide(label: SideName, colleagueOf?: Tenant): Promise<Side> {
    const tenant = colleagueOf ? await createMember(d, colleagueOf, `matrix-${label}`) : await createTenant(d, `matrix-${label}`);
    const tag = randomBytes(3).toString('hex');
    const mk = async (role: CollectionRole): Promise<CollRef> => {
      const r = await req('POST', '/api/v1/collections/', {
        key: tenant.key,
        json: { name: `Matrix ${label} ${role} ${tag}`, is_public: role !== 'private' },
      });
      assert.equal(r.status, 201, r.text);
      return { uuid: r.body.uuid, slug: r.body.slug, name: r.body.name };
    };
    const priv = await mk('private');
    const pub = await mk('public');
    const shared = await mk('shared');
    const docs = {} as Record<CollectionRole, DocRef>;
    for (const [role, c] of [
      ['private', priv],
      ['public', pub],
      ['shared', shared],
    ] as const) {
      const title = `Matrix ${label} ${role} doc ${tag}`;
      const r = await req('POST', `/api/v1/collections/${c.uuid}/documents/`, {
        key: tenant.key,
        json: { source_type: 'text', content: `secret text ${tag}`, title, tags: [`tag${tag}`] },
      });
      assert.equal(r.status, 201, r.text);
      docs[role] = { uuid: r.body.uuid, title };
    }
    const me = await req('GET', '/api/v1/keys/current/', { key: tenant.key });
    const scoped = async (name: string): Promise<KeyRef> => {
      const r = await req('POST', '/api/v1/keys/', { key: tenant.key, json: { name, collections: [priv.slug] } });
      assert.equal(r.status, 201, r.text);
      return { uuid: r.body.uuid, secret: r.body.key, prefix: r.body.prefix };
    };
    const read = await scoped('read-scoped');
    const write = await scoped('write-scoped');
    const g = await req('POST', `/api/v1/keys/${write.uuid}/collections/`, {
      key: tenant.key,
      json: { collection: priv.slug, permission: 'write' },
    });
    assert.equal(g.status, 200, g.text);
    // Plenty of requests come from one user; the top tier keeps rate limits out of the picture.
    await d.deps.sql`update api_keys set rate_tier = 'pro' where user_id = ${tenant.userId}`;
    const keys = { full: { uuid: me.body.uuid, secret: tenant.key, prefix: me.body.prefix }, read, write };
    return { label, tenant, keys, private: priv, public: pub, shared, docs, tag: `tag${tag}` };
  }

  /** What the victim can observe about its own objects; must be identical after the attacks. */
  async function snapshot(s: Side) {
    const colls = await req('GET', '/api/v1/collections/', { key: s.keys.full.secret });
    const keys = await req('GET', '/api/v1/keys/', { key: s.keys.full.secret });
    const docs = await req('GET', '/api/v1/documents/', { key: s.keys.full.secret });
    const subs = await d.deps
      .sql`select user_id, collection_id from subscriptions where collection_id in ${d.deps.sql([s.private.uuid, s.public.uuid, s.shared.uuid])} order by 1, 2`;
    return {
      collections: colls.body,
      documents: docs.body,
      keys: keys.body.map((k: Record<string, unknown>) => ({ ...k, last_used_at: null })),
      subscriptions: subs.map((r) => ({ ...r })),
    };
  }

  before(async () => {
    d = await startTestDaemon({ label: 'matrix', worker: true });
    req = http(d.url);
    sides.A = await buildSide('A');
    sides.B = await buildSide('B');
    sides.A2 = await buildSide('A2', sides.A.tenant);
    for (const [att, vic] of PAIRS) {
      const r = await req('POST', `/api/v1/collections/${sides[vic].shared.slug}/subscribe/`, { key: sides[att].keys.full.secret });
      assert.equal(r.status, 200, r.text);
    }
    // Documents must be indexed (so search could find them) and settled before the snapshots.
    for (let i = 0; ; i++) {
      const [row] = await d.deps.sql<{ n: number }[]>`select count(*)::int as n from documents where status = 'pending'`;
      if (!row!.n) break;
      assert.ok(i < 600, 'documents never finished indexing');
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const name of Object.keys(sides) as SideName[]) snapshots.set(name, await snapshot(sides[name]));
  });
  after(async () => d?.close());

  for (const [att, vic] of PAIRS) {
    describe(`${att} against ${vic}`, () => {
      for (const c of CASES) {
        it(`${c.method} ${c.name}`, async () => {
          const me = sides[att];
          const victim = sides[vic];
          const forbidden = sideSecrets(victim).filter((x) => x !== me.tenant.orgId);
          let probes = 0;
          // The three keys probe concurrently; each compares only against its own ghost answer.
          await Promise.all(
            KEY_KINDS.map(async (caller) => {
              const key = me.keys[caller].secret;
              const send = async (t: Target) => {
                const p: Probe = { me, victim, caller, t };
                const path = c.path(p);
                const body = c.mcp ? mcpCall(c.mcp(p)) : c.body?.(p);
                const raw = await req(c.method, path, {
                  key,
                  ...(body === undefined ? {} : { json: body }),
                  ...(c.form ? { body: c.form(p) } : {}),
                  ...(c.mcp ? { headers: MCP_HEADERS } : {}),
                });
                const r = c.mcp ? fromMcp(raw) : raw;
                return { r, sent: path + JSON.stringify(body ?? null) };
              };
              const ghost = ghostTarget(c.target);
              const g = await send(ghost);
              assert.equal(g.r.status, c.expect ?? 404, `${caller} key, ghost: ${g.r.text}`);
              assert.equal(g.r.body.code, c.code, `${caller} key, ghost: ${g.r.text}`);
              const targets = victimTargets(victim, c.target).filter(
                (t) => !t.visibleTo.includes(caller) && (!c.only || c.only.includes(t.role as CollectionRole)),
              );
              for (const t of targets) {
                const label = `${caller} key → ${vic}'s ${t.role}`;
                const { r, sent } = await send(t);
                probes++;
                assert.equal(r.status, c.expect ?? 404, `${label}: ${r.text}`);
                assert.equal(r.body.code, c.code, `${label}: ${r.text}`);
                assert.equal(mask(r.text, t), mask(g.r.text, ghost), `${label}: answer differs from a never-existing object`);
                for (const s of forbidden) {
                  if (!sent.includes(s)) assert.ok(!r.text.includes(s), `${label}: response leaks ${s}`);
                }
              }
            }),
          );
          assert.ok(probes > 0, 'the row probed nothing');
        });
      }

      it('list endpoints never include the victim’s objects', async () => {
        const me = sides[att];
        const victim = sides[vic];
        // A colleague shares the organization, so its uuid is no secret between them.
        const forbidden = sideSecrets(victim).filter((x) => x !== me.tenant.orgId);
        // The one visible victim object is the subscribed public collection (and its document), seen only by the full key.
        const shared = [
          victim.shared.uuid,
          victim.shared.slug,
          victim.shared.name,
          victim.docs.shared.uuid,
          victim.docs.shared.title,
          victim.tag,
        ];
        const victimColls = ROLES.map((r) => victim[r].uuid);
        const victimDocs = ROLES.map((r) => victim.docs[r].uuid);
        for (const caller of KEY_KINDS) {
          const key = me.keys[caller].secret;
          const exempt = new Set(caller === 'full' ? shared : []);
          const noLeak = (what: string, text: string, allowed = exempt) => {
            for (const s of forbidden) if (!allowed.has(s)) assert.ok(!text.includes(s), `${caller} key, ${what}: leaks ${s}`);
          };

          const colls = await req('GET', '/api/v1/collections/', { key });
          assert.equal(colls.status, 200);
          const ids = colls.body.map((c: CollRef) => c.uuid).filter((id: string) => victimColls.includes(id));
          assert.deepEqual(ids, caller === 'full' ? [victim.shared.uuid] : []);
          noLeak('collections list', colls.text);

          const docs = await req('GET', '/api/v1/documents/?limit=500', { key });
          assert.equal(docs.status, 200, docs.text);
          assert.deepEqual(
            docs.body.map((d: DocRef) => d.uuid).filter((id: string) => victimDocs.includes(id)),
            caller === 'full' ? [victim.docs.shared.uuid] : [],
          );
          noLeak('documents list', docs.text);
          const tagged = await req('GET', `/api/v1/documents/?tag=${victim.tag}`, { key });
          assert.deepEqual(
            tagged.body.map((d: DocRef) => d.uuid),
            caller === 'full' ? [victim.docs.shared.uuid] : [],
          );
          noLeak('documents by tag', tagged.text);
          const ghost = ghostTarget('collection');
          const g = await req('GET', `/api/v1/documents/?collection=${ghost.slug}`, { key });
          for (const role of ['private', 'public'] as const) {
            const t = collectionTarget(role, victim[role]);
            const r = await req('GET', `/api/v1/documents/?collection=${t.slug}`, { key });
            assert.equal(
              mask(r.text, t),
              mask(g.text, ghost),
              `${caller} key, documents of ${vic}'s ${role} collection differ from a ghost's`,
            );
            noLeak(`documents of ${role} collection`, r.text, new Set([t.slug]));
          }

          const found = await req('POST', '/api/v1/search/', { key, json: { query: 'secret text', limit: 50 } });
          assert.equal(found.status, 200, found.text);
          assert.deepEqual(
            found.body.results.map((x: { document_id: string }) => x.document_id).filter((id: string) => victimDocs.includes(id)),
            caller === 'full' ? [victim.docs.shared.uuid] : [],
          );
          noLeak('search', JSON.stringify(found.body.results));
          const byTag = await req('GET', `/api/v1/tags/${victim.tag}/documents/`, { key });
          assert.deepEqual(
            byTag.body.documents.map((x: DocRef) => x.uuid),
            caller === 'full' ? [victim.docs.shared.uuid] : [],
          );
          noLeak('tags', JSON.stringify(byTag.body.documents));
          const mcpList = fromMcp(
            await req('POST', '/mcp', { key, json: mcpCall({ name: 'list_collections', arguments: {} }), headers: MCP_HEADERS }),
          );
          assert.deepEqual(
            mcpList.body.collections.map((c: CollRef) => c.uuid).filter((id: string) => victimColls.includes(id)),
            caller === 'full' ? [victim.shared.uuid] : [],
          );
          noLeak('MCP list_collections', mcpList.text);
          const mcpSearch = fromMcp(
            await req('POST', '/mcp', {
              key,
              json: mcpCall({ name: 'search_documents', arguments: { query: 'secret text', limit: 50 } }),
              headers: MCP_HEADERS,
            }),
          );
          assert.deepEqual(
            mcpSearch.body.results.map((x: { document_id: string }) => x.document_id).filter((id: string) => victimDocs.includes(id)),
            caller === 'full' ? [victim.docs.shared.uuid] : [],
          );
          noLeak('MCP search', JSON.stringify(mcpSearch.body.results));
          const mcpTag = fromMcp(
            await req('POST', '/mcp', {
              key,
              json: mcpCall({ name: 'search_by_tag', arguments: { tag: victim.tag } }),
              headers: MCP_HEADERS,
            }),
          );
          assert.deepEqual(
            mcpTag.body.documents.map((x: DocRef) => x.uuid),
            caller === 'full' ? [victim.docs.shared.uuid] : [],
          );

          const keys = await req('GET', '/api/v1/keys/', { key });
          assert.equal(keys.status, caller === 'full' ? 200 : 403);
          noLeak('keys list', keys.text, new Set());
          const current = await req('GET', '/api/v1/keys/current/', { key });
          assert.equal(current.status, 200);
          noLeak('current key', current.text, new Set());
        }
      });
    });
  }

  it('afterwards every side is exactly as it was, and all its keys still work', async () => {
    for (const name of Object.keys(sides) as SideName[]) {
      assert.deepEqual(await snapshot(sides[name]), snapshots.get(name), `${name} changed`);
      for (const k of KEY_KINDS) {
        const r = await req('GET', '/api/v1/keys/current/', { key: sides[name].keys[k].secret });
        assert.equal(r.status, 200, `${name} ${k} key: ${r.text}`);
      }
    }
  });
});
