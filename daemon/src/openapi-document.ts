import { createApp } from './app.js';
import { loadConfig, resolvedConfig } from './config.js';
import { closeDeps, createDeps } from './deps.js';
import { createLogger } from './logger.js';

/**
 * The OpenAPI document exactly as a running daemon serves it, built without any I/O:
 * postgres.js connects lazily, and building the document issues no query.
 */
export async function renderOpenApiDocument(): Promise<string> {
  const config = resolvedConfig(
    loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
      SIGNING_SECRET: 'x'.repeat(32),
      DB_POOL_MAX: '1',
    }),
  );
  const deps = createDeps(config, createLogger('silent'));
  const app = createApp(deps);
  const res = await app.request('/api/v1/schema/');
  const text = JSON.stringify(JSON.parse(await res.text()), null, 2) + '\n';
  await closeDeps(deps, { timeoutSec: 0 });
  return text;
}
