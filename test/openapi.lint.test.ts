// The OpenAPI document drives every SDK generator: Spectral (with the committed .spectral.yaml) lints
// what the daemon serves — operationIds, summaries, descriptions, examples on every media type,
// error responses, rate-limit headers and Retry-After — and fails on any warning.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { http, startTestDaemon, type TestDaemon } from './helpers/daemon.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function spectral(file: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      path.join(root, 'node_modules/.bin/spectral'),
      ['lint', file, '--ruleset', path.join(root, '.spectral.yaml'), '--fail-severity', 'warn', '--format', 'text'],
      { cwd: root },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

describe('OpenAPI lint', () => {
  let d: TestDaemon;
  let dir: string;
  let doc: any;
  before(async () => {
    d = await startTestDaemon({ label: 'oalint' });
    doc = (await http(d.url)('GET', '/api/v1/schema/')).body;
    dir = await mkdtemp(path.join(os.tmpdir(), 'docsift-oalint-'));
  });
  after(async () => {
    await d?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('the served document passes the committed Spectral ruleset with no warning', async () => {
    const file = path.join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(doc));
    const r = await spectral(file);
    assert.equal(r.code, 0, r.out);
  });

  it('the ruleset catches a missing operationId, example and rate-limit header', async () => {
    const broken = structuredClone(doc);
    const op = broken.paths['/api/v1/search/'].post;
    delete op.operationId;
    delete op.responses['200'].content['application/json'].example;
    delete op.responses['404'].headers['X-RateLimit-Remaining'];
    const file = path.join(dir, 'broken.json');
    await writeFile(file, JSON.stringify(broken));
    const r = await spectral(file);
    assert.notEqual(r.code, 0);
    for (const rule of ['operation-operationId', 'docsift-media-example', 'docsift-rate-limit-headers'])
      assert.match(r.out, new RegExp(rule));
  });

  it('operationIds are unique and SDK-friendly', () => {
    const ids = Object.values<any>(doc.paths).flatMap((item) => Object.values<any>(item).map((op) => op.operationId));
    assert.equal(ids.length, 42);
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids) assert.match(id, /^[a-z][A-Za-z]+$/);
  });

  it('error examples name only codes the operation documents', () => {
    for (const [p, item] of Object.entries<any>(doc.paths)) {
      for (const [m, op] of Object.entries<any>(item)) {
        for (const [status, res] of Object.entries<any>(op.responses)) {
          const examples = res.content?.['application/json']?.examples;
          if (!examples) continue;
          for (const [code, ex] of Object.entries<any>(examples)) {
            assert.equal(ex.value.code, code);
            assert.ok(res.description.includes(code), `${m} ${p} ${status}: ${code}`);
          }
        }
      }
    }
  });
});
