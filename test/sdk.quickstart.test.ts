// The committed 20-line SDK example (examples/quickstart.ts) run as a user would run it, against a
// real daemon with its worker, with a local receiver that verifies the webhook test delivery.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { verifyWebhook, type WebhookEvent } from '../sdk/src/index.js';
import { createTenant, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const example = path.join(root, 'examples/quickstart.ts');

describe('examples/quickstart.ts', () => {
  let d: TestDaemon;
  let t: Tenant;
  before(async () => {
    d = await startTestDaemon({ label: 'sdk_quickstart', worker: true, env: { ALLOW_PRIVATE_URLS: 'true' } });
    t = await createTenant(d, 'quickstart');
  });
  after(() => d?.close());

  it('is at most 20 lines', async () => {
    const lines = (await readFile(example, 'utf8')).trimEnd().split('\n');
    assert.ok(lines.length <= 20, `${lines.length} lines`);
  });

  it('uploads a folder with progress, waits, searches, rotates a key, tests a webhook and reports usage', async () => {
    const schema = (await (await fetch(`${d.url}/api/v1/schema/`)).json()) as { paths: Record<string, unknown> };
    const hasUsage = '/api/v1/keys/usage/' in schema.paths;

    // The receiver learns the secret from the example's output, which prints it before sending the test.
    let secret!: (s: string) => void;
    const secretKnown = new Promise<string>((r) => (secret = r));
    const events: WebhookEvent[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        try {
          events.push(await verifyWebhook({ secret: await secretKnown, headers: req.headers, rawBody: Buffer.concat(chunks) }));
          res.writeHead(204).end();
        } catch {
          res.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

    const child = spawn(process.execPath, ['--conditions=docsift:source', '--import', 'tsx', example], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DOCSIFT_URL: d.url, DOCSIFT_API_KEY: t.key, WEBHOOK_URL: hookUrl },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
      const m = /webhook secret \(shown once\): (whsec_\S+)/.exec(stdout);
      if (m) secret(m[1]!);
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    receiver.close();

    // Progress went to stderr, ending with every file of the samples folder.
    const progress = [...stderr.matchAll(/uploaded (\d+)\/(\d+) files, (\d+)\/(\d+) bytes/g)];
    assert.ok(progress.length >= 2, stderr);
    const last = progress.at(-1)!;
    assert.equal(last[1], last[2]);
    assert.equal(last[3], last[4]);

    assert.match(stdout, /^uploaded 18, skipped 3; indexed 15, failed 3$/m);
    assert.match(stdout, /^\d\.\d{3} {2}sample\.md: .*kestrelmarble/m);
    assert.match(stdout, /^rotated key svc_\S+… → svc_\S+…$/m);
    assert.match(stdout, /^webhook test: HTTP 204 in \d+ ms$/m);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.event, 'webhook.test');

    if (hasUsage) {
      assert.equal(code, 0, stderr);
      assert.match(stdout, /^last 7 days: \d+ requests, \d+ errors, [\d.]+ ms average$/m);
    } else {
      // A daemon without GET /api/v1/keys/usage/ fails the last call only.
      assert.notEqual(code, 0);
      assert.match(stderr, /NotFoundError|No route/);
    }
  });
});
