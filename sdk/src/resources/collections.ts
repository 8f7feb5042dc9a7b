import type { Transport, CallOptions } from '../transport.js';
import type { Collection, CreateCollection, SubscriptionResult, UpdateCollection } from '../types.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function collectionsResource(t: Transport) {
  return {
    /** Visible collections (owned plus subscribed), oldest first. */
    async list(opts?: CallOptions): Promise<Collection[]> {
      return (await t.call('GET', '/api/v1/collections/', (init) => t.raw.GET('/api/v1/collections/', init), opts)).data;
    },
    async create(body: CreateCollection, opts?: CallOptions): Promise<Collection> {
      return (await t.call('POST', '/api/v1/collections/', (init) => t.raw.POST('/api/v1/collections/', { ...init, body }), opts)).data;
    },
    async get(uuid: string, opts?: CallOptions): Promise<Collection> {
      return (
        await t.call(
          'GET',
          '/api/v1/collections/{uuid}/',
          (init) => t.raw.GET('/api/v1/collections/{uuid}/', { ...init, params: { path: { uuid } } }),
          opts,
        )
      ).data;
    },
    async update(uuid: string, body: UpdateCollection, opts?: CallOptions): Promise<Collection> {
      return (
        await t.call(
          'PATCH',
          '/api/v1/collections/{uuid}/',
          (init) => t.raw.PATCH('/api/v1/collections/{uuid}/', { ...init, params: { path: { uuid } }, body }),
          opts,
        )
      ).data;
    },
    /** Soft-deletes the collection and its documents (owner only). */
    async delete(uuid: string, opts?: CallOptions): Promise<void> {
      await t.call(
        'DELETE',
        '/api/v1/collections/{uuid}/',
        (init) => t.raw.DELETE('/api/v1/collections/{uuid}/', { ...init, params: { path: { uuid } } }),
        opts,
      );
    },
    /** Subscribes to a public collection by slug. Repeating it is harmless, so it is retried like a read. */
    async subscribe(slug: string, opts?: CallOptions): Promise<SubscriptionResult> {
      return (
        await t.call(
          'POST',
          '/api/v1/collections/{slug}/subscribe/',
          (init) => t.raw.POST('/api/v1/collections/{slug}/subscribe/', { ...init, params: { path: { slug } } }),
          { idempotent: true, ...opts },
        )
      ).data;
    },
    async unsubscribe(slug: string, opts?: CallOptions): Promise<SubscriptionResult> {
      return (
        await t.call(
          'DELETE',
          '/api/v1/collections/{slug}/subscribe/',
          (init) => t.raw.DELETE('/api/v1/collections/{slug}/subscribe/', { ...init, params: { path: { slug } } }),
          opts,
        )
      ).data;
    },
    /**
     * Finds a visible collection by uuid, slug or exact name (in that order of preference), for
     * tools that let people type whichever they remember. Undefined when nothing matches.
     */
    async find(ref: string, opts?: CallOptions): Promise<Collection | undefined> {
      if (UUID_RE.test(ref)) {
        try {
          return await this.get(ref, opts);
        } catch (err) {
          if ((err as { status?: number }).status !== 404) throw err;
        }
      }
      const all = await this.list(opts);
      return (
        all.find((c) => c.slug === ref) ?? all.find((c) => c.name === ref) ?? all.find((c) => c.name.toLowerCase() === ref.toLowerCase())
      );
    },
  };
}

export type CollectionsResource = ReturnType<typeof collectionsResource>;
