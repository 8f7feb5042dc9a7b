// The last pass over the generated OpenAPI document: what SDK generators need and the route
// definitions would otherwise repeat 37 times. Stable operationIds (one table, so a new route without
// an id fails the lint test), the rate-limit headers on every response and Retry-After on 429s, and
// an example on every media type: errors get one example per code the operation really returns,
// successes an example built from the schema (field examples first, then realistic values by name).
import { ERROR_EXAMPLES, type ErrorCode } from '../errors.js';
import { RATE_LIMIT_HEADERS } from './usage.js';

/** `METHOD /path/` → operationId. Names follow the SDK's verbs (listX, getX, createX, …). */
export const OPERATION_IDS: Record<string, string> = {
  'GET /api/v1/keys/usage/': 'getUsage',
  'GET /api/v1/keys/{uuid}/usage/': 'getKeyUsage',
  'GET /api/v1/billing/plan/': 'getPlan',
  'GET /api/v1/billing/invoices/': 'listInvoices',
  'GET /api/v1/keys/': 'listKeys',
  'POST /api/v1/keys/': 'createKey',
  'GET /api/v1/keys/current/': 'getCurrentKey',
  'PATCH /api/v1/keys/{uuid}/': 'updateKey',
  'DELETE /api/v1/keys/{uuid}/': 'revokeKey',
  'POST /api/v1/keys/{uuid}/rotate/': 'rotateKey',
  'GET /api/v1/keys/{uuid}/collections/': 'listKeyGrants',
  'POST /api/v1/keys/{uuid}/collections/': 'grantCollection',
  'DELETE /api/v1/keys/{uuid}/collections/{slug}/': 'revokeGrant',
  'GET /api/v1/collections/': 'listCollections',
  'POST /api/v1/collections/': 'createCollection',
  'GET /api/v1/collections/{uuid}/': 'getCollection',
  'PATCH /api/v1/collections/{uuid}/': 'updateCollection',
  'DELETE /api/v1/collections/{uuid}/': 'deleteCollection',
  'POST /api/v1/collections/{slug}/subscribe/': 'subscribeCollection',
  'DELETE /api/v1/collections/{slug}/subscribe/': 'unsubscribeCollection',
  'GET /api/v1/tags/{tag}/documents/': 'listDocumentsByTag',
  'GET /api/v1/documents/': 'listDocuments',
  'GET /api/v1/documents/{uuid}/': 'getDocument',
  'PATCH /api/v1/documents/{uuid}/': 'updateDocument',
  'DELETE /api/v1/documents/{uuid}/': 'deleteDocument',
  'GET /api/v1/documents/{uuid}/download/': 'downloadDocument',
  'POST /api/v1/documents/{uuid}/reprocess/': 'reprocessDocument',
  'POST /api/v1/collections/{uuid}/documents/': 'uploadDocuments',
  'POST /api/v1/documents/{uuid}/replace/': 'replaceDocument',
  'POST /api/v1/search/': 'searchDocuments',
  'GET /api/v1/webhooks/': 'getWebhook',
  'POST /api/v1/webhooks/': 'setWebhook',
  'PATCH /api/v1/webhooks/': 'updateWebhook',
  'DELETE /api/v1/webhooks/': 'deleteWebhook',
  'POST /api/v1/webhooks/rotate-secret/': 'rotateWebhookSecret',
  'POST /api/v1/webhooks/test/': 'testWebhook',
  'GET /api/v1/webhooks/deliveries/': 'listWebhookDeliveries',
  'POST /api/v1/webhooks/deliveries/{id}/redeliver/': 'redeliverWebhook',
};

type Json = Record<string, any>;

