// BENCH_TIMELINE=1 for bench:ingest: where a run's wall time goes. Every interval it samples the
// machine's busy and stolen CPU (/proc/stat; steal is the hypervisor running other guests on our
// vCPUs) and the CPU of the worker, the API and the PostgreSQL cluster; with the chunks indexed per
// interval (documents.indexed_at) this shows idle cores at the start or the end of a burst, which no
// total can.
import { readFileSync } from 'node:fs';
import type { Sql } from '../../../daemon/src/db/client.js';
import { treeCpuMs } from './metrics.js';

interface Sample {
  t: number;
  busy: number;
  steal: number;
  total: number;
  procs: number[];
}

function machineTicks(): { busy: number; steal: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = (v[3] ?? 0) + (v[4] ?? 0); // idle + iowait
  const steal = v[7] ?? 0; // time the hypervisor ran something else on our vCPUs
  const total = v.slice(0, 8).reduce((s, x) => s + x, 0);
  return { busy: total - idle - steal, steal, total };
}

export interface Timeline {
  stop(): Promise<string>;
}

/** Samples from now; stop() renders a table of intervals since `origin` (ms since the epoch). */
export function startTimeline(sql: Sql, origin: number, procs: { name: string; pid: number }[], intervalMs = 250): Timeline {
  const samples: Sample[] = [];
  const take = () => samples.push({ t: Date.now(), ...machineTicks(), procs: procs.map((p) => treeCpuMs(p.pid)) });
  take();
  const timer = setInterval(take, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      take();
      const rows = await sql<{ at: Date; chunks: number }[]>`
        select indexed_at as at, chunks_count::int as chunks from documents where indexed_at is not null`;
      const lines = [
        `Timeline (BENCH_TIMELINE): per ${intervalMs} ms from the upload's start: machine busy and stolen % of all cores, CPU ms of ${procs.map((p) => p.name).join(' / ')}, documents and chunks indexed`,
        `   t s  busy %  steal %  ${procs.map((p) => p.name.padStart(8)).join(' ')}   docs  chunks`,
      ];
      for (let i = 1; i < samples.length; i++) {
        const a = samples[i - 1]!;
        const b = samples[i]!;
        const inWindow = rows.filter((r) => r.at.getTime() > a.t && r.at.getTime() <= b.t);
        const pct = (x: number) => (b.total > a.total ? (100 * x) / (b.total - a.total) : 0);
        const busy = pct(b.busy - a.busy);
        const steal = pct(b.steal - a.steal);
        lines.push(
          `${((a.t - origin) / 1000).toFixed(2).padStart(6)}  ${busy.toFixed(0).padStart(6)}  ${steal.toFixed(0).padStart(7)}  ${b.procs.map((ms, k) => String(Math.round(ms - a.procs[k]!)).padStart(8)).join(' ')}   ${String(inWindow.length).padStart(4)}  ${String(inWindow.reduce((s, r) => s + r.chunks, 0)).padStart(6)}`,
        );
      }
      return lines.join('\n');
    },
  };
}
