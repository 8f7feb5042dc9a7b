// `npm run bench:limits`: what per-user rate limiting and usage metering cost per request.
// Four real daemons (serve --api-only) on one fresh database, identical except for
// RATE_LIMITS_ENABLED / METERING_ENABLED, answer GET /api/v1/collections/ (authenticated, cheap).
// Rounds alternate between the daemons so machine noise spreads evenly. Reports requests/s at a
// fixed concurrency, p50/p99 latency sequentially and under load, and the added latency against
// the daemon with both off. Sequential requests go round-robin to the four daemons (order rotated
// each time), so a busy machine slows all modes alike, and the added latency is the median of the
// paired differences to the "off" request of the same turn. Afterwards the daemons are stopped
// (SIGTERM) and the request log is checked: one row per answered request of the metering daemons.
//
// Knobs: BENCH_SEQ (sequential requests per mode, default 1500), BENCH_BURSTS (bursts per mode,
// 30), BENCH_BURST (requests per burst, 100), BENCH_CONCURRENCY (8), BENCH_PEER_CWD (a checkout, e.g.
// main's: adds its "rate limits" and "limits + metering" daemons as two more modes, interleaved round by
// round with these, so a change's cost is paired against the code before it on one noisy machine).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSql, type Sql } from '../../daemon/src/db/client.js';
import { hashApiKey } from '../../daemon/src/auth/keys.js';
import { countForKey } from '../../daemon/src/limits/limiter.js';
import { createUserWithKey } from '../../daemon/src/accounts/create.js';
import { benchDatabase, benchTempDir, startDaemonProcess, type DaemonProcess } from './lib/env.js';
import { percentiles, round } from './lib/metrics.js';
import { machineInfo, printTable, writeResults } from './lib/report.js';

