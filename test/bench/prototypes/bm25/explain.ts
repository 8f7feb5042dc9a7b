// Prints EXPLAIN ANALYZE of the recommended text-channel query (benchmark aid).
// Usage: node --import tsx explain.ts <db> '<json collection ids>' '<query>' [budget] [k] [m]
import { connect } from './lib.js';
import { bm25MaxScore } from './maxscore-query.js';

const [
  db = 'bm25_synth',
  idsJson = '["c0000000-0000-4000-8000-000000000000"]',
  q = 'Transcription factor binding is associated with active histone marks in mouse embryonic stem cells.',
  budget = '5000',
  k = '100',
  m = '200',
] = process.argv.slice(2);
const sql = connect(db);
const opts = { q, ids: JSON.parse(idsJson) as string[], budget: Number(budget), k: Number(k), m: Number(m), n: 100 };
await bm25MaxScore(sql, opts); // warm
const rows = (await bm25MaxScore(sql, { ...opts, explain: true })) as unknown as Record<string, string>[];
for (const r of rows) console.log(r['QUERY PLAN']);
await sql.end();
