import { createRoute, z } from '@hono/zod-openapi';
import type { App } from './router.js';
import {
  createCollection,
  deleteCollection,
  getVisibleCollection,
  collectionToJson,
  listCollections,
  subscribe,
  unsubscribe,
  updateCollection,
} from '../collections/service.js';
import type { AppDeps } from '../types.js';
import { errorResponses, jsonBody, jsonResponse, Timestamp, UuidParam, withoutNul } from './router.js';

export const CollectionSchema = z
  .object({
    uuid: z.string().openapi({ format: 'uuid' }),
    name: z.string(),
    slug: z.string().openapi({
      description:
        'Derived from the name at creation: lowercase, accents folded to ASCII, other characters replaced by single hyphens, at most 60 characters before any suffix. Globally unique (a clash gets -2, -3, …) and unchanged when the collection is renamed.',
      example: 'research-papers',
    }),
    description: z.string(),
    document_count: z.number().int(),
    total_chunks: z.number().int(),
    is_public: z
      .boolean()
      .openapi({ description: 'Public collections can be subscribed to by other users. Set on create or by the owner with PATCH.' }),
    is_subscribed: z.boolean().openapi({ description: 'Whether the caller subscribes to it.' }),
    language: z.string().openapi({
      description:
        'PostgreSQL text search configuration its text is indexed with: a stemmer (english, french, german, spanish, arabic, greek, hindi, turkish, …), a language whose words the server segments (chinese, japanese, korean, thai), or `simple` for code and identifiers (no stemming, no stop words). GET /api/v1/languages lists them.',
      example: 'english',
    }),
    created_at: Timestamp,
  })
  .openapi('Collection');

const name = withoutNul(
  z
    .string({ error: (iss) => (iss.input === undefined ? 'Name is required.' : 'Name must be a string.') })
    .trim()
    .min(1, 'Name must not be empty.')
    .max(200, 'Name must be at most 200 characters.'),
);
const description = withoutNul(z.string().max(5000, 'Description must be at most 5000 characters.'));
const language = z.string().openapi({
  description:
    "One of GET /api/v1/languages: a PostgreSQL text search configuration (`english`, `french`, `german`, `spanish`, … every stemmer PostgreSQL has), a language written without spaces (`chinese`, `japanese`, `korean`, `thai`: the server segments its words) or `simple`; an unknown one answers 400 VALIDATION_FAILED. Defaults to the server's TEXT_SEARCH_CONFIG (english). Changing it reindexes the collection in the background; searches stay exact meanwhile, with the former language until the reindex commits.",
  example: 'french',
});

export const CreateCollection = z
  .strictObject({
    name,
    description: description.optional(),
    is_public: z.boolean().optional().openapi({ default: false }),
    language: language.optional(),
  })
  .openapi('CreateCollection');
export const UpdateCollection = z
  .strictObject({
    name: name.optional(),
    description: description.optional(),
    is_public: z.boolean().optional(),
    language: language.optional(),
  })
  .openapi('UpdateCollection');

const SlugParam = z.object({ slug: z.string().openapi({ param: { name: 'slug', in: 'path' }, example: 'research-papers' }) });
const SubscriptionResult = z
  .object({ status: z.enum(['subscribed', 'unsubscribed']), collection: z.string().openapi({ description: 'Collection slug.' }) })
  .openapi('SubscriptionResult');

