// Database size per chunk, total and per relation: what a corpus costs on disk. Tables include
// their TOAST data and free-space/visibility maps; indexes are listed on their own.
import type { Tx } from '../../../daemon/src/db/client.js';
import { printTable, type Cell } from './report.js';

export interface RelationBytes {
  rel: string;
  kind: 'table' | 'index';
  bytes: number;
}

export interface DatabaseBytes {
  /** pg_database_size: everything, including the catalog and space not yet reused */
  total: number;
  relations: RelationBytes[];
}

/** Sizes of the public schema's relations of at least `minBytes` (the rest summed as "(other)"). */
export async function databaseBytes(sql: Tx, minBytes = 1 << 20): Promise<DatabaseBytes> {
  const [db] = await sql<{ b: string }[]>`select pg_database_size(current_database())::text as b`;
  const rows = await sql<{ rel: string; kind: 'table' | 'index'; b: string }[]>`
    select c.relname as rel, case when c.relkind = 'i' then 'index' else 'table' end as kind,
           (case when c.relkind = 'i' then pg_relation_size(c.oid) else pg_table_size(c.oid) end)::text as b
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind in ('r', 'i', 'm')`;
  const all = rows.map((r) => ({ rel: r.rel, kind: r.kind, bytes: Number(r.b) })).sort((a, b) => b.bytes - a.bytes);
  const big = all.filter((r) => r.bytes >= minBytes);
  const other = all.filter((r) => r.bytes < minBytes).reduce((s, r) => s + r.bytes, 0);
  return { total: Number(db!.b), relations: [...big, ...(other ? [{ rel: '(other)', kind: 'table' as const, bytes: other }] : [])] };
}

/** Bytes per chunk: the total and each relation, rounded to whole bytes. */
export function perChunk(d: DatabaseBytes, chunks: number): { total: number; relations: Record<string, number> } {
  const per = (b: number) => (chunks > 0 ? Math.round(b / chunks) : 0);
  return { total: per(d.total), relations: Object.fromEntries(d.relations.map((r) => [r.rel, per(r.bytes)])) };
}

/** One column per measured size: database bytes per chunk, total first, then every relation. */
export function printBytesPerChunk(title: string, columns: { label: string; chunks: number; bytes: DatabaseBytes }[]): void {
  const rels = new Map<string, RelationBytes['kind']>();
  for (const c of columns) for (const r of c.bytes.relations) rels.set(r.rel, r.kind);
  const cols = columns.map((c) => ({ ...c, per: perChunk(c.bytes, c.chunks) }));
  const rows: Cell[][] = [
    ['database total (pg_database_size)', '', ...cols.map((c) => c.per.total)],
    ['database total, MiB', '', ...cols.map((c) => Math.round(c.bytes.total / 2 ** 20))],
    ...[...rels].map(([rel, kind]): Cell[] => [rel, kind, ...cols.map((c) => c.per.relations[rel])]),
  ];
  printTable(title, ['relation', 'kind', ...columns.map((c) => c.label)], rows);
}
