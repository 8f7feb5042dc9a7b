// What a PostgreSQL cluster did over a benchmark's window: CPU by process kind (/proc), WAL written
// and checkpoints (pg_stat_wal, pg_stat_bgwriter). Cluster-wide, like the CPU figure it splits.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { Sql } from '../../../daemon/src/db/client.js';
import { pgCpuByKindMs, round } from './metrics.js';

/** Local TCP ports of a process's sockets (/proc/net/tcp* by socket inode). */
function localPorts(pid: number): Set<number> {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      const m = /^socket:\[(\d+)\]$/.exec(safe(() => readlinkSync(`/proc/${pid}/fd/${fd}`)) ?? '');
      if (m) inodes.add(m[1]!);
    }
  } catch {
    /* process gone */
  }
  const ports = new Set<number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6'])
    for (const line of (safe(() => readFileSync(file, 'utf8')) ?? '').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length > 9 && inodes.has(f[9]!)) ports.add(parseInt(f[1]!.split(':')[1]!, 16));
    }
  return ports;
}

function safe<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

function backendCpuMs(pid: number): number {
  const stat = safe(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
  if (!stat) return 0;
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

export interface PgActivity {
  /** CPU seconds by process kind: client backends, checkpointer, walwriter, bgwriter, autovacuum, other, reaped (exited backends and autovacuum workers) */
  cpu_s: Record<string, number>;
  wal_mb: number;
  wal_records: number;
  /** full-page images: the first change of a page after each checkpoint writes the whole 8 KB page */
  wal_fpi: number;
  checkpoints: number;
  /**
   * CPU seconds of the client backends serving each named process (its connections' client ports),
   * counted for backends alive at the end of the window: a daemon's pool keeps its connections.
   */
  backends_by_client_s: Record<string, number>;
}

interface Snapshot {
  cpu: Record<string, number>;
  backends: Map<number, number>;
  wal: { bytes: number; records: number; fpi: number; checkpoints: number };
}

async function snapshot(sql: Sql, postmasterPid: number): Promise<Snapshot> {
  const [w] = await sql<{ bytes: number; records: number; fpi: number; checkpoints: number }[]>`
    select wal_bytes::float8 as bytes, wal_records::float8 as records, wal_fpi::float8 as fpi,
           (select (checkpoints_timed + checkpoints_req)::float8 from pg_stat_bgwriter) as checkpoints
      from pg_stat_wal`;
  const pids = await sql<{ pid: number }[]>`select pid from pg_stat_activity where backend_type = 'client backend'`;
  return { cpu: pgCpuByKindMs(postmasterPid), wal: w!, backends: new Map(pids.map((r) => [r.pid, backendCpuMs(r.pid)])) };
}

/** Starts a window; `stop()` returns what the cluster did since; `clients` name the processes whose backends are told apart. */
export async function startPgActivity(
  sql: Sql,
  postmasterPid: number,
  clients: Record<string, number> = {},
): Promise<{ stop(): Promise<PgActivity> }> {
  const a = await snapshot(sql, postmasterPid);
  return {
    async stop() {
      const b = await snapshot(sql, postmasterPid);
      const owners = await sql<{ pid: number; port: number | null }[]>`
        select pid, client_port as port from pg_stat_activity where backend_type = 'client backend'`;
      const ports = Object.entries(clients).map(([name, pid]) => [name, localPorts(pid)] as const);
      const backends_by_client_s: Record<string, number> = Object.fromEntries([...Object.keys(clients), 'other'].map((k) => [k, 0]));
      for (const o of owners) {
        const name = ports.find(([, set]) => o.port !== null && set.has(o.port))?.[0] ?? 'other';
        backends_by_client_s[name]! += ((b.backends.get(o.pid) ?? 0) - (a.backends.get(o.pid) ?? 0)) / 1000;
      }
      for (const k of Object.keys(backends_by_client_s)) backends_by_client_s[k] = round(backends_by_client_s[k]!, 2);
      const cpu_s = Object.fromEntries(Object.keys(b.cpu).map((k) => [k, round(((b.cpu[k] ?? 0) - (a.cpu[k] ?? 0)) / 1000, 2)]));
      return {
        cpu_s,
        wal_mb: round((b.wal.bytes - a.wal.bytes) / 2 ** 20, 1),
        wal_records: b.wal.records - a.wal.records,
        wal_fpi: b.wal.fpi - a.wal.fpi,
        checkpoints: b.wal.checkpoints - a.wal.checkpoints,
        backends_by_client_s,
      };
    },
  };
}
