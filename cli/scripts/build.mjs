// `npm run build -w @docsift/cli` (also run by the root `prepare`, i.e. `npm install`, and by
// `turbo run build`): dist/main.js, the bundled CLI that bin/docsift.mjs runs. Type checking is
// `npm run typecheck`.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { bundleCli, cliRoot } from './bundle.mjs';

const outdir = path.join(cliRoot, 'dist');
rmSync(outdir, { recursive: true, force: true });
await bundleCli({ outdir });
process.stdout.write(`built ${path.relative(process.cwd(), outdir)}/main.js\n`);
