import type { CallOptions, Transport } from '../transport.js';
import type { SearchRequest, SearchResponse } from '../types.js';

/** `client.search('query')` or `client.search({ query, collection, limit, mode, tags, … })`: ranked chunks. */
export function searchResource(t: Transport) {
  return function search(request: string | SearchRequest, opts?: CallOptions): Promise<SearchResponse> {
    const body: SearchRequest = typeof request === 'string' ? { query: request } : request;
    // Read-only despite being a POST, so it is retried like a GET.
    return t.post('/api/v1/search/', { body, idempotent: true, ...opts });
  };
}

export type SearchResource = ReturnType<typeof searchResource>;
