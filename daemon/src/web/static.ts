import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import type { WebEnv } from './context.js';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'static');
const TYPES: Record<string, string> = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8' };

interface Asset {
  body: string;
  type: string;
  version: string;
}

// Read once, on first use (importing this module does no I/O). Served from memory: two small files.
let assets: Map<string, Asset> | undefined;
function load(): Map<string, Asset> {
  if (!assets) {
    assets = new Map();
    for (const name of ['app.css', 'app.js']) {
      const body = readFileSync(path.join(DIR, name), 'utf8');
      assets.set(name, {
        body,
        type: TYPES[name.split('.').pop()!]!,
        version: createHash('sha256').update(body).digest('hex').slice(0, 12),
      });
    }
  }
  return assets;
}

/** URL of a static file, versioned by its content so browsers may cache it for good. */
export function assetUrl(name: string): string {
  return `/app/static/${name}?v=${load().get(name)?.version ?? '0'}`;
}

export function registerStaticRoutes(web: Hono<WebEnv>): void {
  web.get('/static/:name', (c) => {
    const a = load().get(c.req.param('name'));
    if (!a) return c.text('Not found', 404);
    const versioned = c.req.query('v') === a.version;
    c.header('Content-Type', a.type);
    c.header('Cache-Control', versioned ? 'public, max-age=31536000, immutable' : 'no-cache');
    c.header('ETag', `"${a.version}"`);
    if (c.req.header('if-none-match') === `"${a.version}"`) return c.body(null, 304);
    return c.body(a.body);
  });
}