/** The operation groups, in reading order. */
const TAGS: Record<string, string> = {
  Collections: 'Create, share (public + subscriptions) and delete collections.',
  Subscriptions: 'Follow public collections of other organizations (read-only).',
  Documents: 'Upload, list, read, replace, reprocess, download and delete documents.',
  Search: 'Hybrid BM25 + vector search over the collections a key can see.',
  'API keys': 'Keys, their collection grants, rotation and usage statistics.',
  Webhooks: 'Signed document.indexed / document.failed events and their delivery log.',
  Billing: 'Plan, quota and invoices.',
};

export function finishOpenApiDocument(doc: Json): Json {
  const used = new Set(Object.values<Json>(doc.paths ?? {}).flatMap((item) => Object.values<Json>(item).flatMap((op) => op.tags ?? [])));
  doc.tags = [...used].map((name) => ({ name, ...(TAGS[name] ? { description: TAGS[name] } : {}) }));
  for (const [p, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const id = OPERATION_IDS[`${method.toUpperCase()} ${p}`];
      if (id) op.operationId = id;
      for (const [status, res] of Object.entries<Json>(op.responses ?? {})) {
        // Every answer of /api/v1 carries the rate-limit headers (401s and the schema included).
        res.headers = { ...RATE_LIMIT_HEADERS, ...res.headers };
        if (status === '429') res.headers['Retry-After'] = RETRY_AFTER;
        for (const media of Object.values<Json>(res.content ?? {})) {
          if (media.example !== undefined || media.examples) continue;
          const codes = errorCodesOf(res);
          if (codes.length) media.examples = errorExamples(codes);
          else media.example = sample(doc, media.schema, '');
        }
      }
      for (const media of Object.values<Json>(op.requestBody?.content ?? {})) {
        if (media.example === undefined && !media.examples) media.example = sample(doc, media.schema, '');
      }
    }
  }
  return doc;
}

const RETRY_AFTER = { description: 'Seconds until a retry can succeed.', schema: { type: 'integer' } };

/** The codes an error response documents: errorResponses() names them in the description. */
function errorCodesOf(res: Json): ErrorCode[] {
  const m = /^[^:]+: ([A-Z_, ]+)$/.exec(res.description ?? '');
  if (!m || !res.content?.['application/json']?.schema?.$ref?.endsWith('/ErrorEnvelope')) return [];
  return m[1]!.split(', ').filter((c): c is ErrorCode => c in ERROR_EXAMPLES);
}

function errorExamples(codes: ErrorCode[]): Json {
  return Object.fromEntries(
    codes.map((code) => {
      const value: Json = { error: ERROR_EXAMPLES[code], code };
      if (code === 'VALIDATION_FAILED') value.fields = { name: ['Name must be at most 200 characters.'] };
      return [code, { summary: code, value }];
    }),
  );
}

const UUIDS = ['3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f', '9b2e7c41-0d3a-4f5e-a6b7-c8d9e0f1a2b3'];
const TIME = '2026-11-24T09:30:00.000Z';

/** Realistic values by property name, for fields whose schema carries no example of its own. */
const BY_NAME: Record<string, unknown> = {
  name: 'Research papers',
  title: 'Contrastive pretraining of text encoders',
  slug: 'research-papers',
  collection: 'research-papers',
  collection_name: 'Research papers',
  collection_slug: 'research-papers',
  description: 'Papers the team cites, with notes.',
  email: 'ada@example.com',
  prefix: 'svc_Ab3dE6gH',
  key: 'svc_Ab3dE6gH9jK2mN5pQ8rS1tU4vW7xY0zA3bC6d',
  secret: 'whsec_5f0c1a9e8b7d6c5b4a39281706f5e4d3',
  url: 'https://example.com/hooks/docsift',
  source_url: 'https://example.com/whitepaper.html',
  original_filename: 'paper.pdf',
  filename: 'paper.pdf',
  media_type: 'application/pdf',
  source_type: 'pdf',
  query: 'contrastive pretraining',
  content: 'We pretrain the encoder with a contrastive objective over 1.2 billion sentence pairs…',
  content_text: 'Contrastive pretraining of text encoders. We pretrain the encoder with a contrastive objective…',
  error_message: '',
  reason: 'Unsupported file type: .exe',
  tags: ['ml', '2026'],
  tag: 'ml',
  permission: 'read',
  event: 'document.indexed',
  endpoint: '/api/v1/search/',
  method: 'POST',
  model: 'builtin-use-lite-512',
  embedding_model: 'builtin-use-lite-512',
  currency: 'usd',
};

