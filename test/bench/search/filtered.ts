// Filtered search (README, "Filtering"): every document of the corpus gets metadata {"bucket": 0..99} (a hash
// of its id), so {"bucket": 7} keeps about 1 % of the chunks and {"bucket": {"lt": 30}} about 30 %.
// Measured beside the unfiltered figures, at the same moment: hybrid and vector HTTP p50 at c=1;
// vector recall@10 under the 1 % filter against an exact scan of the passing chunks; and, at the
// SQL level, the alternatives for the vector channel under each filter (the daemon's choice, an
// exact scan, HNSW with iterative scan, HNSW without it).
import postgres from 'postgres';
import type { Sql } from '../../../daemon/src/db/client.js';
import { percentiles, round } from '../lib/metrics.js';
import { printTable } from '../lib/report.js';
import { runLoad, searchClient } from './load.js';
import type { FloorQuery } from './sql-floor.js';

const FILTERS = {
  none: undefined,
  '1%': { bucket: 7 },
  '30%': { bucket: { lt: 30 } },
} as const;
type FilterName = keyof typeof FILTERS;

interface Ctx {
  sql: Sql;
  url: string;
  baseUrl: string;
  key: string;
  queries: FloorQuery[];
  collectionIds: string[];
  log: (line: string) => void;
}

/** SQL of the passing documents, per filter (the same predicate the daemon compiles). */
function passing(tx: Sql, name: FilterName) {
  if (name === '1%') return tx`d.metadata @> '{"bucket": 7}'::jsonb`;
  if (name === '30%') return tx`(d.metadata ->> 'bucket')::int < 30`;
  return tx`true`;
}

type Variant = 'exact' | 'hnsw-iterative' | 'hnsw-no-iterative';

/** The vector channel's 100 nearest passing chunks by one strategy; returns chunk ids in order. */
async function variant(pool: Sql, v: Variant, name: FilterName, ids: string[], vector: number[]): Promise<string[]> {
  const dim = vector.length;
  const typed = pool.unsafe(`::halfvec(${dim})`);
  const vec = `[${vector.join(',')}]`;
  return pool.begin(async (tx) => {
    await tx`select set_config('hnsw.iterative_scan', ${v === 'hnsw-no-iterative' ? 'off' : 'relaxed_order'}, true)`;
    const order = v === 'exact' ? tx`(c.embedding${typed} <=> ${vec}${typed}) + 0` : tx`c.embedding${typed} <=> ${vec}${typed}`;
    const rows = await tx<{ id: string }[]>`
      select c.id from chunks c
       where c.collection_id = any(${ids}::uuid[]) and vector_dims(c.embedding) = ${tx.unsafe(String(dim))}
         and c.document_id in (select d.id from documents d where d.collection_id = any(${ids}::uuid[]) and ${passing(tx as never, name)})
       order by ${order}
       limit 100`;
    return rows.map((r) => r.id);
  }) as Promise<string[]>;
}

