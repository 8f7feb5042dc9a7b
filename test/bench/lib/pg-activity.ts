// What a PostgreSQL cluster did over a benchmark's window: CPU by process kind (/proc), WAL written
// and checkpoints (pg_stat_wal, pg_stat_bgwriter). Cluster-wide, like the CPU figure it splits.
import type { Sql } from '../../../daemon/src/db/client.js';
import { pgCpuByKindMs, round } from './metrics.js';

export interface PgActivity {
  /** CPU seconds by process kind: client backends, checkpointer, walwriter, bgwriter, autovacuum, other, reaped (exited backends and autovacuum workers) */
  cpu_s: Record<string, number>;
  wal_mb: number;
  wal_records: number;
  /** full-page images: the first change of a page after each checkpoint writes the whole 8 KB page */
  wal_fpi: number;
  checkpoints: number;
}

interface Snapshot {
  cpu: Record<string, number>;
  wal: { bytes: number; records: number; fpi: number; checkpoints: number };
}

async function snapshot(sql: Sql, postmasterPid: number): Promise<Snapshot> {
  const [w] = await sql<{ bytes: number; records: number; fpi: number; checkpoints: number }[]>`
    select wal_bytes::float8 as bytes, wal_records::float8 as records, wal_fpi::float8 as fpi,
           (select (checkpoints_timed + checkpoints_req)::float8 from pg_stat_bgwriter) as checkpoints
      from pg_stat_wal`;
  return { cpu: pgCpuByKindMs(postmasterPid), wal: w! };
}

/** Starts a window; `stop()` returns what the cluster did since. */
export async function startPgActivity(sql: Sql, postmasterPid: number): Promise<{ stop(): Promise<PgActivity> }> {
  const a = await snapshot(sql, postmasterPid);
  return {
    async stop() {
      const b = await snapshot(sql, postmasterPid);
      const cpu_s = Object.fromEntries(Object.keys(b.cpu).map((k) => [k, round(((b.cpu[k] ?? 0) - (a.cpu[k] ?? 0)) / 1000, 2)]));
      return {
        cpu_s,
        wal_mb: round((b.wal.bytes - a.wal.bytes) / 2 ** 20, 1),
        wal_records: b.wal.records - a.wal.records,
        wal_fpi: b.wal.fpi - a.wal.fpi,
        checkpoints: b.wal.checkpoints - a.wal.checkpoints,
      };
    },
  };
}
