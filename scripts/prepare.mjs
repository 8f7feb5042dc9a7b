// Root `prepare` (runs after `npm install`): builds @docsift/sdk's dist/, which is what
// `node --import tsx examples/quickstart.ts` and any other plain import of @docsift/sdk resolve to,
// and the CLI's dist/main.js, which bin/docsift.mjs (`npx docsift`) runs. Without them a fresh clone
// fails with ERR_MODULE_NOT_FOUND …/sdk/dist/esm/node.js or "the docsift CLI is not built". Each is
// skipped where its sources are absent, as in the Docker image's dependency layer, which copies only
// package manifests.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const builds = [
  { name: 'SDK', dir: 'sdk', source: 'sdk/src/index.ts', needs: 'node_modules/typescript' },
  { name: 'CLI', dir: 'cli', source: 'cli/src/main.ts', needs: 'node_modules/esbuild' },
];
for (const b of builds) {
  if (!existsSync(path.join(root, b.source)) || !existsSync(path.join(root, b.needs))) {
    process.stdout.write(`prepare: ${b.name} sources or ${path.basename(b.needs)} absent; ${b.name} build skipped\n`);
    continue;
  }
  const r = spawnSync(process.execPath, [path.join(root, b.dir, 'scripts/build.mjs')], { cwd: path.join(root, b.dir), stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
