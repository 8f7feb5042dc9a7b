import { createRoute, z } from '@hono/zod-openapi';
import type { App } from './router.js';
import { EXPIRY_CHOICES } from '../auth/keys.js';
import {
  createKey,
  currentKey,
  deleteGrant,
  listGrants,
  listKeys,
  revokeKey,
  rotateKey,
  updateKey,
  upsertGrant,
} from '../auth/key-management.js';
import { AppError, fieldsFromIssues } from '../errors.js';
import type { AppDeps } from '../types.js';
import { errorResponses, jsonBody, jsonResponse, Timestamp, UuidParam, withoutNul } from './router.js';

const SCOPED_NOTE =
  'Scoped keys get 403 SCOPED_KEY_FORBIDDEN on: key management (list, create, update, revoke, rotate, grants), webhook configuration, usage of other keys, collection create/update/delete and subscriptions.';

export const GrantSchema = z
  .object({
    collection: z.string().openapi({ description: 'Collection slug.' }),
    permission: z.enum(['read', 'write']).openapi({
      description: '`read` allows search and retrieval; `write` also allows upload, replace, reprocess and delete of documents.',
    }),
  })
  .openapi('CollectionGrant');

const expiresIn = z
  .enum(EXPIRY_CHOICES)
  .openapi({ description: 'Key lifetime counted from now: 30 days, 90 days, 6 months, 1 year, or never.' });

export const ApiKeySchema = z
  .object({
    uuid: z.string().openapi({ format: 'uuid' }),
    name: z.string(),
    prefix: z.string().openapi({ description: 'Leading part of the key, for identification.', example: 'svc_AbCdEfGh' }),
    is_active: z.boolean(),
    is_full_access: z.boolean(),
    rate_tier: z
      .enum(['free', 'basic', 'pro'])
      .openapi({ description: 'Rate-limit tier; set by an administrator. New keys inherit the creating key’s tier.' }),
    expires_in: expiresIn,
    expires_at: Timestamp.nullable().openapi({ description: 'When the key stops working; null for never.' }),
    last_used_at: Timestamp.nullable(),
    created_at: Timestamp,
    grants: z.array(GrantSchema),
  })
  .openapi('ApiKey');

const ApiKeyWithSecret = ApiKeySchema.extend({
  key: z.string().openapi({ description: 'The full secret (`svc_` + 40 characters). Shown only in this response: store it now.' }),
}).openapi('ApiKeyWithSecret');

const CurrentKey = ApiKeySchema.extend({
  organization: z.object({ uuid: z.string(), name: z.string() }),
  user: z.object({ uuid: z.string(), email: z.string(), name: z.string(), is_admin: z.boolean() }),
}).openapi('CurrentKey');

const keyName = withoutNul(
  z
    .string({ error: (iss) => (iss.input === undefined ? 'Name is required.' : 'Name must be a string.') })
    .trim()
    .min(1, 'Name must not be empty.')
    .max(100, 'Name must be at most 100 characters.'),
);

const CreateKey = z
  .strictObject({
    name: keyName,
    is_full_access: z.boolean().optional().openapi({ default: false }),
    collections: z.array(z.string().min(1)).max(500).optional().openapi({ description: 'Collection slugs granted `read`.' }),
    expires_in: expiresIn.optional().openapi({ default: 'never' }),
  })
  .openapi('CreateKey');
const UpdateKey = z.strictObject({ name: keyName.optional(), expires_in: expiresIn.optional() }).openapi('UpdateKey');
const PutGrant = z
  .strictObject({
    collection: z.string().min(1, 'Collection slug is required.').optional().openapi({ description: 'Collection slug.' }),
    collection_id: z
      .string()
      .min(1)
      .optional()
      .openapi({ description: "The specification's alternative form: a collection uuid or slug. Give `collection` or this." }),
    permission: z.enum(['read', 'write']).optional().openapi({ default: 'read' }),
  })
  .refine((b) => b.collection !== undefined || b.collection_id !== undefined, {
    message: 'Collection slug is required.',
    path: ['collection'],
  })
  .openapi('PutGrant');
