// `npm run bench:cli`: start-up time of the installed `docsift` binary (bin/docsift.mjs → the built
// dist/main.js), hyperfine-style: each command runs BENCH_RUNS times (default 20) after 3 warm-ups,
// one at a time, and the wall time of each whole process is recorded. Beside each figure: the floor
// `node -e 0` (Node's own start on this machine) and the targets (--version ≤ 150 ms,
// whoami ≤ 400 ms, against a real daemon on loopback). Build first: `npm run build -w @docsift/cli`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSql } from '../../daemon/src/db/client.js';
import { createUserWithKey } from '../../daemon/src/accounts/create.js';
import { benchDatabase, benchTempDir, repoRoot, runMain, startDaemonProcess } from './lib/env.js';
import { codeVersion, machineInfo, printTable, writeResults } from './lib/report.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const BIN = path.join(repoRoot, 'cli/bin/docsift.mjs');

// GNU time, where present, adds the CPU time (user + system) of each run: on a loaded machine it
// moves far less than the wall time, which includes waiting for a core.
const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

function timeRuns(args: string[], env: NodeJS.ProcessEnv): { wall: number[]; cpu: number[] } {
  const once = () => {
    const t0 = performance.now();
    const r = GNU_TIME
      ? spawnSync(GNU_TIME, ['-f', '__cpu %U %S', process.execPath, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawnSync(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    const cpu = /__cpu ([\d.]+) ([\d.]+)/.exec(String(r.stderr));
    return { ms, cpuMs: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : Number.NaN };
  };
  for (let i = 0; i < 3; i++) once();
  const runs = Array.from({ length: RUNS }, once);
  return { wall: runs.map((r) => r.ms), cpu: runs.map((r) => r.cpuMs) };
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  return { min: Math.round(s[0]!), median: Math.round(q(0.5)), p90: Math.round(q(0.9)) };
};

async function main(): Promise<void> {
  if (!existsSync(path.join(repoRoot, 'cli/dist/main.js'))) throw new Error('cli/dist/main.js is missing: npm run build -w @docsift/cli');
  const db = await benchDatabase('cli_start');
  const tmp = await benchTempDir('cli-start');
  const sql = createSql(db.url, { max: 2 });
  const daemon = await startDaemonProcess({
    env: { DATABASE_URL: db.url, DATA_DIR: tmp.dir, PORT: '0', LOG_LEVEL: 'warn', RATE_LIMITS_ENABLED: 'false' },
    args: ['serve', '--api-only'],
    logFile: path.join(tmp.dir, 'daemon.log'),
  });
  try {
    const { key } = await createUserWithKey(sql, { email: 'cli@bench.test', newOrganization: 'cli bench', now: new Date() });
    const env = {
      PATH: process.env.PATH,
      HOME: os.homedir(),
      DOCSIFT_CONFIG_DIR: mkdtempSync(path.join(tmp.dir, 'config-')),
      DOCSIFT_URL: daemon.url,
      DOCSIFT_API_KEY: key,
    };
    const rows = [
      ['node -e 0 (floor)', ['-e', '0'], undefined],
      ['docsift --version', [BIN, '--version'], 150],
      ['docsift whoami', [BIN, 'whoami'], 400],
      ['docsift whoami --json', [BIN, 'whoami', '--json'], 400],
    ] as const;
    const results = rows.map(([label, args, target]) => {
      const { wall, cpu } = timeRuns([...args], env);
      return { label, target, ...stats(wall), cpu_median: stats(cpu).median };
    });
    printTable(
      `docsift CLI start-up, ${RUNS} runs each (wall time of the whole process, ms; CPU = user + system)`,
      ['command', 'min', 'median', 'p90', 'CPU median', 'target'],
      results.map((r) => [
        r.label,
        r.min,
        r.median,
        r.p90,
        Number.isNaN(r.cpu_median) ? '–' : r.cpu_median,
        r.target ? `≤ ${r.target}` : '',
      ]),
    );
    process.stdout.write(
      `\nload average ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')} on ${os.cpus().length} CPUs: figures on a shared machine are noisy.\n`,
    );
    const file = writeResults('cli-start', { machine: machineInfo(), code: codeVersion(), runs: RUNS, results });
    process.stdout.write(`results: ${path.relative(repoRoot, file)}\n`);
  } finally {
    await sql.end();
    await daemon.stop();
    await db.drop();
    await tmp.remove();
  }
}

runMain(main);
