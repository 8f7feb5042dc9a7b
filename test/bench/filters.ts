// `npm run bench:filters`: what the largest legal filter costs the API and the other tenants. One
// daemon (`serve`, rate limits off so only a filter's own cost bounds the attacker, both
// organizations on the Pro plan), two organizations with BENCH_DOCS documents each. Phases of
// BENCH_PHASE_S seconds:
// - baseline: organization B searches one request after another (hybrid, a small filter);
// - attack: organization A sends the maximal legal filter at concurrency BENCH_CONCURRENCY, alone:
//   the daemon's CPU per request (target ≤ 50 ms) and its PostgreSQL backends';
// - attack + victim: both at once: /healthz (polled every 50 ms; target < 100 ms), B's search p99
//   (target ≤ 2× the baseline's) and the daemon's event-loop delay (monitorEventLoopDelay,
//   preloaded into the daemon: lib/loop-delay.mjs).
// The 100-condition × 100-value filter the limits allowed before the budget is sent once (now 400
// at once); with BENCH_PEER_CWD (a checkout, e.g. main's) its attack phase also runs on that
// checkout's daemon, the cost the budget removes. BENCH_CPU_PROF=<dir> keeps the daemon's CPU profile.
import os from 'node:os';
import { createUserWithKey } from '../../daemon/src/accounts/create.js';
import { createSql } from '../../daemon/src/db/client.js';
import { FILTER_LIMITS } from '../../daemon/src/filters/parse.js';
import { type Phase, phase, startTarget, type Target } from './filters/phase.js';
import { benchDatabase, benchTempDir, runMain } from './lib/env.js';
import { round } from './lib/metrics.js';
import { codeVersion, machineInfo, printTable, writeResults } from './lib/report.js';

const DOCS = Number(process.env.BENCH_DOCS ?? 60);
const PHASE_MS = Number(process.env.BENCH_PHASE_S ?? 15) * 1000;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const PEER = process.env.BENCH_PEER_CWD;
/** A directory: the daemon writes a V8 CPU profile there when it stops (node --cpu-prof). */
const CPU_PROF = process.env.BENCH_CPU_PROF;
const KEYS = ['dept', 'code', 'note', 'absent'];

/**
 * The largest filter the budget allows, shaped to cost the most: a `not` of an `or` that no
 * document passes, so every condition is tested on every document; every value as long as the
 * characters in all allow, on keys the documents hold.
 */
function maximalFilter() {
  const per = FILTER_LIMITS.values / FILTER_LIMITS.clauses;
  const length = Math.min(FILTER_LIMITS.stringLength, Math.floor(FILTER_LIMITS.characters / FILTER_LIMITS.values));
  const value = (n: number) => `${'x'.repeat(length - 8)}${String(n).padStart(8, '0')}`;
  return {
    not: {
      or: Array.from({ length: FILTER_LIMITS.clauses }, (_, i) => ({
        [KEYS[i % KEYS.length]!]: { in: Array.from({ length: per }, (_, j) => value(i * per + j)) },
      })),
    },
  };
}

/** The largest filter before the budget: 100 conditions, each an `in` of 100 values (about 100 KB). */
function formerMaximalFilter() {
  return {
    or: Array.from({ length: 100 }, (_, i) => ({ [KEYS[i % KEYS.length]!]: { in: Array.from({ length: 100 }, (_, j) => `v-${i}-${j}`) } })),
  };
}

