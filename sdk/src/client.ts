import { billingResource } from './resources/billing.js';
import { collectionsResource } from './resources/collections.js';
import { documentsResource } from './resources/documents.js';
import { keysResource } from './resources/keys.js';
import { searchResource } from './resources/search.js';
import { usageResource } from './resources/usage.js';
import { webhooksResource } from './resources/webhooks.js';
import { Transport, type ClientOptions, type RawClient } from './transport.js';
import type { FileLoader } from './upload.js';

export interface DocsiftClient {
  collections: ReturnType<typeof collectionsResource>;
  documents: ReturnType<typeof documentsResource>;
  search: ReturnType<typeof searchResource>;
  keys: ReturnType<typeof keysResource>;
  webhooks: ReturnType<typeof webhooksResource>;
  usage: ReturnType<typeof usageResource>;
  billing: ReturnType<typeof billingResource>;
  /** The typed openapi-fetch client underneath, for any endpoint (responses are not unwrapped, no retries). */
  raw: RawClient;
  /** The normalised base URL. */
  baseUrl: string;
}

/** Internal: lets the Node entry add path uploads without the core importing `node:fs`. */
export function buildClient(opts: ClientOptions, loader: FileLoader | undefined): DocsiftClient {
  const t = new Transport(opts);
  return {
    collections: collectionsResource(t),
    documents: documentsResource(t, loader),
    search: searchResource(t),
    keys: keysResource(t),
    webhooks: webhooksResource(t),
    usage: usageResource(t),
    billing: billingResource(t),
    raw: t.raw,
    baseUrl: t.baseUrl,
  };
}

/**
 * A docsift API client. Works in Node 20+ and browsers; for uploads by file path use the same
 * function from `@docsift/sdk/node`.
 *
 * ```ts
 * const docsift = createClient({ baseUrl: 'http://localhost:8080', apiKey: process.env.DOCSIFT_API_KEY });
 * const { results } = await docsift.search({ query: 'refund policy', limit: 5 });
 * ```
 */
export function createClient(opts: ClientOptions): DocsiftClient {
  return buildClient(opts, undefined);
}
