// Writes openapi/openapi.json from the route definitions (`npm run openapi:emit`).
// With --check it only compares and exits 1 when the committed file is stale.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderOpenApiDocument } from '../openapi-document.js';

const target = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../openapi/openapi.json');
const text = await renderOpenApiDocument();
if (process.argv.includes('--check')) {
  const current = await readFile(target, 'utf8').catch(() => '');
  if (current !== text) {
    process.stderr.write('openapi/openapi.json is stale: run `npm run openapi:emit` and commit it.\n');
    process.exit(1);
  }
  process.stdout.write('openapi/openapi.json is up to date.\n');
} else {
  await writeFile(target, text);
  process.stdout.write(`wrote ${path.relative(process.cwd(), target)}\n`);
}
