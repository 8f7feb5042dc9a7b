// `npm run build -w @docsift/cli`: dist/main.js, which bin/docsift.mjs runs when src/ is absent
// (the published package). Type checking is `npm run typecheck`.
import path from 'node:path';
import { bundleCli, cliRoot } from './bundle.mjs';

const outdir = path.join(cliRoot, 'dist');
await bundleCli({ outdir });
process.stdout.write(`built ${path.relative(process.cwd(), outdir)}/main.js\n`);