const tags = ['Collections'];
const routes = {
  list: createRoute({
    method: 'get',
    path: '/api/v1/collections',
    operationId: 'listCollections',
    tags,
    summary: 'List visible collections',
    description: 'Collections the caller owns plus public collections it subscribes to; a scoped key sees only its granted collections.',
    responses: { 200: jsonResponse(z.array(CollectionSchema), 'Visible collections, oldest first'), ...errorResponses([]) },
  }),
  create: createRoute({
    method: 'post',
    path: '/api/v1/collections',
    operationId: 'createCollection',
    tags,
    summary: 'Create a collection',
    description: 'Scoped keys get 403 SCOPED_KEY_FORBIDDEN.',
    request: { body: jsonBody(CreateCollection) },
    responses: {
      201: jsonResponse(CollectionSchema, 'Created, owned by the caller'),
      ...errorResponses(['VALIDATION_FAILED', 'SCOPED_KEY_FORBIDDEN']),
    },
  }),
  get: createRoute({
    method: 'get',
    path: '/api/v1/collections/{uuid}',
    operationId: 'getCollection',
    tags,
    summary: 'Get a collection',
    description:
      'A collection the key can see (owned, or public and subscribed; scoped keys: granted only), with its document counts. Anything else answers 404 COLLECTION_NOT_FOUND, never 403.',
    request: { params: UuidParam },
    responses: { 200: jsonResponse(CollectionSchema, 'The collection'), ...errorResponses(['COLLECTION_NOT_FOUND']) },
  }),
  update: createRoute({
    method: 'patch',
    path: '/api/v1/collections/{uuid}',
    operationId: 'updateCollection',
    tags,
    summary: 'Update a collection (owner only)',
    description:
      'Any subset of name, description and is_public. Making a public collection private hides it from subscribers at once. The slug never changes.',
    request: { params: UuidParam, body: jsonBody(UpdateCollection) },
    responses: {
      200: jsonResponse(CollectionSchema, 'Updated collection'),
      ...errorResponses(['VALIDATION_FAILED', 'NOT_COLLECTION_OWNER', 'SCOPED_KEY_FORBIDDEN', 'COLLECTION_NOT_FOUND']),
    },
  }),
  delete: createRoute({
    method: 'delete',
    path: '/api/v1/collections/{uuid}',
    operationId: 'deleteCollection',
    tags,
    summary: 'Delete a collection (owner only)',
    description:
      'Soft delete: the collection and its documents disappear from listings and search at once; stored files are purged after 7 days.',
    request: { params: UuidParam },
    responses: {
      204: { description: 'Deleted; no body' },
      ...errorResponses(['NOT_COLLECTION_OWNER', 'SCOPED_KEY_FORBIDDEN', 'COLLECTION_NOT_FOUND']),
    },
  }),
  subscribe: createRoute({
    method: 'post',
    path: '/api/v1/collections/{slug}/subscribe',
    operationId: 'subscribeCollection',
    tags: ['Subscriptions'],
    summary: 'Subscribe to a public collection',
    description:
      'Makes a public collection visible to the caller. Subscribing to your own collection is a no-op 200. Scoped keys get 403 SCOPED_KEY_FORBIDDEN.',
    request: { params: SlugParam },
    responses: { 200: jsonResponse(SubscriptionResult, 'Subscribed'), ...errorResponses(['COLLECTION_NOT_FOUND', 'SCOPED_KEY_FORBIDDEN']) },
  }),
  unsubscribe: createRoute({
    method: 'delete',
    path: '/api/v1/collections/{slug}/subscribe',
    operationId: 'unsubscribeCollection',
    tags: ['Subscriptions'],
    summary: 'Unsubscribe',
    description: "Also removes grants of the caller's keys on that collection. Scoped keys get 403 SCOPED_KEY_FORBIDDEN.",
    request: { params: SlugParam },
    responses: {
      200: jsonResponse(SubscriptionResult, 'Unsubscribed'),
      ...errorResponses(['SUBSCRIPTION_NOT_FOUND', 'SCOPED_KEY_FORBIDDEN']),
    },
  }),
};

export function registerCollectionRoutes(app: App, deps: AppDeps): void {
  app.openapi(routes.list, async (c) => c.json(await listCollections(deps, c.get('caller')), 200));
  app.openapi(routes.create, async (c) => c.json(await createCollection(deps, c.get('caller'), c.req.valid('json')), 201));
  app.openapi(routes.get, async (c) =>
    c.json(
      collectionToJson(await getVisibleCollection(deps.sql, c.get('caller'), c.req.valid('param').uuid), deps.config.TEXT_SEARCH_CONFIG),
      200,
    ),
  );
  app.openapi(routes.update, async (c) =>
    c.json(await updateCollection(deps, c.get('caller'), c.req.valid('param').uuid, c.req.valid('json')), 200),
  );
  app.openapi(routes.delete, async (c) => {
    await deleteCollection(deps, c.get('caller'), c.req.valid('param').uuid);
    return c.body(null, 204);
  });
  app.openapi(routes.subscribe, async (c) => c.json(await subscribe(deps, c.get('caller'), c.req.valid('param').slug), 200));
  app.openapi(routes.unsubscribe, async (c) => c.json(await unsubscribe(deps, c.get('caller'), c.req.valid('param').slug), 200));
}
