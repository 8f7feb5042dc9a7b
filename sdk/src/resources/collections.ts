import type { Transport, CallOptions } from '../transport.js';
import type { Collection, CollectionImport, CreateCollection, LanguageList, SubscriptionResult, UpdateCollection } from '../types.js';

/** An export archive to import: bytes, or a Blob (in Node, `openAsBlob(path)` streams a file from disk). */
export type ImportArchive = Blob | Uint8Array | ArrayBuffer;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function collectionsResource(t: Transport) {
  return {
    /** Visible collections (owned plus subscribed), oldest first. */
    list(opts?: CallOptions): Promise<Collection[]> {
      return t.get('/api/v1/collections/', opts);
    },
    create(body: CreateCollection, opts?: CallOptions): Promise<Collection> {
      return t.post('/api/v1/collections/', { body, ...opts });
    },
    get(uuid: string, opts?: CallOptions): Promise<Collection> {
      return t.get('/api/v1/collections/{uuid}/', { params: { path: { uuid } }, ...opts });
    },
    update(uuid: string, body: UpdateCollection, opts?: CallOptions): Promise<Collection> {
      return t.patch('/api/v1/collections/{uuid}/', { params: { path: { uuid } }, body, ...opts });
    },
    /** The languages a collection may have (`language` on create and update), and the server's default. */
    languages(opts?: CallOptions): Promise<LanguageList> {
      return t.get('/api/v1/languages/', opts);
    },
    /** Soft-deletes the collection and its documents (owner only). */
    async delete(uuid: string, opts?: CallOptions): Promise<void> {
      await t.delete('/api/v1/collections/{uuid}/', { params: { path: { uuid } }, ...opts });
    },
    /** Subscribes to a public collection by slug. Repeating it is harmless, so it is retried like a read. */
    subscribe(slug: string, opts?: CallOptions): Promise<SubscriptionResult> {
      return t.post('/api/v1/collections/{slug}/subscribe/', { params: { path: { slug } }, idempotent: true, ...opts });
    },
    unsubscribe(slug: string, opts?: CallOptions): Promise<SubscriptionResult> {
      return t.delete('/api/v1/collections/{slug}/subscribe/', { params: { path: { slug } }, ...opts });
    },
    /**
     * The collection as a tar archive (`manifest.jsonl`, then the originals), as a streaming
     * Response: `await res.arrayBuffer()`, or pipe `res.body` to a file. Needs read access.
     */
    async export(uuid: string, opts?: CallOptions): Promise<Response> {
      const { response } = await t.getWithResponse('/api/v1/collections/{uuid}/export/', {
        params: { path: { uuid } },
        parseAs: 'stream',
        timeoutMs: t.uploadTimeoutMs,
        ...opts,
      });
      return response;
    },
    /**
     * Rebuilds an exported collection: into `collection` (write access), else into the collection an
     * earlier import of the same export made, or a new one (full-access keys). Importing the same
     * archive again adds nothing, so the call is retried like a read.
     */
    import(archive: ImportArchive, opts: { collection?: string } & CallOptions = {}): Promise<CollectionImport> {
      const { collection, ...call } = opts;
      return t.post('/api/v1/collections/import/', {
        params: { query: collection ? { collection } : {} },
        body: (archive instanceof Blob ? archive : new Blob([archive as BlobPart])) as never,
        bodySerializer: (b: unknown) => b as Blob,
        headers: { 'content-type': 'application/x-tar' },
        idempotent: true,
        timeoutMs: t.uploadTimeoutMs,
        ...call,
      });
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
