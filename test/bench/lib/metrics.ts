// Measurements shared by benchmarks: process memory from /proc and latency percentiles.
import { readdirSync, readFileSync } from 'node:fs';

function statusField(pid: number, field: string): number | undefined {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined; // process gone
  }
}

/** Peak resident set size (VmHWM) of a live process in MB, or undefined once it has exited. */
export function peakRssMb(pid: number): number | undefined {
  return statusField(pid, 'VmHWM');
}

/** Current resident set size (VmRSS) in MB. */
export function rssMb(pid: number): number | undefined {
  return statusField(pid, 'VmRSS');
}

export interface RssTrace {
  /** MB at the first sample */
  first: number | undefined;
  /** MB at the last sample */
  last: number | undefined;
  /** highest VmHWM seen (covers spikes between samples) */
  peak: number | undefined;
  samples: { t: number; mb: number }[];
}

/**
 * Samples a process's RSS every intervalMs, so growth over a run can be told apart from a one-off
 * spike. stop() takes a last sample and returns the trace; read it before the process exits.
 */
export function sampleRss(pid: number, intervalMs = 1000): { stop(): RssTrace } {
  const started = Date.now();
  const samples: { t: number; mb: number }[] = [];
  let peak: number | undefined;
  const take = () => {
    const mb = rssMb(pid);
    if (mb !== undefined) samples.push({ t: Date.now() - started, mb: round(mb) });
    const hwm = peakRssMb(pid);
    if (hwm !== undefined) peak = Math.max(peak ?? 0, hwm);
  };
  take();
  const timer = setInterval(take, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      take();
      return { first: samples[0]?.mb, last: samples.at(-1)?.mb, peak: peak === undefined ? undefined : round(peak), samples };
    },
  };
}

export interface Percentiles {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentiles of a list of values (e.g. latencies in ms); zeros when empty. */
export function percentiles(values: number[]): Percentiles {
  if (!values.length) return { n: 0, p50: 0, p95: 0, p99: 0, max: 0, mean: 0 };
  const s = [...values].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  return { n: s.length, p50: round(at(50)), p95: round(at(95)), p99: round(at(99)), max: round(s.at(-1)!), mean: round(mean) };
}

export function round(x: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** utime, stime, cutime and cstime of one process in ms (cutime/cstime: its children already reaped). */
function procCpuMs(pid: number): { self: number; reaped: number; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Clock ticks are 100/s on every usual Linux kernel.
    return { self: (Number(f[11]) + Number(f[12])) * 10, reaped: (Number(f[13]) + Number(f[14])) * 10, ppid: Number(f[1]) };
  } catch {
    return undefined;
  }
}

/**
 * CPU in ms used so far by a process tree: the process, its children that exited (reaped) and
 * those alive. For the PostgreSQL postmaster this is the whole cluster: every backend, including
 * the ones that have exited, and the background workers.
 */
export function treeCpuMs(rootPid: number): number {
  const root = procCpuMs(rootPid);
  if (!root) return 0;
  let total = root.self + root.reaped;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const p = procCpuMs(Number(entry));
    if (p && p.ppid === rootPid) total += p.self + p.reaped;
  }
  return total;
}

/**
 * CPU in ms of a PostgreSQL cluster's processes by kind, from their titles (`postgres: checkpointer`,
 * `postgres: walwriter`, `postgres: autovacuum worker`, …; a client backend's title names its user
 * and database). `reaped` is what exited backends used (the postmaster's cutime/cstime).
 */
export function pgCpuByKindMs(postmasterPid: number): Record<string, number> {
  const out: Record<string, number> = { backends: 0, checkpointer: 0, walwriter: 0, bgwriter: 0, autovacuum: 0, other: 0, reaped: 0 };
  const root = procCpuMs(postmasterPid);
  if (!root) return out;
  out.other! += root.self;
  out.reaped = root.reaped;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const p = procCpuMs(Number(entry));
    if (!p || p.ppid !== postmasterPid) continue;
    let title = '';
    try {
      title = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
    } catch {
      continue;
    }
    const kind = /checkpointer/.test(title)
      ? 'checkpointer'
      : /walwriter/.test(title)
        ? 'walwriter'
        : /background writer/.test(title)
          ? 'bgwriter'
          : /autovacuum/.test(title)
            ? 'autovacuum'
            : /^postgres: \S+ \S+ /.test(title) && !/launcher|logger|archiver|stats/.test(title)
              ? 'backends'
              : 'other';
    out[kind]! += p.self + p.reaped;
  }
  return out;
}
