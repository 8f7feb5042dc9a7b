// Chaos: PostgreSQL stopped for a long outage across a cron tick, during uploads and searches, with
// a document being processed at the moment it stops. The daemon (`serve`: API and worker in one
// real child process) runs against a private cluster, so the shared test cluster is never touched.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cliEntry, cliEnv, runCli } from '../cli/testing/run-cli.js';
import { ApiError, createClient } from '../sdk/src/index.js';
import {
  assertNothingLost,
  assertOnlySuccessOr503,
  isOutageAnswer,
  setUpTenant,
  startChaosBed,
  startLoad,
  testSql,
  until,
  upload,
  type ChaosBed,
  type ChaosTenant,
} from './helpers/chaos-db.js';
import { spawnDaemon, type DaemonProcess } from './helpers/daemon-process.js';

// The reproduction stopped the database for 70 s, a length chosen to be sure of covering a
// cron tick (graphile-worker schedules on wall-clock minute boundaries; fold_text_stats runs every
// minute). Here the outage is placed instead: it starts now and ends CRON_MARGIN_MS after the next
// minute boundary, so a tick always falls inside it, while the whole suite stays within its time
// budget (15 to 65 s, about 40 on average, rather than a fixed 70). OUTAGE_MIN_MS keeps even the
// shortest draw far beyond every timeout and backoff involved: the 2 s connect timeout, the 1 s
// probe, the worker's 1.5 s stale-heartbeat window below, and postgres.js' old 20 s reconnect delay
// grows past 2 s within it (the 19 s hangs of the issue would show).
const OUTAGE_MIN_MS = 15_000;
const CRON_MARGIN_MS = 5_000;
/** The SDK and CLI calls start this long before the database returns, so they meet a few 503s. */
const CLIENT_HEAD_START_MS = 5_000;
/** A request made while the database is down must be answered within this (the issue: about 2 s, not 19). */
const FAIL_FAST_MS = 3_000;

