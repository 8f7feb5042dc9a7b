// `docsift collections export|import`: an archive saved to a file (never left whole-looking when cut
// short), rebuilt on another daemon, idempotent on re-import, --json everywhere, exit 1 when a
// document is refused, and another tenant's collection never found.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliEnv, runCli, type CliEnv } from '../cli/testing/run-cli.js';
import { tarEnd, tarHeader, tarPadding } from '../daemon/src/transfer/tar.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { addText, makeCollection } from './helpers/docs.js';

describe('docsift collections export and import', () => {
  let a: TestDaemon;
  let b: TestDaemon;
  let ta: Tenant;
  let tb: Tenant;
  let other: Tenant;
  let e: CliEnv;
  let dir: string;
  const cli = (d: TestDaemon, key: string, args: string[]) =>
    runCli(args, { env: { ...e.env, DOCSIFT_URL: d.url, DOCSIFT_API_KEY: key }, cwd: dir });

  before(async () => {
    [a, b] = await Promise.all([startTestDaemon({ label: 'cli_export' }), startTestDaemon({ label: 'cli_import' })]);
    [ta, other, tb] = await Promise.all([createTenant(a, 'cli-exp'), createTenant(a, 'cli-exp-other'), createTenant(b, 'cli-imp')]);
    e = await cliEnv();
    dir = await mkdtemp(path.join(os.tmpdir(), 'docsift-cli-transfer-'));
    const c = await makeCollection(http(a.url), ta.key, 'Ship logs');
    await addText(http(a.url), ta.key, c.uuid, 'Log one', 'The schooner left the harbour at dawn.', 'voyage');
    const form = new FormData();
    form.append('file', new Blob(['Cargo manifest: barrels of cider.']), 'cargo.txt');
    const r = await http(a.url)('POST', `/api/v1/collections/${c.uuid}/documents/`, { key: ta.key, body: form });
    assert.equal(r.status, 201, r.text);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('exports to <slug>.docsift.tar, and imports it on another daemon once', async () => {
    const x = await cli(a, ta.key, ['collections', 'export', 'ship-logs', '--json']);
    assert.equal(x.code, 0, x.stderr);
    assert.equal(x.json().path, path.join(dir, 'ship-logs.docsift.tar'));
    assert.equal((await stat(x.json().path)).size, x.json().bytes);
    assert.deepEqual(
      (await readdir(dir)).filter((f) => f.endsWith('.partial')),
      [],
    );
    const human = await cli(b, tb.key, ['collections', 'import', 'ship-logs.docsift.tar']);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /Created collection Ship logs \(slug ship-logs\): 2 document\(s\) imported, 0 already there\./);
    const again = await cli(b, tb.key, ['collections', 'import', 'ship-logs.docsift.tar', '--json']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.json().imported, 0);
    assert.equal(again.json().already_present, 2);
    assert.equal(again.json().created_collection, false);
  });

  it('imports --into an existing collection; exits 1 naming what was refused', async () => {
    await makeCollection(http(b.url), tb.key, 'Mixed');
    const manifest = Buffer.from(
      [
        { type: 'collection', format: 'docsift-collection-export', version: 1, collection: { uuid: crypto.randomUUID(), name: 'X' } },
        {
          type: 'document',
          uuid: crypto.randomUUID(),
          title: 'Program',
          source_type: 'pdf',
          tags: [],
          metadata: {},
          original_filename: 'tool.exe',
          media_type: 'application/octet-stream',
          file: null,
        },
        {
          type: 'document',
          uuid: crypto.randomUUID(),
          title: 'Note',
          source_type: 'text',
          tags: ['a'],
          metadata: {},
          content: 'A short note.',
        },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n'),
    );
    const tar = Buffer.concat([tarHeader('manifest.jsonl', manifest.length, new Date()), manifest, tarPadding(manifest.length), tarEnd()]);
    await writeFile(path.join(dir, 'mixed.tar'), tar);
    const r = await cli(b, tb.key, ['collections', 'import', 'mixed.tar', '--into', 'mixed', '--json']);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.json().imported, 1);
    assert.equal(r.json().collection.slug, 'mixed');
    assert.match(r.json().failed[0].reason, /missing from the archive/);
  });

  it('another tenant’s collection is not found', async () => {
    const r = await cli(a, other.key, ['collections', 'export', 'ship-logs', '--json']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /not found|COLLECTION_NOT_FOUND/i);
  });
});
