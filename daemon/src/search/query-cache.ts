import type { EmbeddingProvider } from '../embeddings/types.js';

/**
 * Bounded LRU of query embeddings keyed by model and text: repeated queries (dashboards, agents
 * retrying, paging) skip the model, which costs about 19 ms per query with the built-in one.
 * Concurrent requests for the same key share one model call; failures are never cached.
 */
export class QueryEmbeddingCache {
  private readonly map = new Map<string, number[]>();
  private readonly pending = new Map<string, Promise<number[]>>();
  hits = 0;
  misses = 0;

  constructor(private readonly size: number) {}

  async embed(embedder: EmbeddingProvider, text: string): Promise<number[]> {
    // The model name cannot contain NUL (it comes from configuration), so keys never collide.
    const key = `${embedder.model}\u0000${text}`;
    const hit = this.map.get(key);
    if (hit) {
      this.hits++;
      this.map.delete(key);
      this.map.set(key, hit);
      return hit;
    }
    const inFlight = this.pending.get(key);
    if (inFlight) return inFlight;
    this.misses++;
    const call = (async () => {
      const [v] = await embedder.embed([text], { interactive: true });
      if (!v) throw new Error('embedding provider returned no vector');
      this.map.set(key, v);
      if (this.map.size > this.size) this.map.delete(this.map.keys().next().value as string);
      return v;
    })();
    this.pending.set(key, call);
    try {
      return await call;
    } finally {
      this.pending.delete(key);
    }
  }
}
