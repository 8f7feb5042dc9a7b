// `docsift docs list` pages: the daemon's cursor walks a filtered list (rows of one batch upload
// included) and the "more" line the CLI offers is a command that repeats the filters, since a cursor
// continues only the list it came from (without them it mixed other statuses into "the next page").
// Another organization's key following the cursor sees none of it.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliEnv, runCli, type CliEnv } from '../cli/testing/run-cli.js';
import { createTenant, http, startTestDaemon, type HttpResult, type Tenant, type TestDaemon } from './helpers/daemon.js';

describe('docsift docs list: cursors', () => {
  let d: TestDaemon;
  let t: Tenant;
  let other: Tenant;
  let e: CliEnv;
  let dir: string;
  const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { ...e.env, ...env } });

  before(async () => {
    d = await startTestDaemon({ label: 'cli_docs_list' });
    [t, other] = await Promise.all([createTenant(d, 'cli-docs-list'), createTenant(d, 'cli-docs-list-other')]);
    e = await cliEnv({ DOCSIFT_URL: d.url, DOCSIFT_API_KEY: t.key });
    dir = await mkdtemp(path.join(os.tmpdir(), 'docsift-docs-list-'));
    for (const n of ['a', 'b', 'c', 'd', 'e']) await writeFile(path.join(dir, `${n}.md`), `# ${n}\n`);
    assert.equal((await cli(['collections', 'create', 'Paged'])).code, 0);
    // One batch request: five rows of one transaction.
    const up = await cli(['docs', 'upload', ...['a', 'b', 'c', 'd', 'e'].map((n) => path.join(dir, `${n}.md`)), '-c', 'paged', '--json']);
    assert.equal(up.code, 0, up.stderr);
    assert.equal(up.json().total_uploaded, 5);
  });
  after(async () => {
    await d?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('REST: following X-Next-Cursor through one batch upload walks every row once', async () => {
    const req = http(d.url);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 5; i++) {
      const r: HttpResult = await req('GET', `/api/v1/documents/?collection=paged&limit=2${cursor ? `&cursor=${cursor}` : ''}`, {
        key: t.key,
      });
      assert.equal(r.status, 200, r.text);
      seen.push(...r.body.map((x: { original_filename: string }) => x.original_filename));
      cursor = r.headers.get('x-next-cursor');
      if (!cursor) break;
    }
    assert.deepEqual([...seen].sort(), ['a.md', 'b.md', 'c.md', 'd.md', 'e.md']);
  });

  it('the cursor the CLI offers, run as offered, shows the next page with the same filters', async () => {
    const first = await cli(['docs', 'list', '-c', 'paged', '--status', 'pending', '--limit', '2']);
    assert.equal(first.code, 0, first.stderr);
    const offered = /more with --all or: (docsift docs list .*)$/m.exec(first.stderr);
    assert.ok(offered, first.stderr);
    assert.match(offered[1]!, /-c paged --status pending --limit 2 --cursor \S+$/);
    const args = offered[1]!.split(' ').slice(1);
    const next = await cli([...args, '--json']);
    assert.equal(next.code, 0, next.stderr);
    assert.equal(next.json().length, 2);
    const names = new Set(next.json().map((x: { original_filename: string }) => x.original_filename));
    const firstNames = (await cli(['docs', 'list', '-c', 'paged', '--status', 'pending', '--limit', '2', '--json'])).json();
    for (const f of firstNames) assert.ok(!names.has(f.original_filename), 'page 2 repeats page 1');
  });

  it("another organization's key following the cursor sees none of these documents", async () => {
    const r = await http(d.url)('GET', '/api/v1/documents/?limit=2', { key: t.key });
    const cursor = r.headers.get('x-next-cursor');
    assert.ok(cursor);
    const theirs = await cli(['docs', 'list', '--cursor', cursor, '--json'], { DOCSIFT_API_KEY: other.key });
    assert.equal(theirs.code, 0, theirs.stderr);
    assert.deepEqual(theirs.json(), []);
  });
});
