import type { CallOptions, Transport } from '../transport.js';
import type { ApiKey, ApiKeyWithSecret, CollectionGrant, CreateKey, CurrentKey, PutGrant, UpdateKey } from '../types.js';

export function keysResource(t: Transport) {
  const path = (uuid: string) => ({ params: { path: { uuid } } });
  return {
    /** The caller's keys with their grants (never the secrets). */
    list(opts?: CallOptions): Promise<ApiKey[]> {
      return t.get('/api/v1/keys/', opts);
    },
    /** The calling key, its user and organization: what `whoami` shows. */
    current(opts?: CallOptions): Promise<CurrentKey> {
      return t.get('/api/v1/keys/current/', opts);
    },
    /** Creates a key; the response's `key` is the only time the secret is shown. */
    create(body: CreateKey, opts?: CallOptions): Promise<ApiKeyWithSecret> {
      return t.post('/api/v1/keys/', { body, ...opts });
    },
    /** Renames a key or sets a new expiry (which also renews an expired key). */
    update(uuid: string, body: UpdateKey, opts?: CallOptions): Promise<ApiKey> {
      return t.patch('/api/v1/keys/{uuid}/', { ...path(uuid), body, ...opts });
    },
    /** Deactivates a key at once. */
    revoke(uuid: string, opts?: CallOptions): Promise<ApiKey> {
      return t.delete('/api/v1/keys/{uuid}/', { ...path(uuid), ...opts });
    },
    /** New secret with the same name and grants; the old key stops working immediately. */
    rotate(uuid: string, opts?: CallOptions): Promise<ApiKeyWithSecret> {
      return t.post('/api/v1/keys/{uuid}/rotate/', { ...path(uuid), ...opts });
    },
    grants(uuid: string, opts?: CallOptions): Promise<CollectionGrant[]> {
      return t.get('/api/v1/keys/{uuid}/collections/', { ...path(uuid), ...opts });
    },
    /** Grants a collection (slug) to a scoped key, or changes the permission of an existing grant. An upsert, so retried like a read. */
    grant(uuid: string, body: PutGrant, opts?: CallOptions): Promise<CollectionGrant> {
      return t.post('/api/v1/keys/{uuid}/collections/', { ...path(uuid), body, idempotent: true, ...opts });
    },
    async ungrant(uuid: string, collectionSlug: string, opts?: CallOptions): Promise<void> {
      await t.delete('/api/v1/keys/{uuid}/collections/{slug}/', { params: { path: { uuid, slug: collectionSlug } }, ...opts });
    },
  };
}

export type KeysResource = ReturnType<typeof keysResource>;
