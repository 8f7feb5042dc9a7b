import type { CallOptions, Transport } from '../transport.js';
import type { ApiKey, ApiKeyWithSecret, CollectionGrant, CreateKey, CurrentKey, PutGrant, UpdateKey } from '../types.js';

export function keysResource(t: Transport) {
  const path = (uuid: string) => ({ params: { path: { uuid } } });
  return {
    /** The caller's keys with their grants (never the secrets). */
    async list(opts?: CallOptions): Promise<ApiKey[]> {
      return (await t.call('GET', '/api/v1/keys/', (init) => t.raw.GET('/api/v1/keys/', init), opts)).data;
    },
    /** The calling key, its user and organization: what `whoami` shows. */
    async current(opts?: CallOptions): Promise<CurrentKey> {
      return (await t.call('GET', '/api/v1/keys/current/', (init) => t.raw.GET('/api/v1/keys/current/', init), opts)).data;
    },
    /** Creates a key; the response's `key` is the only time the secret is shown. */
    async create(body: CreateKey, opts?: CallOptions): Promise<ApiKeyWithSecret> {
      return (await t.call('POST', '/api/v1/keys/', (init) => t.raw.POST('/api/v1/keys/', { ...init, body }), opts)).data;
    },
    /** Renames a key or sets a new expiry (which also renews an expired key). */
    async update(uuid: string, body: UpdateKey, opts?: CallOptions): Promise<ApiKey> {
      return (
        await t.call('PATCH', '/api/v1/keys/{uuid}/', (init) => t.raw.PATCH('/api/v1/keys/{uuid}/', { ...init, ...path(uuid), body }), opts)
      ).data;
    },
    /** Deactivates a key at once. */
    async revoke(uuid: string, opts?: CallOptions): Promise<ApiKey> {
      return (
        await t.call('DELETE', '/api/v1/keys/{uuid}/', (init) => t.raw.DELETE('/api/v1/keys/{uuid}/', { ...init, ...path(uuid) }), opts)
      ).data;
    },
    /** New secret with the same name and grants; the old key stops working immediately. */
    async rotate(uuid: string, opts?: CallOptions): Promise<ApiKeyWithSecret> {
      return (
        await t.call(
          'POST',
          '/api/v1/keys/{uuid}/rotate/',
          (init) => t.raw.POST('/api/v1/keys/{uuid}/rotate/', { ...init, ...path(uuid) }),
          opts,
        )
      ).data;
    },
    async grants(uuid: string, opts?: CallOptions): Promise<CollectionGrant[]> {
      return (
        await t.call(
          'GET',
          '/api/v1/keys/{uuid}/collections/',
          (init) => t.raw.GET('/api/v1/keys/{uuid}/collections/', { ...init, ...path(uuid) }),
          opts,
        )
      ).data;
    },
    /** Grants a collection (slug) to a scoped key, or changes the permission of an existing grant. An upsert, so retried like a read. */
    async grant(uuid: string, body: PutGrant, opts?: CallOptions): Promise<CollectionGrant> {
      return (
        await t.call(
          'POST',
          '/api/v1/keys/{uuid}/collections/',
          (init) => t.raw.POST('/api/v1/keys/{uuid}/collections/', { ...init, ...path(uuid), body }),
          { idempotent: true, ...opts },
        )
      ).data;
    },
    async ungrant(uuid: string, collectionSlug: string, opts?: CallOptions): Promise<void> {
      await t.call(
        'DELETE',
        '/api/v1/keys/{uuid}/collections/{slug}/',
        (init) => t.raw.DELETE('/api/v1/keys/{uuid}/collections/{slug}/', { ...init, params: { path: { uuid, slug: collectionSlug } } }),
        opts,
      );
    },
  };
}

export type KeysResource = ReturnType<typeof keysResource>;