async function main(): Promise<void> {
  const db = await benchDatabase('filters');
  const tmp = await benchTempDir('filters');
  const sql = createSql(db.url, { max: 2 });
  const targets: Target[] = [];
  try {
    const users = await Promise.all(
      ['attacker', 'victim'].map((n) =>
        createUserWithKey(sql, { email: `bench-${n}@example.test`, newOrganization: n, tier: 'pro', now: new Date() }),
      ),
    );
    await sql`update organizations set plan = 'pro' where id in ${sql(users.map((u) => u.organization.id))}`;
    const keys = { a: users[0]!.key, b: users[1]!.key };
    const [pm] = await sql<{ pid: number }[]>`select split_part(pg_read_file('postmaster.pid'), E'\n', 1)::int as pid`;
    const here = await startTarget(db.url, tmp.dir, 'this', CPU_PROF ? { cpuProf: CPU_PROF } : {});
    targets.push(here);
    for (const key of [keys.a, keys.b]) {
      const h = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const coll = await (
        await fetch(`${here.url}/api/v1/collections/`, { method: 'POST', headers: h, body: JSON.stringify({ name: 'Ledgers' }) })
      ).json();
      for (let i = 0; i < DOCS; i++) {
        const metadata = { dept: ['legal', 'hr', 'eng'][i % 3], code: `c${i}`, note: `${'y'.repeat(900)}${i}` };
        const content = `Harbour budget ledger ${i}: entries of the ${metadata.dept} office, quarter ${i % 4}.`;
        const r = await fetch(`${here.url}/api/v1/collections/${coll.uuid}/documents/`, {
          method: 'POST',
          headers: h,
          body: JSON.stringify({ source_type: 'text', title: `Ledger ${i}`, content, metadata }),
        });
        if (r.status !== 201) throw new Error(`upload: ${r.status} ${await r.text()}`);
      }
    }
    for (let waited = 0; ; waited += 500) {
      const [row] = await sql<{ pending: number }[]>`select count(*) filter (where status = 'pending')::int as pending from documents`;
      if (!row!.pending) break;
      if (waited > 300_000) throw new Error('documents still pending after 300 s');
      await new Promise((r) => setTimeout(r, 500));
    }
    const maximal = JSON.stringify({ query: 'harbour budget ledger', limit: 10, filter: maximalFilter() });
    const former = JSON.stringify({ query: 'harbour budget ledger', limit: 10, filter: formerMaximalFilter() });
    const check = await fetch(`${here.url}/api/v1/search/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.a}`, 'content-type': 'application/json' },
      body: maximal,
    });
    if (check.status !== 200) throw new Error(`the maximal legal filter must run: ${check.status} ${(await check.text()).slice(0, 300)}`);
    const s0 = performance.now();
    const refused = await fetch(`${here.url}/api/v1/search/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.a}`, 'content-type': 'application/json' },
      body: former,
    });
    const formerAnswer = {
      status: refused.status,
      ms: round(performance.now() - s0),
      code: ((await refused.json()) as { code?: string }).code,
    };
    process.stderr.write(`[bench] ${DOCS} documents per organization indexed; maximal legal filter ${round(maximal.length / 1024)} KiB\n`);
    const run = { ms: PHASE_MS, concurrency: CONCURRENCY };
    const phases: Phase[] = [];
    phases.push(await phase('baseline (victim alone)', here, pm!.pid, keys, { victim: true, ...run }));
    phases.push(await phase(`attack alone (c=${CONCURRENCY})`, here, pm!.pid, keys, { attack: maximal, victim: false, ...run }));
    phases.push(await phase(`attack + victim (c=${CONCURRENCY})`, here, pm!.pid, keys, { attack: maximal, victim: true, ...run }));
    if (PEER) {
      await here.daemon.stop();
      const peer = await startTarget(db.url, tmp.dir, 'peer', { cwd: PEER });
      targets.push(peer);
      phases.push(
        await phase(`peer: 100 × 100 filter alone (c=${CONCURRENCY})`, peer, pm!.pid, keys, { attack: former, victim: false, ...run }),
      );
    }
    report(phases, formerAnswer, maximal.length);
  } finally {
    for (const t of targets) await t.daemon.stop().catch(() => {});
    await sql.end();
    await db.drop();
    await tmp.remove();
  }
}

function report(phases: Phase[], former: { status: number; ms: number; code?: string }, maximalBytes: number): void {
  printTable(
    `bench:filters — ${DOCS} documents per organization, phases of ${PHASE_MS / 1000} s, load ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
    [
      'phase',
      'attacks',
      'statuses',
      'attack p50',
      'daemon CPU/attack',
      'PG CPU/attack',
      'healthz p99/max',
      'victim p50/p99',
      'event loop p99/max',
    ],
    phases.map((p) => [
      p.name,
      p.attacks,
      JSON.stringify(p.attackStatuses),
      p.attacks ? `${p.attack.p50} ms` : undefined,
      p.attacks && !p.victim.n ? `${round(p.daemonCpuMs / p.attacks)} ms` : undefined,
      p.attacks && !p.victim.n ? `${round(p.pgCpuMs / p.attacks)} ms` : undefined,
      `${p.healthz.p99} / ${p.healthz.max} ms`,
      p.victim.n ? `${p.victim.p50} / ${p.victim.p99} ms` : undefined,
      p.loop ? `${p.loop.p99} / ${p.loop.max} ms` : undefined,
    ]),
  );
  const [base, alone, both] = phases;
  const cpu = alone!.attacks ? alone!.daemonCpuMs / alone!.attacks : Number.NaN;
  const targets = [
    ['API CPU per maximal legal filter', `${round(cpu)} ms`, '<= 50 ms', cpu <= 50],
    ['/healthz max, attack + victim', `${both!.healthz.max} ms`, '< 100 ms', both!.healthz.max < 100],
    [
      'victim search p99, attack against baseline',
      `${both!.victim.p99} / ${base!.victim.p99} ms`,
      '<= 2x',
      both!.victim.p99 <= 2 * base!.victim.p99,
    ],
    [
      '100 x 100 filter (the former largest)',
      `${former.status} ${former.code ?? ''} in ${former.ms} ms`,
      '400 at once',
      former.status === 400,
    ],
  ] as const;
  printTable(
    'Targets',
    ['target', 'measured', 'limit', 'result'],
    targets.map(([t, m, l, ok]) => [t, m, l, ok ? 'PASS' : 'FAIL']),
  );
  const file = writeResults('filters', {
    machine: machineInfo(),
    code: codeVersion(),
    docs: DOCS,
    phase_ms: PHASE_MS,
    concurrency: CONCURRENCY,
    maximal_bytes: maximalBytes,
    former,
    phases,
  });
  process.stdout.write(`\nresults: ${file}\n`);
}

runMain(main);