describe('chaos: PostgreSQL stopped across a cron tick', () => {
  let bed: ChaosBed;
  let serve: DaemonProcess;
  let t: ChaosTenant;

  before(async () => {
    bed = await startChaosBed('chaos-outage', { dimension: 64 });
    serve = await spawnDaemon(['serve'], bed.env);
    t = await setUpTenant(bed.pg.url, serve.url, bed.rx);
    await cliEntry(); // built now, so the CLI starts at once during the outage
  });
  after(async () => {
    await serve?.stop();
    await bed?.close();
  });

  it('keeps the process alive, answers 503 with Retry-After at once, and loses nothing', async (ctx) => {
    for (let i = 0; i < 3; i++) assert.equal((await upload(serve.url, t)).status, 201);
    const load = startLoad(serve.url, t, { uploaders: 2, searchers: 2, pauseMs: 100 });
    await until(async () => load.samples.filter((s) => s.status === 201).length >= 4 || undefined, 30_000, 'uploads under load');

    // A document in the middle of processing when the database goes: the embedder holds it.
    bed.ollama.setDelay(1500);
    const embedsBefore = bed.ollama.requests;
    assert.equal((await upload(serve.url, t)).status, 201);
    await until(async () => bed.ollama.requests > embedsBefore || undefined, 30_000, 'a document being embedded');

    const outageMs = Math.max(OUTAGE_MIN_MS, 60_000 - (Date.now() % 60_000) + CRON_MARGIN_MS);
    const stopAt = Date.now();
    await bed.pg.stop();
    const tDown = Date.now();
    bed.ollama.setDelay(0);
    const sleepUntil = (at: number) => new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
    // Shortly before the database returns, the SDK and the CLI start a call: they must wait out
    // the 503s as Retry-After says, and succeed once it is back.
    await sleepUntil(stopAt + outageMs - CLIENT_HEAD_START_MS);
    const sdkRetries: { status: number; delayMs: number }[] = [];
    const sdkCall = createClient({
      baseUrl: serve.url,
      apiKey: t.key,
      maxRetries: 30,
      onRetry: (i) => sdkRetries.push({ status: i.error instanceof ApiError ? i.error.status : 0, delayMs: i.delayMs }),
    }).collections.list();
    const cliCall = runCli(['collections', 'list'], {
      env: (await cliEnv({ DOCSIFT_URL: serve.url, DOCSIFT_API_KEY: t.key, DOCSIFT_MAX_RETRIES: '30' })).env,
      timeoutMs: 90_000,
    });
    await sleepUntil(stopAt + outageMs);
    await bed.pg.start();
    const tUp = Date.now();

    const readiness: { at: number; status: number; body: string }[] = [];
    await until(
      async () => {
        const r = await fetch(`${serve.url}/readyz`, { signal: AbortSignal.timeout(10_000) });
        const body = await r.text();
        readiness.push({ at: Date.now(), status: r.status, body });
        return r.status === 200 || undefined;
      },
      60_000,
      '/readyz to say ready again',
      100,
      () => (serve.exited() ? `the daemon exited: ${JSON.stringify(serve.exited())}\n${serve.text.slice(-30).join('\n')}` : undefined),
    );
    const tReady = Date.now();
    await until(async () => load.samples.some((s) => s.status === 201 && s.start > tReady) || undefined, 30_000, 'uploads after recovery');
    await load.stop();

    assert.equal(serve.exited(), null, `the daemon is still running:\n${serve.text.join('\n')}`);
    const during = load.samples.filter((s) => s.start >= tDown && s.end <= tUp);
    assertOnlySuccessOr503(load.samples, (s) => during.includes(s));
    assert.ok(during.length >= 10, `requests were made during the outage (${during.length})`);
    assert.deepEqual(
      during.filter((s) => !isOutageAnswer(s)),
      [],
      'every request during the outage got the outage answer (503; a search 500 SEARCH_UNAVAILABLE)',
    );
    const slowest = Math.max(...during.map((s) => s.end - s.start));
    assert.ok(slowest <= FAIL_FAST_MS, `answered within ${FAIL_FAST_MS} ms during the outage (slowest ${slowest} ms)`);
    assert.ok(Math.max(...load.samples.map((s) => s.end - s.start)) <= 2 * FAIL_FAST_MS, 'no request hung at the transitions');

    // The runner's cron tick failed while the database was down: the runner ended on its own
    // (the crash of the issue) and was replaced, and the log says once that the database went and once that it came back.
    // The outage counts from the moment the stop began: when the minute turns less than 15 s after
    // it, a slow shutdown (its checkpoint, on a loaded machine) can still be under way at the tick.
    const inOutage = (l: { time: string }) => {
      const at = Date.parse(l.time);
      return at >= stopAt && at <= tUp;
    };
    assert.ok(
      serve.logs.some((l) => l.msg === 'job runner stopped unexpectedly' && inOutage(l)),
      `the job runner ended during the outage (its cron tick failed) and the process lived on; stop began ${new Date(stopAt).toISOString()}, done ${new Date(tDown).toISOString()}, restarted ${new Date(tUp).toISOString()}; runner lines: ${JSON.stringify(serve.logs.filter((l) => /runner/.test(l.msg)).map((l) => [l.time, l.msg]))}`,
    );
    assert.equal(serve.logs.filter((l) => l.msg.startsWith('database unreachable')).length, 1, 'one "database unreachable" line');
    assert.equal(serve.logs.filter((l) => l.msg === 'database reachable again').length, 1, 'one "reachable again" line');
    // Ready again only once the worker processes again (checked by everything being indexed below).
    assert.ok(
      readiness.slice(0, -1).every((r) => r.status === 503),
      `not ready before the worker runs again: ${JSON.stringify(readiness.slice(0, 3))}`,
    );

    const listed = await sdkCall;
    assert.ok(
      listed.some((c) => c.uuid === t.collection),
      'the SDK call succeeded after the outage',
    );
    assert.ok(sdkRetries.length >= 1, 'the SDK retried');
    for (const r of sdkRetries) {
      assert.equal(r.status, 503);
      assert.ok(r.delayMs >= 2000, `the SDK waited the Retry-After: ${r.delayMs} ms`);
    }
    const cli = await cliCall;
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stderr, /server unavailable — resuming in \d+ s \(the database is unreachable\)/);
    assert.match(cli.stdout, /Chaos/);

    const sql = testSql(bed.pg.url);
    try {
      const acknowledged = load.samples.flatMap((s) => (s.uuid ? [s.uuid] : []));
      const result = await assertNothingLost(sql, t, acknowledged, bed.rx, {
        liveWorkers: 2,
        maxConnections: 5 + 4 + 1,
        timeoutMs: 60_000,
      });
      const answers = during.map((s) => s.end - s.start).sort((a, b) => a - b);
      ctx.diagnostic(
        `outage ${tUp - tDown} ms across a cron tick; ${during.length} requests during it, all 503: median ${answers[answers.length >> 1]} ms, slowest ${slowest} ms; ` +
          `/readyz ready ${tReady - tUp} ms after the database was back; every one of ${result.documents} documents indexed ${result.indexedAt - tUp} ms after`,
      );
    } finally {
      await sql.end();
    }
  });
});