const GrantParams = UuidParam.extend({ slug: z.string().openapi({ param: { name: 'slug', in: 'path' } }) });

const tags = ['API keys'];
const keyErrors = ['API_KEY_NOT_FOUND', 'SCOPED_KEY_FORBIDDEN'] as const;
const routes = {
  list: createRoute({
    method: 'get',
    path: '/api/v1/keys',
    operationId: 'listKeys',
    tags,
    summary: "List the caller's keys",
    description: `All keys of the calling key's user, newest first, with their grants. Never includes the secret or its hash. ${SCOPED_NOTE}`,
    responses: { 200: jsonResponse(z.array(ApiKeySchema), 'Keys'), ...errorResponses(['SCOPED_KEY_FORBIDDEN']) },
  }),
  current: createRoute({
    method: 'get',
    path: '/api/v1/keys/current',
    operationId: 'getCurrentKey',
    tags,
    summary: 'The calling key (whoami)',
    description: 'Describes the key used for this request, its user and organization. Allowed for every key.',
    responses: { 200: jsonResponse(CurrentKey, 'The calling key'), ...errorResponses([]) },
  }),
  create: createRoute({
    method: 'post',
    path: '/api/v1/keys',
    operationId: 'createKey',
    tags,
    summary: 'Create a key',
    description: `Returns the secret once. Grants named in \`collections\` get \`read\`; add \`write\` with the grants endpoint. ${SCOPED_NOTE}`,
    request: { body: jsonBody(CreateKey) },
    responses: {
      201: jsonResponse(ApiKeyWithSecret, 'Created'),
      ...errorResponses(['VALIDATION_FAILED', 'NAME_REQUIRED', 'COLLECTION_NOT_FOUND', 'SCOPED_KEY_FORBIDDEN']),
    },
  }),
  update: createRoute({
    method: 'patch',
    path: '/api/v1/keys/{uuid}',
    operationId: 'updateKey',
    tags,
    summary: 'Rename a key or set a new expiry',
    description: 'A new `expires_in` counts from now; this renews an expired key without changing its secret.',
    request: { params: UuidParam, body: jsonBody(UpdateKey) },
    responses: { 200: jsonResponse(ApiKeySchema, 'Updated'), ...errorResponses(['VALIDATION_FAILED', ...keyErrors]) },
  }),
  revoke: createRoute({
    method: 'delete',
    path: '/api/v1/keys/{uuid}',
    operationId: 'revokeKey',
    tags,
    summary: 'Revoke a key',
    description: 'Deactivates the key at once (it then answers 401 INVALID_API_KEY). Idempotent. Returns the deactivated record.',
    request: { params: UuidParam },
    responses: { 200: jsonResponse(ApiKeySchema, 'Revoked'), ...errorResponses([...keyErrors]) },
  }),
  rotate: createRoute({
    method: 'post',
    path: '/api/v1/keys/{uuid}/rotate',
    operationId: 'rotateKey',
    tags,
    summary: 'Rotate a key',
    description:
      'The old key stops working at once. A new record keeps the name, grants and their permissions, full-access flag, tier and expiry choice (counted from now). The new secret is shown once.',
    request: { params: UuidParam },
    responses: { 201: jsonResponse(ApiKeyWithSecret, 'New key'), ...errorResponses(['VALIDATION_FAILED', ...keyErrors]) },
  }),
  grants: createRoute({
    method: 'get',
    path: '/api/v1/keys/{uuid}/collections',
    operationId: 'listKeyGrants',
    tags,
    summary: "List a key's collection grants",
    description: `One key of the caller's user (404 API_KEY_NOT_FOUND otherwise): each granted collection by slug with its permission (\`read\` or \`write\`). Full-access keys have no grants; they see everything their user sees. ${SCOPED_NOTE}`,
    request: { params: UuidParam },
    responses: { 200: jsonResponse(z.array(GrantSchema), 'Grants'), ...errorResponses([...keyErrors]) },
  }),
  putGrant: createRoute({
    method: 'post',
    path: '/api/v1/keys/{uuid}/collections',
    operationId: 'grantCollection',
    tags,
    summary: 'Grant a collection to a key',
    description:
      'Creates the grant (201) or updates its permission (200). The collection must be visible to the key’s owner; `write` needs a collection the owner owns.',
    request: { params: UuidParam, body: jsonBody(PutGrant) },
    responses: {
      200: jsonResponse(GrantSchema, 'Existing grant updated'),
      201: jsonResponse(GrantSchema, 'Grant created'),
      ...errorResponses(['VALIDATION_FAILED', 'COLLECTION_NOT_FOUND', ...keyErrors]),
    },
  }),
  deleteGrant: createRoute({
    method: 'delete',
    path: '/api/v1/keys/{uuid}/collections/{slug}',
    operationId: 'revokeGrant',
    tags,
    summary: 'Remove a grant',
    description: `The key loses access to the collection at once (204). 404 GRANT_NOT_FOUND when the key has no grant on it. ${SCOPED_NOTE}`,
    request: { params: GrantParams },
    responses: { 204: { description: 'Removed; no body' }, ...errorResponses(['GRANT_NOT_FOUND', ...keyErrors]) },
  }),
};

