#!/usr/bin/env node
// Runs the compiled CLI (dist/main.js, one bundled module): `npm install` builds it (root `prepare`),
// as does `npm run build`. Never TypeScript at run time: a start costs Node's own start plus one file.
try {
  await import('../dist/main.js');
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('dist/main.js')) throw err;
  process.stderr.write(
    'error: the docsift CLI is not built (dist/main.js is missing).\nhint: run `npm run build -w @docsift/cli` (or `npm install`) in the docsift folder.\n',
  );
  process.exitCode = 1;
}
