// Bundles the CLI's own code into one ES module with esbuild; npm packages stay external imports.
// `bundleSdk` also inlines @docsift/sdk from its TypeScript source (tests, so no SDK build is needed);
// the published build leaves it external, resolved to the installed @docsift/sdk package.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const cliRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Writes <outdir>/main.js plus chunks for lazily loaded parts (ink progress views), so startup never loads ink or React. */
export async function bundleCli({ outdir, bundleSdk = false, minify = false }) {
  await build({
    entryPoints: [path.join(cliRoot, 'src/main.ts')],
    outdir,
    splitting: true,
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: bundleSdk ? ['docsift:source'] : [],
    minify,
    sourcemap: false,
    logLevel: 'warning',
    plugins: [
      {
        name: 'externals',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) => {
            if (args.path.startsWith('node:')) return { external: true };
            if (bundleSdk && args.path.startsWith('@docsift/sdk')) return undefined;
            return { path: args.path, external: true };
          });
        },
      },
    ],
  });
}
