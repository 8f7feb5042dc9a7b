import type { EmbeddingProvider } from '../embeddings/types.js';

/** Small LRU of query embeddings: repeated queries (dashboards, agents retrying) skip the model. */
export class QueryEmbeddingCache {
  private readonly map = new Map<string, number[]>();
  constructor(
    private readonly embedder: EmbeddingProvider,
    private readonly size: number,
  ) {}

  async embed(query: string): Promise<number[]> {
    const hit = this.map.get(query);
    if (hit) {
      this.map.delete(query);
      this.map.set(query, hit);
      return hit;
    }
    const [v] = await this.embedder.embed([query], { interactive: true });
    if (!v) throw new Error('embedding provider returned no vector');
    this.map.set(query, v);
    if (this.map.size > this.size) this.map.delete(this.map.keys().next().value as string);
    return v;
  }
}
