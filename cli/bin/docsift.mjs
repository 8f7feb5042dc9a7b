#!/usr/bin/env node
// In the repository the CLI runs from TypeScript source (tsx) and resolves @docsift/sdk to its
// source too, so there is no build step to forget; a published package runs the built dist/.
import { existsSync } from 'node:fs';
import { register } from 'node:module';

const source = new URL('../src/main.ts', import.meta.url);
if (existsSync(source)) {
  const { register: registerTsx } = await import('tsx/esm/api');
  registerTsx();
  // Registered after tsx, so it runs first: adds the export condition that maps @docsift/sdk to src/.
  register(
    'data:text/javascript,' +
      encodeURIComponent(
        'export async function resolve(s, c, next) { return next(s, { ...c, conditions: [...new Set([...(c.conditions ?? []), "docsift:source"])] }); }',
      ),
  );
  await import(source.href);
} else {
  await import('../dist/main.js');
}
