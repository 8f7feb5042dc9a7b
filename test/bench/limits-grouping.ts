// `node --import tsx test/bench/limits-grouping.ts`: what the rate limiter's counting costs at a
// fixed concurrency: the key lookup alone (what the guard does with limits off, the baseline), one
// statement per request (limits/limiter.ts countForKey) and permit leases (limits/permit-leases.ts,
// what the guard uses, with countForKey near the limit). All run in this process on one pool, rounds interleaved and their order rotated, so a busy
// machine slows them alike; the figure is CPU per request (this process + its PostgreSQL
// backends), which hardly depends on the load, beside the throughput.
//
// Knobs: BENCH_ROUNDS (per mode, default 12), BENCH_ROUND (requests per round, 400), BENCH_CONCURRENCY (8).
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { createUserWithKey } from '../../daemon/src/accounts/create.js';
import { findKeyByHash, hashApiKey } from '../../daemon/src/auth/keys.js';
import { createSql } from '../../daemon/src/db/client.js';
import { countForKey } from '../../daemon/src/limits/limiter.js';
import { PermitLeases } from '../../daemon/src/limits/permit-leases.js';
import { benchDatabase } from './lib/env.js';
import { round } from './lib/metrics.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const ROUND = Number(process.env.BENCH_ROUND ?? 400);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
// Pro users (300 a minute), enough that no request is refused.
const USERS = Math.ceil(((ROUNDS + 2) * ROUND * 3) / 250);

/** CPU time of a process in ms (utime + stime from /proc, 10 ms ticks); 0 once it is gone. */
function cpuOf(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}

async function main(): Promise<void> {
  const db = await benchDatabase('limits_grouping');
  const sql = createSql(db.url, { max: 10 });
  const monitor = createSql(db.url, { max: 1 });
  try {
    const hashes: Buffer[] = [];
    for (let i = 0; i < USERS; i++) {
      const u = await createUserWithKey(sql, { email: `g${i}@example.test`, newOrganization: `g${i}`, tier: 'pro', now: new Date() });
      hashes.push(hashApiKey(u.key));
    }
    const leases = new PermitLeases(sql, () => new Date());
    let n = 0;
    const modes: [string, () => Promise<{ counter?: { admitted: boolean } } | undefined>][] = [
      [
        'key lookup only (limits off)',
        async () => ((await findKeyByHash(sql, hashes[n++ % USERS]!)) ? { counter: { admitted: true } } : undefined),
      ],
      ['one statement per request', () => countForKey(sql, hashes[n++ % USERS]!, new Date())],
      ['permit leases', () => leases.count(hashes[n++ % USERS]!, new Date())],
    ];
    const [me] = await monitor<{ pid: number }[]>`select pg_backend_pid() as pid`;
    const backends = async () =>
      (await monitor<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database()`)
        .map((r) => r.pid)
        .filter((p) => p !== me!.pid);
    const run = async (f: () => Promise<{ counter?: { admitted: boolean } } | undefined>, count: number) => {
      let left = count;
      let refused = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (left-- > 0) if (!(await f())?.counter?.admitted) refused++;
        }),
      );
      return refused;
    };
    for (const [, f] of modes) await run(f, ROUND);
    const acc = modes.map(() => ({ client: 0, server: 0, wall: 0, reqs: 0, refused: 0 }));
    for (let r = 0; r < ROUNDS; r++) {
      for (const i of modes.map((_, j) => (j + r) % modes.length)) {
        const pids = await backends();
        const s0 = pids.map(cpuOf);
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const refused = await run(modes[i]![1], ROUND);
        const wall = performance.now() - t0;
        const c = process.cpuUsage(c0);
        const a = acc[i]!;
        a.client += (c.user + c.system) / 1000;
        a.server += pids.reduce((x, p, j) => x + cpuOf(p) - s0[j]!, 0);
        a.wall += wall;
        a.reqs += ROUND;
        a.refused += refused;
      }
    }
    const cpu = acc.map((a) => (a.client + a.server) / a.reqs);
    process.stdout.write(`Rate limiter's counting at concurrency ${CONCURRENCY}, ${ROUNDS} rounds of ${ROUND} per mode:\n`);
    for (const [i, [name]] of modes.entries()) {
      const a = acc[i]!;
      process.stdout.write(
        `  ${name.padEnd(26)} CPU ${round(cpu[i]!, 3)} ms/req (client ${round(a.client / a.reqs, 3)}, PostgreSQL ${round(a.server / a.reqs, 3)}), ${Math.round((a.reqs / a.wall) * 1000)} req/s, refused ${a.refused}\n`,
      );
    }
    process.stdout.write(
      `Leases: ${leases.stats.fromPool} of ${leases.stats.fromPool + leases.stats.leases + leases.stats.counted} requests from held permits, ${leases.stats.leases} blocks; counting CPU over the lookup alone ${round(cpu[2]! - cpu[0]!, 3)} ms/req against ${round(cpu[1]! - cpu[0]!, 3)} one statement per request\n` +
        `Load average: ${os
          .loadavg()
          .map((x) => round(x, 2))
          .join(' ')}\n`,
    );
    await leases.close();
  } finally {
    await sql.end();
    await monitor.end();
    await db.drop();
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
