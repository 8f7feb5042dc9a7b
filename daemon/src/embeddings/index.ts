import { BuiltinEmbeddingProvider } from './builtin.js';
import { OllamaEmbeddingProvider } from './ollama.js';
import type { EmbeddingProvider } from './types.js';

export { EmbeddingUnavailableError, cosineSimilarity, l2Normalise, type EmbeddingProvider } from './types.js';
export { BuiltinEmbeddingProvider, BUILTIN_DIMENSION, BUILTIN_MODEL } from './builtin.js';
export { OllamaEmbeddingProvider, DEFAULT_OLLAMA_HOST, DEFAULT_OLLAMA_MODEL } from './ollama.js';

export interface EmbeddingConfig {
  provider: 'builtin' | 'ollama';
  ollamaHost?: string;
  ollamaModel?: string;
  /** Texts per model call / HTTP request (defaults: builtin 32, ollama 64). */
  batchSize?: number;
  /** Ollama request timeout in ms (default 60 000). */
  timeoutMs?: number;
}

export function createEmbeddingProvider(cfg: EmbeddingConfig): EmbeddingProvider {
  switch (cfg.provider) {
    case 'builtin':
      return new BuiltinEmbeddingProvider({ batchSize: cfg.batchSize });
    case 'ollama':
      return new OllamaEmbeddingProvider({
        host: cfg.ollamaHost,
        model: cfg.ollamaModel,
        batchSize: cfg.batchSize,
        timeoutMs: cfg.timeoutMs,
      });
    default: {
      const never: never = cfg.provider;
      throw new Error(`unknown embedding provider: ${String(never)}`);
    }
  }
}
