import { createRoute, z } from '@hono/zod-openapi';
import type { App } from '../app.js';
import { listKeysForUser, type KeyRecord } from '../db/keys.js';
import type { AppDeps } from '../types.js';
import { errorResponses, iso, jsonResponse, Timestamp } from './common.js';

export const ApiKeySchema = z
  .object({
    uuid: z.string().openapi({ format: 'uuid' }),
    name: z.string(),
    prefix: z.string().openapi({ description: 'Leading part of the key, for identification.', example: 'svc_AbCdEfGh' }),
    is_active: z.boolean(),
    is_full_access: z.boolean(),
    rate_tier: z.enum(['free', 'basic', 'pro']),
    expires_in: z.enum(['30d', '90d', '6m', '1y', 'never']).openapi({ description: 'The expiry choice the key was created or last renewed with.' }),
    expires_at: Timestamp.nullable().openapi({ description: 'When the key stops working; null for never.' }),
    last_used_at: Timestamp.nullable(),
    created_at: Timestamp,
  })
  .openapi('ApiKey');

export function keyToJson(k: KeyRecord) {
  return {
    uuid: k.id,
    name: k.name,
    prefix: k.prefix,
    is_active: k.is_active,
    is_full_access: k.is_full_access,
    rate_tier: k.rate_tier,
    expires_in: k.expires_in,
    expires_at: iso(k.expires_at),
    last_used_at: iso(k.last_used_at),
    created_at: k.created_at.toISOString(),
  };
}

const listKeys = createRoute({
  method: 'get',
  path: '/api/v1/keys',
  tags: ['API keys'],
  summary: "List the caller's keys",
  description: "All keys of the calling key's user, newest first. Never includes the secret or its hash.",
  responses: { 200: jsonResponse(z.array(ApiKeySchema), 'Keys of the caller'), ...errorResponses([]) },
});

export function registerKeyRoutes(app: App, deps: AppDeps): void {
  app.openapi(listKeys, async (c) => {
    const rows = await listKeysForUser(deps.sql, c.get('caller').userId);
    return c.json(rows.map(keyToJson), 200);
  });
}