const SEQ = Number(process.env.BENCH_SEQ ?? 1500);
const BURSTS = Number(process.env.BENCH_BURSTS ?? 30);
const BURST = Number(process.env.BENCH_BURST ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const WARMUP = 200;
// Pro tier allows 300 requests per user and minute: spread each daemon's load over enough users
// that no request is refused (refusals are counted and reported; they should be zero).
const USERS_PER_MODE = Math.ceil(((WARMUP + SEQ + BURSTS * BURST) / 300) * 1.5) + 2;

interface Mode {
  name: string;
  /** Checkout whose daemon runs this mode (default: this one). */
  cwd?: string;
  limits: boolean;
  metering: boolean;
  daemon?: DaemonProcess;
  keys: string[];
  userIds: string[];
  next: number;
  seq: number[];
  conc: number[];
  concWallMs: number;
  /** Requests/s of each burst, by round, for paired comparisons. */
  burstRps: number[];
  /** CPU time (daemon process + every PostgreSQL backend of the database) spent during its bursts. */
  cpuMs: number;
  /** The daemon process's share of cpuMs (the rest is its PostgreSQL backends). */
  daemonCpuMs: number;
  answered: number;
  refused: number;
  errors: number;
}

const PEER = process.env.BENCH_PEER_CWD;
const modes: Mode[] = [
  { name: 'off', limits: false, metering: false },
  { name: 'rate limits', limits: true, metering: false },
  { name: 'metering', limits: false, metering: true },
  { name: 'limits + metering', limits: true, metering: true },
  ...(PEER
    ? [
        { name: 'rate limits (peer)', limits: true, metering: false, cwd: PEER },
        { name: 'limits + metering (peer)', limits: true, metering: true, cwd: PEER },
      ]
    : []),
].map((m) => ({
  ...m,
  keys: [],
  userIds: [],
  next: 0,
  seq: [],
  conc: [],
  concWallMs: 0,
  burstRps: [],
  cpuMs: 0,
  daemonCpuMs: 0,
  answered: 0,
  refused: 0,
  errors: 0,
}));

async function hit(m: Mode, into?: number[]): Promise<number> {
  const key = m.keys[m.next++ % m.keys.length]!;
  const started = performance.now();
  const res = await fetch(`${m.daemon!.url}/api/v1/collections/`, { headers: { authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  const ms = performance.now() - started;
  into?.push(ms);
  m.answered++;
  if (res.status === 429) m.refused++;
  else if (res.status !== 200) m.errors++;
  return ms;
}

const rotated = <T>(xs: T[], by: number) => xs.map((_, i) => xs[(i + by) % xs.length]!);
/** Nearest-rank percentile, unrounded (lib/metrics rounds to 0.1 ms, too coarse here). */
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? 0;
};
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2 : 0;
};

/** Time a process has spent on a CPU, in ms (ns resolution from schedstat; 0 once it is gone). */
function cpuOf(pid: number): number {
  try {
    // The main thread's figure would miss the daemon's worker threads (libuv, GC): sum all tasks.
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`))
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    return ns / 1e6;
  } catch {
    return 0;
  }
}

/** Local TCP ports of a process's sockets (from /proc), to find its PostgreSQL backends. */
function localPorts(pid: number): Set<number> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    const m = /^socket:\[(\d+)\]$/.exec(readlinkSafe(`/proc/${pid}/fd/${fd}`));
    if (m) inodes.add(m[1]!);
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[9] && inodes.has(f[9])) ports.add(parseInt(f[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}
function readlinkSafe(p: string): string {
  try {
    return readlinkSync(p);
  } catch {
    return '';
  }
}

/**
 * CPU used by a burst: the daemon's process plus its own PostgreSQL backends (matched by client
 * port), so its background request-log flushes count for it and nobody else. Unlike wall time,
 * this hardly depends on what else the machine is running: the robust measure of the cost.
 */
async function cpuSnapshot(sql: Sql, m: Mode): Promise<Map<number, number>> {
  const ports = localPorts(m.daemon!.pid);
  const rows = await sql<
    { pid: number; client_port: number | null }[]
  >`select pid, client_port from pg_stat_activity where datname = current_database()`;
  const pids = rows.filter((r) => r.client_port !== null && ports.has(r.client_port)).map((r) => r.pid);
  return new Map([m.daemon!.pid, ...pids].map((p) => [p, cpuOf(p)]));
}

async function concurrent(m: Mode, n: number, sql: Sql): Promise<void> {
  const before = await cpuSnapshot(sql, m);
  await burst(m, n);
  const after = await cpuSnapshot(sql, m);
  for (const [pid, ms] of after) {
    m.cpuMs += ms - (before.get(pid) ?? 0);
    if (pid === m.daemon!.pid) m.daemonCpuMs += ms - (before.get(pid) ?? 0);
  }
}

async function burst(m: Mode, n: number): Promise<void> {
  let left = n;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) await hit(m, m.conc);
    }),
  );
  const wall = performance.now() - started;
  m.concWallMs += wall;
  m.burstRps.push((n / wall) * 1000);
}

let loadBefore: number[] = [];

async function main(): Promise<void> {
  const db = await benchDatabase('limits');
  const tmp = await benchTempDir('limits');
  const sql = createSql(db.url, { max: 4 });
  try {
    for (const m of modes) {
      for (let i = 0; i < USERS_PER_MODE; i++) {
        const u = await createUserWithKey(sql, {
          email: `bench-${m.name.replace(/\W+/g, '-')}-${i}@example.test`,
          newOrganization: `bench ${m.name} ${i}`,
          tier: 'pro',
          now: new Date(),
        });
        m.keys.push(u.key);
        m.userIds.push(u.user.id);
      }
    }
    for (const [i, m] of modes.entries()) {
      m.daemon = await startDaemonProcess({
        args: ['serve', '--api-only'],
        ...(m.cwd ? { cwd: m.cwd } : {}),
        logFile: path.join(tmp.dir, `daemon-${i}.log`),
        env: {
          DATABASE_URL: db.url,
          DATA_DIR: path.join(tmp.dir, `data-${i}`),
          PORT: '0',
          LOG_LEVEL: 'warn',
          SIGNING_SECRET: 'bench-signing-secret-0123456789abcdef0123456789',
          RATE_LIMITS_ENABLED: String(m.limits),
          METERING_ENABLED: String(m.metering),
        },
      });
    }
    loadBefore = os.loadavg().map((x) => round(x, 2));
    process.stderr.write(
      `[bench] ${modes.length} daemons up; per mode ${SEQ} sequential requests, then ${BURSTS} bursts of ${BURST} at concurrency ${CONCURRENCY}\n`,
    );
    for (let i = 0; i < WARMUP; i++) for (const m of modes) await hit(m);
    const paired = new Map<Mode, number[]>(modes.map((m) => [m, []]));
    for (let i = 0; i < SEQ; i++) {
      const turn = new Map<Mode, number>();
      for (const m of rotated(modes, i)) turn.set(m, await hit(m, m.seq));
      for (const m of modes) paired.get(m)!.push(turn.get(m)! - turn.get(modes[0]!)!);
    }
    process.stderr.write('[bench] sequential phase done\n');
    for (let b = 0; b < BURSTS; b++) for (const m of rotated(modes, b)) await concurrent(m, BURST, sql);
    process.stderr.write('[bench] load phase done\n');

    // The guard's statement alone (key lookup + count, by key hash), from this process.
    const direct: number[] = [];
    const hash = hashApiKey(modes[0]!.keys[0]!);
    const t0 = Date.now();
    for (let i = 0; i < 2000; i++) {
      const s = performance.now();
      await countForKey(sql, hash, new Date(t0 + i * 1000));
      direct.push(performance.now() - s);
    }

    for (const m of modes) await m.daemon!.stop();
    const logged = new Map<string, number>();
    for (const m of modes) {
      const [row] = await sql<{ n: number }[]>`select count(*)::int as n from request_log where user_id in ${sql(m.userIds)}`;
      logged.set(m.name, row?.n ?? 0);
    }

    const base = modes[0]!;
    const rows = modes.map((m) => {
      const rps = (m.conc.length / m.concWallMs) * 1000;
      return {
        mode: m.name,
        rps: Math.round(rps),
        seq_p50: round(pct(m.seq, 50), 3),
        seq_p99: round(pct(m.seq, 99), 3),
        conc_p50: round(pct(m.conc, 50), 3),
        conc_p99: round(pct(m.conc, 99), 3),
        added_seq_p50: round(median(paired.get(m)!), 3),
        added_conc_p50: round(pct(m.conc, 50) - pct(base.conc, 50), 3),
        // Median over rounds of this mode's burst throughput relative to the "off" burst of the same round.
        rps_vs_off_pct: round((median(m.burstRps.map((x, i) => x / base.burstRps[i]!)) - 1) * 100, 1),
        cpu_ms_per_req: round(m.cpuMs / m.conc.length, 3),
        added_cpu_ms: round(m.cpuMs / m.conc.length - base.cpuMs / base.conc.length, 3),
        daemon_cpu_ms_per_req: round(m.daemonCpuMs / m.conc.length, 3),
        db_cpu_ms_per_req: round((m.cpuMs - m.daemonCpuMs) / m.conc.length, 3),
        refused: m.refused,
        errors: m.errors,
        answered: m.answered,
        logged: m.metering ? logged.get(m.name) : null,
      };
    });
    const addedSeq = median(paired.get(modes[3]!)!);
    const addedConc = pct(modes[3]!.conc, 50) - pct(base.conc, 50);
    printTable(
      `Rate limiting + metering cost: GET /api/v1/collections/ (${machineInfo().cpus} CPUs; sequential and at concurrency ${CONCURRENCY})`,
      [
        'mode',
        'req/s',
        'vs off %',
        'CPU ms/req',
        '+CPU ms',
        'daemon CPU',
        'db CPU',
        'p50 seq ms',
        'p99 seq ms',
        '+ms seq (paired p50)',
        'p50 load ms',
        'p99 load ms',
        '+p50 load',
        '429s',
        'errors',
        'answered',
        'logged',
      ],
      rows.map((r) => [
        r.mode,
        r.rps,
        r.rps_vs_off_pct,
        r.cpu_ms_per_req,
        r.added_cpu_ms,
        r.daemon_cpu_ms_per_req,
        r.db_cpu_ms_per_req,
        r.seq_p50,
        r.seq_p99,
        r.added_seq_p50,
        r.conc_p50,
        r.conc_p99,
        r.added_conc_p50,
        r.refused,
        r.errors,
        r.answered,
        r.logged,
      ]),
    );
    const d = percentiles(direct.map((x) => x * 1000));
    process.stdout.write(
      `\nGuard statement alone (key lookup + upsert, from the bench process): p50 ${round(d.p50 / 1000, 3)} ms, p99 ${round(d.p99 / 1000, 3)} ms\n` +
        // The targets: under load, limits + metering add < 0.5 ms at p50 and cost ≤ 10 % of throughput.
        `Added latency of limits + metering at p50: ${round(addedSeq, 3)} ms sequential, ${round(addedConc, 3)} ms under load (target under load < 0.5 ms): ${addedConc < 0.5 ? 'met' : 'NOT met'}\n` +
        `Added CPU per request (daemon + PostgreSQL): ${rows[3]!.added_cpu_ms} ms with both, ${rows[1]!.added_cpu_ms} ms limits only, ${rows[2]!.added_cpu_ms} ms metering only\n` +
        `Throughput at concurrency ${CONCURRENCY}: ${rows[0]!.rps} req/s off, ${rows[3]!.rps} req/s with both (paired median ${rows[3]!.rps_vs_off_pct} %; target ≥ -10 %: ${Number(rows[3]!.rps_vs_off_pct) >= -10 ? 'met' : 'NOT met'})\n` +
        `Load average during the run: ${loadBefore.join(' ')} → ${os
          .loadavg()
          .map((x) => round(x, 2))
          .join(' ')} (figures on a busy machine include scheduling delays of the extra database round trip)\n`,
    );
    const lost = rows.filter((r) => r.logged !== null && r.logged !== r.answered);
    if (lost.length)
      process.stdout.write(
        `WARNING: request log rows differ from answered requests: ${lost.map((r) => `${r.mode} ${r.logged}/${r.answered}`).join(', ')}\n`,
      );
    const file = writeResults('limits', {
      machine: machineInfo(),
      settings: { SEQ, BURSTS, BURST, CONCURRENCY, WARMUP, USERS_PER_MODE },
      rows,
      limiter_statement_us: d,
      added_p50_ms: { sequential: addedSeq, load: addedConc },
    });
    process.stdout.write(`\nresults: ${path.relative(process.cwd(), file)}\n`);
  } finally {
    for (const m of modes) await m.daemon?.stop().catch(() => {});
    await sql.end();
    await db.drop();
    await tmp.remove();
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
