// @docsift/sdk installed the way the README says, into an app outside the repository: the
// documented one-line command packs the package (its prepack builds dist/) and installs the tarball
// into a scratch app in a temp dir; the app typechecks against the installed declarations (strict,
// library checks on), then runs a search against a real daemon. The scratch app's registry is the
// local npm cache plus tarballs of the SDK's own dependencies (the test runs offline).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');

/** The README's install line, from its "Install the SDK" section. */
async function documentedInstallCommand(): Promise<string> {
  const readme = await readFile(path.join(root, 'sdk/README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Install the SDK'));
  const line = /```sh\n(npm install [^\n]+)\n/.exec(section)?.[1];
  assert.ok(line, 'sdk/README.md: "## Install the SDK" starts with a ```sh block holding the npm install line');
  return line;
}

describe('@docsift/sdk installed into an app outside the repository', () => {
  let d: TestDaemon;
  let t: Tenant;
  let other: Tenant;
  let app: string;
  const tscIn = (dir: string, project = 'tsconfig.json') =>
    run(process.execPath, [tsc, '-p', project], { cwd: dir }).then(
      () => '',
      (err: { stdout?: string }) => err.stdout ?? String(err),
    );

  before(async () => {
    d = await startTestDaemon({ label: 'sdk_install', worker: true });
    [t, other] = await Promise.all([createTenant(d, 'sdk-install'), createTenant(d, 'sdk-install-other')]);
    const req = http(d.url);
    const col = await makeCollection(req, t.key, 'Installed');
    const doc = await addText(req, t.key, col.uuid, 'Refund policy', 'Refunds are issued within 30 days of purchase.');
    await waitSettled(req, t.key, [doc.uuid]);

    app = await mkdtemp(path.join(os.tmpdir(), 'docsift-sdk-app-'));
    // Offline: the SDK's dependencies come from tarballs of the installed copies (a stand-in registry).
    const overrides: Record<string, string> = {};
    for (const dep of ['openapi-fetch', 'openapi-typescript-helpers']) {
      const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', app, path.join(root, 'node_modules', dep)], {
        cwd: app,
      });
      overrides[dep] = `file:./${stdout.trim().split('\n').pop()}`;
    }
    await writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'scratch-app', private: true, type: 'module', overrides }));
    const command = (await documentedInstallCommand()).replace('/path/to/docsift', root);
    await run('sh', ['-c', command], { cwd: app, env: { ...process.env, npm_config_offline: 'true', npm_config_audit: 'false' } });
  });
  after(async () => {
    await d?.close();
    if (app) await rm(app, { recursive: true, force: true });
  });

  it('the documented command installs the package from a tarball (no link into the clone)', async () => {
    const pkg = JSON.parse(await readFile(path.join(app, 'package.json'), 'utf8'));
    assert.match(pkg.dependencies['@docsift/sdk'], /^file:.*docsift-sdk-\d+\.\d+\.\d+\.tgz$/);
    const installed = path.join(app, 'node_modules/@docsift/sdk');
    assert.equal(path.relative(app, await import('node:fs/promises').then((f) => f.realpath(installed))), 'node_modules/@docsift/sdk');
    const files = JSON.parse(await readFile(path.join(installed, 'package.json'), 'utf8'));
    assert.equal(files.name, '@docsift/sdk');
  });

  it('an app typechecks against the installed types, builds and searches a real daemon', async () => {
    await writeFile(
      path.join(app, 'app.ts'),
      `import { createClient, type SearchRequest, type SearchResponse } from '@docsift/sdk';
const docsift = createClient({ baseUrl: ${JSON.stringify(d.url)}, apiKey: ${JSON.stringify(t.key)} });
const request: SearchRequest = { query: 'refund', limit: 3 };
const answer: SearchResponse = await docsift.search(request);
console.log(JSON.stringify(answer.results.map((r) => r.title)));
`,
    );
    await writeFile(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          lib: ['es2022', 'dom'],
          types: [],
          skipLibCheck: false,
          outDir: 'out',
        },
        files: ['app.ts'],
      }),
    );
    assert.equal(await tscIn(app), '');
    const { stdout } = await run(process.execPath, [path.join(app, 'out/app.js')], { cwd: app });
    assert.deepEqual(JSON.parse(stdout), ['Refund policy']);
  });

  it("compiler errors name the SDK's types (SearchRequest, CreateCollection), not anonymous object types", async () => {
    await writeFile(
      path.join(app, 'wrong.ts'),
      `import { createClient } from '@docsift/sdk';
const docsift = createClient({ baseUrl: 'http://localhost:8080' });
await docsift.search({ query: 'x', foo: 1 });
await docsift.collections.create({ name: 'x', foo: 1 });
await docsift.collections.create({});
const n: number = docsift.documents.list;
`,
    );
    await writeFile(
      path.join(app, 'tsconfig.wrong.json'),
      JSON.stringify({ extends: './tsconfig.json', compilerOptions: { noEmit: true }, files: ['wrong.ts'] }),
    );
    const out = await tscIn(app, 'tsconfig.wrong.json');
    assert.match(out, /'foo' does not exist in type 'SearchRequest'/);
    assert.match(out, /'foo' does not exist in type 'CreateCollection'/);
    assert.match(out, /required in type 'CreateCollection'/);
    assert.match(out, /\(query\?: ListDocumentsQuery \| undefined, opts\?: CallOptions \| undefined\) => PagePromise<DocumentListItem>/);
    assert.doesNotMatch(out, /type '\{ (query|name): string/);
  });

  it("the installed client searches with its own key only: another organization's key finds nothing", async () => {
    await writeFile(
      path.join(app, 'other.mjs'),
      `import { createClient } from '@docsift/sdk';
const r = await createClient({ baseUrl: ${JSON.stringify(d.url)}, apiKey: ${JSON.stringify(other.key)} }).search('refund');
console.log(r.results.length);
`,
    );
    const { stdout } = await run(process.execPath, [path.join(app, 'other.mjs')], { cwd: app });
    assert.equal(stdout.trim(), '0');
  });
});
