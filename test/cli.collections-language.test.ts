// `docsift collections create|update --language` and `collections languages`: the collection's text
// search configuration through the CLI, a bad one refused with the API's code, another tenant's
// collection never found.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LANGUAGES } from '../cli/src/languages.js';
import { cliEnv, runCli, type CliEnv } from '../cli/testing/run-cli.js';
import { createTenant, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

describe('docsift collections --language', () => {
  let d: TestDaemon;
  let t: Tenant;
  let other: Tenant;
  let e: CliEnv;
  const cli = (args: string[], key = t.key) => runCli(args, { env: { ...e.env, DOCSIFT_URL: d.url, DOCSIFT_API_KEY: key } });

  before(async () => {
    d = await startTestDaemon({ label: 'cli_language' });
    [t, other] = await Promise.all([createTenant(d, 'cli-lang'), createTenant(d, 'cli-lang-other')]);
    e = await cliEnv();
  });
  after(() => d?.close());

  it('create --language sets it, update --language changes it, show prints it', async () => {
    const c = await cli(['collections', 'create', 'Manuel', '--language', 'french', '--json']);
    assert.equal(c.code, 0, c.stderr);
    assert.equal(c.json().language, 'french');
    const plain = await cli(['collections', 'create', 'Handbook', '--json']);
    assert.equal(plain.json().language, 'english');
    const u = await cli(['collections', 'update', 'manuel', '--language', 'german', '--json']);
    assert.equal(u.code, 0, u.stderr);
    assert.equal(u.json().language, 'german');
    const show = await cli(['collections', 'show', 'manuel']);
    assert.match(show.stdout, /Language\s+german/);
  });

  it('collections languages lists what the server offers, the names shell completion proposes', async () => {
    const r = await cli(['collections', 'languages', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const list = r.json() as { default: string; languages: { name: string; kind: string }[] };
    assert.equal(list.default, 'english');
    assert.deepEqual(
      list.languages.map((l) => l.name),
      [...LANGUAGES],
      'cli/src/languages.ts names what a server offers',
    );
    const table = await cli(['collections', 'languages']);
    assert.match(table.stdout, /chinese\s+word segmentation/);
    assert.match(table.stdout, /english \(default\)\s+stemming/);
    const zh = await cli(['collections', 'create', '资料', '--language', 'chinese', '--json']);
    assert.equal(zh.code, 0, zh.stderr);
    assert.equal(zh.json().language, 'chinese');
  });

  it('an unknown language exits 1 with VALIDATION_FAILED; another tenant cannot change it', async () => {
    const bad = await cli(['collections', 'create', 'Bad', '--language', 'klingon', '--json']);
    assert.equal(bad.code, 1, bad.stdout);
    assert.equal(JSON.parse(bad.stderr).error.code, 'VALIDATION_FAILED');
    const foreign = await cli(['collections', 'update', 'manuel', '--language', 'english', '--json'], other.key);
    assert.equal(foreign.code, 1, foreign.stdout);
    const mine = await cli(['collections', 'show', 'manuel', '--json']);
    assert.equal(mine.json().language, 'german');
  });
});
