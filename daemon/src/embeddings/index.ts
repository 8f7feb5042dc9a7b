import type { Config } from '../config.js';
import { BuiltinEmbeddingProvider } from './builtin.js';
import { OllamaEmbeddingProvider } from './ollama.js';
import { OpenAIEmbeddingProvider, type OpenAIProviderOptions } from './openai.js';
import type { EmbeddingProvider } from './types.js';

export {
  EmbeddingRejectedError,
  EmbeddingUnavailableError,
  cosineSimilarity,
  l2Normalise,
  type EmbeddingProvider,
  type EmbedOptions,
} from './types.js';
export { BuiltinEmbeddingProvider, BUILTIN_DIMENSION, BUILTIN_MODEL } from './builtin.js';
export { OllamaEmbeddingProvider, DEFAULT_OLLAMA_HOST, DEFAULT_OLLAMA_MODEL } from './ollama.js';
export { OpenAIEmbeddingProvider, DEFAULT_OPENAI_BASE_URL, DEFAULT_OPENAI_MODEL } from './openai.js';

/** The settings of every provider; `model`, `dimensions`, `batchTokens` and `maxInputTokens` are OpenAI's. */
export interface EmbeddingConfig extends Pick<OpenAIProviderOptions, 'model' | 'dimensions' | 'batchTokens' | 'maxInputTokens' | 'logger'> {
  provider: 'builtin' | 'ollama' | 'openai';
  ollamaHost?: string;
  ollamaModel?: string;
  openaiBaseUrl?: string;
  openaiApiKey?: string;
  /** Texts per model call / HTTP request (defaults: builtin 32, ollama 64, openai 2048). */
  batchSize?: number;
  /** Remote request timeout in ms (default 60 000). */
  timeoutMs?: number;
}

/** The embedding settings of a parsed configuration (daemon, worker and `reembed` use the same). */
export function embeddingConfigFrom(config: Config, logger?: EmbeddingConfig['logger']): EmbeddingConfig {
  return {
    provider: config.EMBEDDING_PROVIDER,
    ollamaHost: config.OLLAMA_HOST,
    ollamaModel: config.OLLAMA_MODEL ?? config.EMBEDDING_MODEL,
    openaiBaseUrl: config.OPENAI_BASE_URL,
    openaiApiKey: config.OPENAI_API_KEY,
    model: config.EMBEDDING_MODEL,
    dimensions: config.EMBEDDING_DIMENSIONS,
    batchSize: config.EMBEDDING_BATCH_SIZE,
    batchTokens: config.EMBEDDING_BATCH_TOKENS,
    maxInputTokens: config.EMBEDDING_MAX_INPUT_TOKENS,
    logger,
  };
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
    case 'openai':
      return new OpenAIEmbeddingProvider({
        baseUrl: cfg.openaiBaseUrl,
        apiKey: cfg.openaiApiKey,
        model: cfg.model,
        dimensions: cfg.dimensions,
        batchSize: cfg.batchSize,
        batchTokens: cfg.batchTokens,
        maxInputTokens: cfg.maxInputTokens,
        timeoutMs: cfg.timeoutMs,
        logger: cfg.logger,
      });
    default: {
      const never: never = cfg.provider;
      throw new Error(`unknown embedding provider: ${String(never)}`);
    }
  }
}
