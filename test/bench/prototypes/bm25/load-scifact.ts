// Loads BEIR SciFact (5,183 docs, one chunk each) into a collection through the normal
// chunk insert path, so postings and statistics are produced by the triggers.
// Usage: node --import tsx load-scifact.ts [database]   (default bm25_scifact, recreated)
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { docUuid, loadCorpus, recreateDatabase, scifactCollection, type Sql } from './lib.js';

export async function loadScifact(sql: Sql, collectionId = scifactCollection, batch = 100): Promise<number> {
  const docs = loadCorpus();
  const t0 = performance.now();
  for (let i = 0; i < docs.length; i += batch) {
    const part = docs.slice(i, i + batch);
    await sql`
      insert into chunks (id, document_id, collection_id, chunk_index, content, tsv)
      select id, doc, ${collectionId}::uuid, 0, body, to_tsvector('english', title || E'\n' || body)
      from unnest(${part.map((d) => docUuid(d.id))}::uuid[], ${part.map(() => randomUUID())}::uuid[],
                  ${part.map((d) => d.title)}::text[], ${part.map((d) => d.text)}::text[])
        as t(id, doc, title, body)`;
  }
  return performance.now() - t0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const db = process.argv[2] ?? 'bm25_scifact';
  const sql = await recreateDatabase(db);
  const ms = await loadScifact(sql);
  await sql`select fold_text_stats()`;
  await sql`vacuum analyze`;
  const [c] = await sql<{ n: number; p: number }[]>`
    select (select count(*) from chunks)::int as n, (select count(*) from chunk_postings)::int as p`;
  console.log(`loaded ${c?.n} chunks, ${c?.p} postings in ${(ms / 1000).toFixed(1)} s`);
  await sql.end();
}
