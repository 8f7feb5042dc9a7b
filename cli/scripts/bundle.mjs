// Bundles the CLI into one ES module with esbuild: its own code, @docsift/sdk (from its TypeScript
// source) and the small packages every command needs (commander, openapi-fetch), so a start reads
// one file instead of resolving dozens of modules. Packages only some commands need (ink and React
// for live progress, inquirer for prompts, undici for the bulk connection pool, tinyglobby for
// globs) stay external imports, loaded by the command that uses them.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const cliRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Loaded lazily (dynamic import) by the commands that need them; never at start-up. */
export const LAZY_PACKAGES = ['ink', 'react', '@inquirer/prompts', 'undici', 'tinyglobby'];

/** Writes <outdir>/main.js plus chunks for lazily loaded parts (ink progress views). */
export async function bundleCli({ outdir, minify = false }) {
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
    conditions: ['docsift:source'],
    minify,
    sourcemap: false,
    // commander is CommonJS; its require() of Node built-ins needs a real require in an ES module.
    banner: { js: "import { createRequire as __cliRequire } from 'node:module'; const require = __cliRequire(import.meta.url);" },
    logLevel: 'warning',
    plugins: [
      {
        name: 'externals',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) => {
            if (args.path.startsWith('node:')) return { external: true };
            const lazy = LAZY_PACKAGES.some((p) => args.path === p || args.path.startsWith(`${p}/`));
            return lazy ? { path: args.path, external: true } : undefined;
          });
        },
      },
    ],
  });
}
