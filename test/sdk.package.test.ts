// @docsift/sdk as a package: generated types up to date with openapi/openapi.json, ESM and CJS
// builds that load and carry types, and a core that bundles for browsers without Node built-ins.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sdk = path.join(root, 'sdk');
const pkg = JSON.parse(await readFile(path.join(sdk, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  exports: Record<string, unknown>;
};

describe('@docsift/sdk package', () => {
  const cleanup: string[] = [];
  after(async () => {
    for (const dir of cleanup) await rm(dir, { recursive: true, force: true });
  });

  it('src/generated/schema.d.ts matches a fresh generation from openapi/openapi.json (never hand-edited)', async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'docsift-gen-'));
    cleanup.push(tmp);
    const target = path.join(tmp, 'schema.d.ts');
    // The package's own `generate` script, pointed at a temporary file.
    const script = pkg.scripts.generate!;
    assert.match(script, /-o src\/generated\/schema\.d\.ts$/);
    const bin = path.join(root, 'node_modules/.bin');
    await run('sh', ['-c', script.replace('src/generated/schema.d.ts', JSON.stringify(target))], {
      cwd: sdk,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    });
    const [fresh, committed] = await Promise.all([readFile(target, 'utf8'), readFile(path.join(sdk, 'src/generated/schema.d.ts'), 'utf8')]);
    assert.ok(
      fresh === committed,
      'sdk/src/generated/schema.d.ts is stale: run `npm run generate -w @docsift/sdk` (after `npm run openapi:emit`) and commit it',
    );
  });

  it('builds ESM and CJS (with types) that load in Node and verify a webhook signature', async () => {
    // Inside the package so the built files resolve openapi-fetch like an installed copy would.
    const out = path.join(sdk, 'node_modules/.cache', `build-test-${process.pid}`);
    cleanup.push(out);
    await run(process.execPath, [path.join(sdk, 'scripts/build.mjs'), '--out', out], { cwd: sdk });

    // Every file the exports map names exists (dist/ → the test's output directory).
    const targets = JSON.stringify(pkg.exports)
      .match(/"\.\/dist\/[^"]+"/g)!
      .map((s) => JSON.parse(s) as string);
    for (const t of targets) assert.ok(existsSync(path.join(out, t.replace('./dist/', ''))), `${t} missing from the build`);

    const esm = (await import(pathToFileURL(path.join(out, 'esm/index.js')).href)) as typeof import('../sdk/src/index.js');
    const esmNode = (await import(pathToFileURL(path.join(out, 'esm/node.js')).href)) as typeof import('../sdk/src/node.js');
    const cjs = createRequire(import.meta.url)(path.join(out, 'cjs/index.js')) as typeof import('../sdk/src/index.js');
    for (const m of [esm, esmNode, cjs]) {
      assert.equal(typeof m.createClient, 'function');
      assert.equal(typeof m.verifyWebhook, 'function');
      assert.equal(typeof m.RateLimitError, 'function');
    }
    assert.equal(typeof esmNode.fileFromPath, 'function');
    const body = '{"id":"1","event":"webhook.test"}';
    const headers = await esm.signWebhook({ secret: 'whsec_x', rawBody: body });
    assert.equal((await cjs.verifyWebhook({ secret: 'whsec_x', headers, rawBody: body })).event, 'webhook.test');
    const client = cjs.createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'svc_x', maxRetries: 0 });
    await assert.rejects(client.collections.list(), (e: unknown) => e instanceof cjs.ConnectionError);

    // Declarations sit beside both builds, including the generated schema they import.
    for (const flavour of ['esm', 'cjs']) {
      for (const f of ['index.d.ts', 'node.d.ts', 'generated/schema.d.ts', 'resources/documents.d.ts'])
        assert.ok(existsSync(path.join(out, flavour, f)), `${flavour}/${f}`);
    }
    assert.equal(JSON.parse(await readFile(path.join(out, 'cjs/package.json'), 'utf8')).type, 'commonjs');
    assert.doesNotMatch(await readFile(path.join(out, 'cjs/index.js'), 'utf8'), /^\s*(import|export) /m);
  });

  it('the core entry bundles for browsers: no Node built-ins, WebCrypto verification', async () => {
    const { build } = await import('esbuild');
    const result = await build({
      entryPoints: [path.join(sdk, 'src/index.ts')],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      logLevel: 'silent',
    });
    const code = result.outputFiles[0]!.text;
    assert.doesNotMatch(code, /\bfrom\s+["']node:|require\(["'](node:|fs|path|crypto)/);
    assert.match(code, /crypto\.subtle/);
    // The Node entry is the one that may use node:fs.
    await assert.rejects(
      build({ entryPoints: [path.join(sdk, 'src/node.ts')], bundle: true, platform: 'browser', write: false, logLevel: 'silent' }),
    );
  });
});
