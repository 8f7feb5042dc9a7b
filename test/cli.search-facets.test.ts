// `docsift search` marks the spans the server sent (highlights) and prints `--facets` counts;
// `docsift docs list --facets` prints counts over every matching document; --json carries them;
// a bad field is the server's 400, named; another organization's documents are never counted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cliEnv, runCli, type CliEnv } from '../cli/testing/run-cli.js';
import { makeCollection, waitSettled } from './helpers/docs.js';
import { addDoc, DOCS } from './helpers/facet-docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

describe('docsift search and docs list: highlights and facets', () => {
  let d: TestDaemon;
  let a: Tenant;
  let b: Tenant;
  let e: CliEnv;
  const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { ...e.env, ...env } });

  before(async () => {
    d = await startTestDaemon({ label: 'cli_facets', worker: true });
    const req = http(d.url);
    [a, b] = await Promise.all([createTenant(d, 'cli-fa-a'), createTenant(d, 'cli-fa-b')]);
    e = await cliEnv({ DOCSIFT_URL: d.url, DOCSIFT_API_KEY: a.key });
    const main = await makeCollection(req, a.key, 'main');
    const ids = [];
    for (const doc of DOCS) ids.push(await addDoc(req, a.key, main.uuid, doc));
    const theirs = await makeCollection(req, b.key, 'theirs');
    const bId = await addDoc(req, b.key, theirs.uuid, { ...DOCS[0]!, metadata: { dept: 'secret' } });
    await waitSettled(req, a.key, ids);
    await waitSettled(req, b.key, [bId]);
  });
  after(async () => d?.close());

  it('marks the words the server matched, stemmed, in colour', async () => {
    const r = await cli(['search', 'terminations', '--mode', 'text', '--limit', '1'], { FORCE_COLOR: '1' });
    assert.equal(r.code, 0, r.stderr);
    // \x1b[1m…\x1b[33m: bold yellow around the matched word, whatever its inflection.
    assert.match(r.stdout, /\x1b\[[0-9;]*m(\x1b\[[0-9;]*m)?[Tt]ermination\x1b\[/);
  });

  it('search --facets prints counts after the results and --json carries them', async () => {
    const r = await cli(['search', 'termination', '--mode', 'text', '--facets', 'metadata.dept,tags']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^metadata\.dept: legal \(2\), finance \(1\)$/m);
    assert.match(r.stdout, /^tags: contracts \(2\), finance \(1\), legal \(1\)$/m);
    const j = await cli(['search', 'termination', '--mode', 'text', '--facets', 'metadata.dept', '--json']);
    assert.deepEqual(j.json().facets['metadata.dept'], [
      { value: 'legal', count: 2 },
      { value: 'finance', count: 1 },
    ]);
    assert.ok(Array.isArray(j.json().results[0].highlights));
  });

  it('docs list --facets counts every matching document, never another organization’s', async () => {
    const r = await cli(['docs', 'list', '--facets', 'metadata.dept', '--limit', '1']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^metadata\.dept: legal \(2\), finance \(1\), hr \(1\)$/m);
    const j = await cli(['docs', 'list', '--facets', 'metadata.dept', '--where', 'year >= 2024', '--json']);
    assert.equal(j.code, 0, j.stderr);
    assert.deepEqual(j.json().facets, {
      'metadata.dept': [
        { value: 'finance', count: 1 },
        { value: 'legal', count: 1 },
      ],
    });
    assert.equal(j.json().documents.length, 2);
    assert.equal(j.json().counted, 2);
    const theirs = await cli(['docs', 'list', '--facets', 'metadata.dept', '--json'], { DOCSIFT_API_KEY: b.key });
    assert.deepEqual(theirs.json().facets, { 'metadata.dept': [{ value: 'secret', count: 1 }] });
  });

  it('a bad facet field is the server’s 400, naming the field', async () => {
    const r = await cli(['search', 'termination', '--facets', 'author']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /facets\[0\]/);
    const l = await cli(['docs', 'list', '--facets', 'tags,author']);
    assert.notEqual(l.code, 0);
    assert.match(l.stderr, /facets\[1\]/);
  });
});