/**
 * Key creation reports a missing or empty name as 400 NAME_REQUIRED (with `fields.name`), the
 * dedicated code of docs/service-spec.md §7; every other problem is VALIDATION_FAILED.
 */
function nameRequiredHook(result: {
  success: boolean;
  error?: { issues: { path: PropertyKey[]; code?: string; message: string }[] };
}): undefined {
  if (result.success || !result.error) return undefined;
  const fields = fieldsFromIssues(result.error.issues);
  const onlyName = result.error.issues.every(
    (i) => i.path.length === 1 && i.path[0] === 'name' && (i.code === 'too_small' || i.code === 'invalid_type'),
  );
  throw new AppError(
    onlyName ? 'NAME_REQUIRED' : 'VALIDATION_FAILED',
    onlyName ? 'A key name is required.' : 'One or more fields failed validation.',
    fields,
  );
}

export function registerKeyRoutes(app: App, deps: AppDeps): void {
  app.openapi(routes.list, async (c) => c.json(await listKeys(deps, c.get('caller')), 200));
  app.openapi(routes.current, async (c) => c.json(await currentKey(deps, c.get('caller')), 200));
  app.openapi(
    routes.create,
    async (c) => c.json(await createKey(deps, c.get('caller'), c.req.valid('json')), 201),
    nameRequiredHook as never,
  );
  app.openapi(routes.update, async (c) =>
    c.json(await updateKey(deps, c.get('caller'), c.req.valid('param').uuid, c.req.valid('json')), 200),
  );
  app.openapi(routes.revoke, async (c) => c.json(await revokeKey(deps, c.get('caller'), c.req.valid('param').uuid), 200));
  app.openapi(routes.rotate, async (c) => c.json(await rotateKey(deps, c.get('caller'), c.req.valid('param').uuid), 201));
  app.openapi(routes.grants, async (c) => c.json(await listGrants(deps, c.get('caller'), c.req.valid('param').uuid), 200));
  app.openapi(routes.putGrant, async (c) => {
    const body = c.req.valid('json');
    const r = await upsertGrant(deps, c.get('caller'), c.req.valid('param').uuid, {
      collection: (body.collection ?? body.collection_id)!,
      permission: body.permission ?? 'read',
    });
    return c.json(r.grant, r.created ? 201 : 200);
  });
  app.openapi(routes.deleteGrant, async (c) => {
    const p = c.req.valid('param');
    await deleteGrant(deps, c.get('caller'), p.uuid, p.slug);
    return c.body(null, 204);
  });
}
