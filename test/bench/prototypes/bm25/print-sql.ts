// Prints the exact SQL text of the recommended query (with $n placeholders) for the README.
// Usage: node --import tsx print-sql.ts [db=bm25_scifact] [filter]
import { connect, scifactCollection } from './lib.js';
import { bm25MaxScore } from './maxscore-query.js';

const sql = connect(process.argv[2] ?? 'bm25_scifact');
const d = await bm25MaxScore(sql, {
  q: 'x',
  ids: [scifactCollection],
  budget: 5000,
  k: 100,
  m: 200,
  n: 100,
  filter: process.argv[3],
}).describe();
console.log(d.string);
console.log('-- parameter types (oids):', JSON.stringify(d.types));
await sql.end();