export async function benchFiltered(ctx: Ctx): Promise<Record<string, unknown>> {
  const { sql, log } = ctx;
  await sql`update documents set metadata = jsonb_build_object('bucket', abs(hashtext(id::text)) % 100) where collection_id = any(${ctx.collectionIds}::uuid[])`;
  await sql`vacuum analyze documents`;
  const [share] = await sql<{ one: number; thirty: number; total: number }[]>`
    select count(*) filter (where d.metadata @> '{"bucket": 7}')::int as one,
           count(*) filter (where (d.metadata ->> 'bucket')::int < 30)::int as thirty, count(*)::int as total
      from chunks c join documents d on d.id = c.document_id`;
  const shares = { none: 1, '1%': share!.one / share!.total, '30%': share!.thirty / share!.total };
  log(
    `  filtered scopes: 1 % filter passes ${share!.one} chunks (${(shares['1%'] * 100).toFixed(2)} %), 30 % filter ${share!.thirty} (${(shares['30%'] * 100).toFixed(1)} %) of ${share!.total}`,
  );

  const client = searchClient(ctx.baseUrl, ctx.key);
  const q = ctx.queries;
  const http: Record<string, unknown>[] = [];
  try {
    for (const name of Object.keys(FILTERS) as FilterName[]) {
      for (const mode of ['hybrid', 'vector'] as const) {
        const filter = FILTERS[name];
        const call = async (x: FloorQuery) => {
          const r = await client.post({ query: x.text, mode, limit: 5, ...(filter ? { filter } : {}) });
          return { ok: r.status === 200 && (r.body as { fallback?: unknown }).fallback === null, body: r.body };
        };
        await runLoad(q, { concurrency: 4, requests: Math.min(200, q.length) }, call);
        const r = await runLoad(q, { concurrency: 1, requests: q.length }, call);
        delete r.sample;
        http.push({ filter: name, mode, ...r });
        log(
          `  http filtered ${name.padEnd(4)} ${mode.padEnd(6)} c=1 p50 ${r.p50} ms  p99 ${r.p99} ms  ${r.throughput}/s${r.errors ? `  ${r.errors} errors` : ''}`,
        );
      }
    }

    // Recall@10 of the vector channel through HTTP under the 1 % filter, against an exact scan.
    const pool = postgres(ctx.url, {
      max: 1,
      onnotice: () => {},
      connection: { application_name: 'bench-search-filtered' },
    }) as unknown as Sql;
    const sql1: { filter: string; variant: Variant; p50: number; p99: number; recall10: number; short_lists: number }[] = [];
    let recall10 = 0;
    try {
      const rq = q.slice(0, 50);
      for (const x of rq) {
        const truth = (await variant(pool, 'exact', '1%', ctx.collectionIds, x.vector)).slice(0, 10);
        const r = await client.post({ query: x.text, mode: 'vector', limit: 10, filter: FILTERS['1%'] });
        const got = new Set((r.body as { results: { chunk_id: string }[] }).results.map((h) => h.chunk_id));
        recall10 += truth.filter((id) => got.has(id)).length / Math.max(1, truth.length);
      }
      recall10 = round(recall10 / rq.length, 3);
      log(`  vector recall@10 under the 1 % filter (HTTP vs exact, ${rq.length} queries): ${recall10}`);

      // The alternatives for the vector channel, SQL only (one connection, c=1).
      for (const name of ['1%', '30%'] as const) {
        const truths = new Map<string, string[]>();
        for (const x of rq) truths.set(x.text, (await variant(pool, 'exact', name, ctx.collectionIds, x.vector)).slice(0, 10));
        for (const v of ['exact', 'hnsw-iterative', 'hnsw-no-iterative'] as const) {
          const times: number[] = [];
          let rec = 0;
          let short = 0;
          for (const x of rq) {
            const t0 = performance.now();
            const got = await variant(pool, v, name, ctx.collectionIds, x.vector);
            times.push(performance.now() - t0);
            if (got.length < 100) short++;
            const truth = truths.get(x.text)!;
            const s = new Set(got.slice(0, 10));
            rec += truth.filter((id) => s.has(id)).length / Math.max(1, truth.length);
          }
          const p = percentiles(times);
          const row = { filter: name, variant: v, p50: p.p50, p99: p.p99, recall10: round(rec / rq.length, 3), short_lists: short };
          sql1.push(row);
          log(
            `  sql vector ${name.padEnd(4)} ${v.padEnd(18)} p50 ${p.p50} ms  p99 ${p.p99} ms  recall@10 ${row.recall10}  lists under 100: ${short}/${rq.length}`,
          );
        }
      }
    } finally {
      await pool.end({ timeout: 5 });
    }
    const find = (f: FilterName, m: string) => http.find((r) => r.filter === f && r.mode === m) as { p50: number } | undefined;
    printTable(
      'Filtered search at this size (HTTP c=1 p50, ms; the daemon chooses the vector strategy)',
      ['filter', 'chunk share', 'hybrid p50', 'vector p50', 'target hybrid (1M)'],
      (Object.keys(FILTERS) as FilterName[]).map((f) => [
        f,
        `${(shares[f] * 100).toFixed(1)} %`,
        find(f, 'hybrid')?.p50,
        find(f, 'vector')?.p50,
        f === 'none' ? '' : '≤ 40',
      ]),
    );
    printTable(
      'Vector channel under a filter: alternatives (SQL, c=1, 50 queries, 100 candidates)',
      ['filter', 'strategy', 'p50 ms', 'p99 ms', 'recall@10', 'short lists'],
      sql1.map((r) => [r.filter, r.variant, r.p50, r.p99, r.recall10, r.short_lists]),
    );
    return { shares, http, recall10_1pct: recall10, sql: sql1 };
  } finally {
    client.close();
  }
}
