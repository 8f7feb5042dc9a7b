// Root `prepare` (runs after `npm install`): builds @docsift/sdk's dist/, which is what
// `node --import tsx examples/quickstart.ts` and any other plain import of @docsift/sdk resolve to.
// Without it a fresh clone fails with ERR_MODULE_NOT_FOUND …/sdk/dist/esm/node.js. (The CLI needs no
// build: bin/docsift.mjs runs its sources through tsx.) Skipped where the SDK sources are absent,
// as in the Docker image's dependency layer, which copies only package manifests.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(path.join(root, 'sdk/src/index.ts')) || !existsSync(path.join(root, 'node_modules/typescript'))) {
  process.stdout.write('prepare: SDK sources or TypeScript absent; SDK build skipped\n');
  process.exit(0);
}
const r = spawnSync(process.execPath, [path.join(root, 'sdk/scripts/build.mjs')], { cwd: path.join(root, 'sdk'), stdio: 'inherit' });
process.exit(r.status ?? 1);
