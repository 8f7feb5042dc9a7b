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
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createUserWithKey } from '../../daemon/src/accounts/create.js';
import { createSql } from '../../daemon/src/db/client.js';
import { FILTER_LIMITS } from '../../daemon/src/filters/parse.js';
import { benchDatabase, benchTempDir, type DaemonProcess, repoRoot, runMain, startDaemonProcess } from './lib/env.js';
import { percentiles, type Percentiles, round, treeCpuMs } from './lib/metrics.js';
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

interface Phase {
  name: string;
  attacks: number;
  attackStatuses: Record<string, number>;
  attack: Percentiles;
  victim: Percentiles;
  healthz: Percentiles;
  daemonCpuMs: number;
  pgCpuMs: number;
  loop?: { p50: number; p99: number; max: number; mean: number };
}

interface Target {
  url: string;
  daemon: DaemonProcess;
  loopFile: string;
}

async function readLoop(t: Target) {
  const before = (() => {
    try {
      return JSON.parse(readFileSync(t.loopFile, 'utf8')).seq as number;
    } catch {
      return 0;
    }
  })();
  process.kill(t.daemon.pid, 'SIGUSR2');
  for (let i = 0; i < 100; i++) {
    try {
      const s = JSON.parse(readFileSync(t.loopFile, 'utf8'));
      if (s.seq > before) return s as Phase['loop'];
    } catch {
      /* not written yet */
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return undefined;
}

/** One phase: the attacker (a prepared body, or none), the victim (or not) and the health probe, for PHASE_MS. */
async function phase(name: string, t: Target, pmPid: number, keys: { a: string; b: string }, o: { attack?: string; victim: boolean }) {
  const end = Date.now() + PHASE_MS;
  const timed = async (list: number[], f: () => Promise<Response>) => {
    const s = performance.now();
    const res = await f();
    await res.arrayBuffer();
    list.push(performance.now() - s);
    return res.status;
  };
  const post = (key: string, body: string) => () =>
    fetch(`${t.url}/api/v1/search/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
  const attack: number[] = [];
  const victim: number[] = [];
  const healthz: number[] = [];
  const statuses: Record<string, number> = {};
  const victimBody = JSON.stringify({ query: 'harbour budget ledger', limit: 10, filter: { dept: 'legal' } });
  await readLoop(t);
  const cpu0 = [treeCpuMs(t.daemon.pid), treeCpuMs(pmPid)];
  const loops = [
    ...(o.attack
      ? Array.from({ length: CONCURRENCY }, async () => {
          while (Date.now() < end) {
            const s = await timed(attack, post(keys.a, o.attack!));
            statuses[s] = (statuses[s] ?? 0) + 1;
          }
        })
      : []),
    o.victim
      ? (async () => {
          while (Date.now() < end) if ((await timed(victim, post(keys.b, victimBody))) !== 200) throw new Error('victim search failed');
        })()
      : undefined,
    (async () => {
      while (Date.now() < end) {
        await timed(healthz, () => fetch(`${t.url}/healthz`));
        await new Promise((r) => setTimeout(r, 50));
      }
    })(),
  ];
  await Promise.all(loops);
  const cpu = [treeCpuMs(t.daemon.pid) - cpu0[0]!, treeCpuMs(pmPid) - cpu0[1]!];
  return {
    name,
    attacks: attack.length,
    attackStatuses: statuses,
    attack: percentiles(attack),
    victim: percentiles(victim),
    healthz: percentiles(healthz),
    daemonCpuMs: cpu[0]!,
    pgCpuMs: cpu[1]!,
    loop: await readLoop(t),
  } satisfies Phase;
}

async function startTarget(dbUrl: string, dir: string, label: string, cwd?: string): Promise<Target> {
  const loopFile = path.join(dir, `loop-${label}.json`);
  const daemon = await startDaemonProcess({
    args: ['serve'],
    ...(cwd ? { cwd } : {}),
    nodeArgs: [
      '--import',
      path.join(repoRoot, 'test/bench/lib/loop-delay.mjs'),
      ...(CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : []),
    ],
    logFile: path.join(dir, `daemon-${label}.log`),
    env: {
      DATABASE_URL: dbUrl,
      DATA_DIR: path.join(dir, `data-${label}`),
      PORT: '0',
      LOG_LEVEL: 'warn',
      SIGNING_SECRET: 'bench-signing-secret-0123456789abcdef0123456789',
      RATE_LIMITS_ENABLED: 'false',
      BENCH_LOOP_DELAY_FILE: loopFile,
    },
  });
  return { url: daemon.url!, daemon, loopFile };
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
    const here = await startTarget(db.url, tmp.dir, 'this');
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
    const phases: Phase[] = [];
    phases.push(await phase('baseline (victim alone)', here, pm!.pid, keys, { victim: true }));
    phases.push(await phase(`attack alone (c=${CONCURRENCY})`, here, pm!.pid, keys, { attack: maximal, victim: false }));
    phases.push(await phase(`attack + victim (c=${CONCURRENCY})`, here, pm!.pid, keys, { attack: maximal, victim: true }));
    if (PEER) {
      await here.daemon.stop();
      const peer = await startTarget(db.url, tmp.dir, 'peer', PEER);
      targets.push(peer);
      phases.push(await phase(`peer: 100 × 100 filter alone (c=${CONCURRENCY})`, peer, pm!.pid, keys, { attack: former, victim: false }));
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
