// A webhook receiver that went away: every attempt of every event fails. The delivery log keeps each
// attempt, but the daemon's own log collapses them per endpoint: the first failure at once, then one
// line per window (or at shutdown, or at the next success) with the count.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { emitEvent, type DocumentEventData } from '../daemon/src/webhooks/events.js';
import { WebhookFailureLog } from '../daemon/src/webhooks/failure-log.js';
import { createLogger } from '../daemon/src/logger.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { captureLogs, type LogCapture } from './helpers/log-capture.js';

const EVENTS = 5;
/** Every event is tried 6 times (1 + MAX_RETRIES) before it is given up. */
const ATTEMPTS = EVENTS * 6;

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const data = (): DocumentEventData => ({
  uuid: randomUUID(),
  status: 'indexed',
  title: 'Synthetic',
  source_type: 'txt',
  collection_uuid: randomUUID(),
  collection_name: 'Synthetic',
  chunks_count: 1,
  tags: 'a',
  error_message: null,
  original_filename: 'synthetic.txt',
  file_size: 10,
});

describe('webhook failures in the daemon log', () => {
  let d: TestDaemon | undefined;
  let logs: LogCapture;
  let t: Tenant;
  let webhookId = '';
  before(async () => {
    logs = captureLogs();
    d = await startTestDaemon({
      label: 'webhooks_faillog',
      worker: true,
      logTo: logs.stream,
      env: {
        LOG_LEVEL: 'info',
        ALLOW_PRIVATE_URLS: 'true',
        WEBHOOK_RETRY_BASE_MS: '20',
        WEBHOOK_TIMEOUT_MS: '500',
        WORKER_CONCURRENCY: '4',
      },
    });
    t = await createTenant(d, 'faillog');
    const hook = await http(d.url)('POST', '/api/v1/webhooks/', {
      key: t.key,
      json: { url: `http://127.0.0.1:${await closedPort()}/hook` },
    });
    assert.equal(hook.status, 201, hook.text);
    webhookId = (await d.deps.sql<{ id: string }[]>`select id from webhooks where organization_id = ${t.orgId}`)[0]!.id;
  });
  after(async () => d?.close());

  it('a receiver that refuses every connection: 30 failed attempts, at most two log lines', async () => {
    const dd = d!;
    for (let i = 0; i < EVENTS; i++)
      await dd.deps.sql.begin((tx) => emitEvent(tx, t.orgId, 'document.indexed', data(), dd.deps.clock.now()));
    // Every attempt is in the delivery log, the last of each event given up.
    for (let i = 0; ; i++) {
      const [row] = await dd.deps.sql<{ n: number }[]>`select count(*)::int as n from webhook_deliveries where webhook_id = ${webhookId}`;
      if (row!.n >= ATTEMPTS) break;
      assert.ok(i < 1200, `only ${row!.n} of ${ATTEMPTS} attempts were made`);
      await new Promise((r) => setTimeout(r, 25));
    }
    await dd.close();
    d = undefined;
    const lines = logs.lines.filter((l) => l.webhookId === webhookId);
    assert.ok(lines.length <= 2, `collapsed to at most 2 lines, got ${lines.length}:\n${lines.map((l) => l.msg).join('\n')}`);
    assert.match(lines[0]!.msg, /webhook delivery failed: will retry/);
    assert.equal(lines[0]!.attempt, 1);
    const summary = lines[1]!;
    assert.match(summary.msg, /still failing: 29 more failure\(s\)/);
    assert.deepEqual([summary.failures, summary.willRetry, summary.gaveUp], [ATTEMPTS - 1, ATTEMPTS - 1 - EVENTS, EVENTS]);
    assert.equal(summary.level, 40, 'given-up events make the summary a warning');
  });
});

describe('WebhookFailureLog windows', () => {
  it('reports a window that saw failures when it ends and opens the next; a success reports at once', async () => {
    const logs = captureLogs();
    const log = new WebhookFailureLog(createLogger('info', logs.stream), 30);
    const f = { webhookId: 'w1', url: 'http://x/', eventId: 'e', error: 'ECONNREFUSED', willRetry: true };
    log.failed({ ...f, attempt: 1 });
    log.failed({ ...f, attempt: 2 });
    log.failed({ ...f, attempt: 3 });
    await logs.waitFor((l) => /still failing: 2 more/.test(l.msg), 5_000, 'the window summary');
    log.failed({ ...f, attempt: 4 });
    log.delivered('w1');
    await logs.waitFor(
      (l) => /still failing: 1 more failure\(s\) to this URL then delivered again/.test(l.msg),
      5_000,
      'the success summary',
    );
    log.failed({ ...f, attempt: 5 });
    log.flush();
    assert.deepEqual(
      logs.lines.map((l) => l.msg.replace(/ \(.*$/, '')),
      [
        'webhook delivery failed: will retry',
        'webhook deliveries still failing: 2 more failure(s) to this URL in 0 s',
        'webhook deliveries still failing: 1 more failure(s) to this URL then delivered again',
        'webhook delivery failed: will retry',
      ],
    );
  });
});
