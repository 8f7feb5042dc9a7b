import { createApp } from './app.js';
import { loadConfig } from './config.js';
import { createSql } from './db/client.js';
import { createReadPool } from './db/read-pool.js';
import { createLogger } from './logger.js';
import { systemClock } from './types.js';
import { createBlobStore } from './storage/index.js';
import { createEmbeddingProvider } from './embeddings/index.js';

/**
 * The OpenAPI document exactly as a running daemon serves it, built without any I/O:
 * postgres.js connects lazily, and building the document issues no query.
 */
export async function renderOpenApiDocument(): Promise<string> {
  const config = loadConfig({
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
    SIGNING_SECRET: 'x'.repeat(32),
  });
  const sql = createSql(config.DATABASE_URL!, { max: 1 });
  const app = createApp({
    config,
    sql,
    reads: createReadPool(sql, createLogger('silent')),
    logger: createLogger('silent'),
    clock: systemClock(),
    blobs: createBlobStore(config),
    embedder: createEmbeddingProvider({ provider: 'builtin' }),
  });
  const res = await app.request('/api/v1/schema/');
  const text = JSON.stringify(JSON.parse(await res.text()), null, 2) + '\n';
  await sql.end({ timeout: 0 });
  return text;
}