/** An example value for a schema: its own example, else by property name, else by type and format. */
export function sample(doc: Json, schema: Json | undefined, prop: string, depth = 0): unknown {
  if (!schema || depth > 8) return null;
  if (schema.$ref) return sample(doc, resolve(doc, schema.$ref), prop, depth + 1);
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined && schema.type !== 'object') return schema.default;
  if (schema.enum?.length) return schema.enum.find((v: unknown) => v !== null) ?? schema.enum[0];
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((s: Json) => sample(doc, s, prop, depth + 1)));
  if (schema.anyOf || schema.oneOf) return sample(doc, (schema.anyOf ?? schema.oneOf)[0], prop, depth + 1);
  if (prop in BY_NAME && fits(BY_NAME[prop], schema.type)) return BY_NAME[prop];
  switch (schema.type) {
    case 'object': {
      const out: Json = {};
      for (const [k, s] of Object.entries<Json>(schema.properties ?? {})) out[k] = sample(doc, s, k, depth + 1);
      if (!schema.properties && schema.additionalProperties) out.example = sample(doc, schema.additionalProperties, 'example', depth + 1);
      return out;
    }
    case 'array':
      return [sample(doc, schema.items, singular(prop), depth + 1)];
    case 'integer':
    case 'number':
      return numberFor(prop, schema);
    case 'boolean':
      return !/^(is_)?(revoked|deleted|disabled)/.test(prop);
    default:
      return stringFor(prop, schema);
  }
}

function fits(value: unknown, type: string | undefined): boolean {
  if (Array.isArray(value)) return type === 'array';
  return typeof value === (type === 'integer' ? 'number' : (type ?? 'string'));
}

function resolve(doc: Json, ref: string): Json | undefined {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<Json | undefined>((o, k) => o?.[k], doc);
}

const singular = (p: string) => (p.endsWith('ies') ? p.slice(0, -3) + 'y' : p.endsWith('s') ? p.slice(0, -1) : p);

function numberFor(prop: string, s: Json): number {
  if (/score|similarity/.test(prop)) return 0.8342;
  if (/size|bytes/.test(prop)) return 482_113;
  if (/_ms$|duration/.test(prop)) return 42;
  if (/cents|amount|total_due/.test(prop)) return 2900;
  if (/page/.test(prop)) return 3;
  if (/status_code/.test(prop)) return 200;
  if (/days/.test(prop)) return 30;
  const min = typeof s.minimum === 'number' ? s.minimum : 0;
  return Math.max(min, /count|total|requests|chunks|limit|remaining/.test(prop) ? 12 : 1);
}

function stringFor(prop: string, s: Json): string {
  if (s.format === 'uuid' || prop === 'uuid' || prop.endsWith('_id') || prop === 'id') return UUIDS[prop === 'uuid' ? 0 : 1]!;
  if (s.format === 'date-time' || prop.endsWith('_at') || prop === 'from' || prop === 'to') return TIME;
  if (s.format === 'date' || prop === 'date' || prop === 'day') return TIME.slice(0, 10);
  if (s.format === 'uri' || prop.endsWith('url')) return 'https://example.com/';
  if (s.format === 'email') return 'ada@example.com';
  if (prop.endsWith('cursor')) return 'eyJ0IjoiMjAyNi0xMS0yNFQwOTozMDowMC4wMDBaIn0';
  return prop ? `${prop.replace(/_/g, ' ')} text` : 'text';
}
