// Database bytes per chunk of the ingested SciFact corpus: as the daemon left it, and after the
// fold the worker runs every minute plus a vacuum (autovacuum's work), which is where it settles.
import type postgres from 'postgres';
import type { Sql } from '../../../daemon/src/db/client.js';
import { foldTextIndex } from '../../../daemon/src/indexing/fold.js';
import { databaseBytes, perChunk, printBytesPerChunk } from '../lib/db-size.js';
import type { Target } from './report.js';

export async function measureSize(sql: postgres.Sql, chunks: number) {
  const before = await databaseBytes(sql as unknown as Sql);
  await foldTextIndex(sql as unknown as Sql);
  // The daemon's fold job may be rebuilding text_fresh's indexes meanwhile (REINDEX CONCURRENTLY
  // waits for this vacuum's transaction while the vacuum waits for its table): PostgreSQL cancels
  // one of the two as a deadlock; the vacuum then runs again.
  for (let attempt = 1; ; attempt++) {
    try {
      await sql`vacuum analyze`;
      break;
    } catch (err) {
      if ((err as { code?: string }).code !== '40P01' || attempt >= 3) throw err;
    }
  }
  const after = await databaseBytes(sql as unknown as Sql);
  printBytesPerChunk(`Database bytes per chunk (${chunks} chunks)`, [
    { label: 'after ingestion', chunks, bytes: before },
    { label: 'after fold + vacuum', chunks, bytes: after },
  ]);
  return { chunks, after_ingestion: perChunk(before, chunks), after_fold_and_vacuum: perChunk(after, chunks) };
}

export function sizeTarget(size: Awaited<ReturnType<typeof measureSize>>): Target {
  const b = size.after_fold_and_vacuum.total;
  return {
    name: 'database bytes per chunk ≤ 10 KiB',
    pass: b <= 10_240,
    detail: `${b} B (${size.after_ingestion.total} B before the fold)`,
  };
}
