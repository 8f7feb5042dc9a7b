// Result identity between checkouts on a database kept by `npm run bench:search -- --keep`: every
// SciFact test query in hybrid and text mode (limit 50, explain, so each channel's rank and score
// shows) over all collections, the big one and the smallest, through each checkout's daemon; the
// responses of the first checkout and every other are compared whole.
//
//   node --import tsx test/bench/search/identity.ts --url postgres://…/keep_search100k --daemon-root ../base,.
import { isDeepStrictEqual } from 'node:util';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { issueKey } from '../../../daemon/src/auth/issue-key.js';
import { createSql } from '../../../daemon/src/db/client.js';
import { benchTempDir, runMain } from '../lib/env.js';
import { startSearchDaemon } from './daemon.js';
import { startEmbedStandIn } from './embed-server.js';
import { runLoad, searchClient } from './load.js';
import { testQueries } from './queries.js';
import { BENCH_MODEL, createMixture } from './vectors.js';

const { values: a } = parseArgs({
  options: {
    url: { type: 'string' },
    'daemon-root': { type: 'string', default: '.' },
    queries: { type: 'string', default: '300' },
  },
});

async function main(): Promise<void> {
  if (!a.url) throw new Error('--url: the kept database');
  const sql = createSql(a.url, { max: 2 });
  const tmp = await benchTempDir('search-identity');
  const standIn = await startEmbedStandIn(createMixture(), BENCH_MODEL);
  try {
    const colls = await sql<{ slug: string; owner_id: string }[]>`
      select c.slug, c.owner_id from collections c join collection_text_stats s on s.collection_id = c.id
       where c.slug like 'bench-%' order by s.n_chunks desc`;
    const { key } = await issueKey(sql, { userId: colls[0]!.owner_id, name: 'identity', isFullAccess: true, tier: 'pro', now: new Date() });
    const scopes = [undefined, colls[0]!.slug, colls.at(-1)!.slug];
    const bodies = testQueries()
      .slice(0, Number(a.queries))
      .flatMap((query) => scopes.flatMap((collection) => ['hybrid', 'text'].map((mode) => ({ query, mode, collection }))))
      .map((b) => ({ ...b, limit: 50, explain: true }));
    const answers: unknown[][] = [];
    for (const [i, root] of a['daemon-root'].split(',').entries()) {
      const daemon = await startSearchDaemon({
        databaseUrl: a.url,
        dataDir: tmp.dir,
        provider: { kind: 'ollama', host: standIn.url, model: BENCH_MODEL },
        label: `identity-${i}`,
        cwd: path.resolve(root),
      });
      const client = searchClient(daemon.url!, key);
      try {
        const got: unknown[] = new Array(bodies.length);
        const r = await runLoad([...bodies.keys()], { concurrency: 4, requests: bodies.length }, async (at) => {
          const res = await client.post(bodies[at]!);
          got[at] = { status: res.status, body: res.body };
          return { ok: res.status === 200, body: res.body };
        });
        if (r.errors) throw new Error(`${root}: ${r.errors} of ${bodies.length} searches failed`);
        answers.push(got);
      } finally {
        client.close();
        await daemon.stop();
      }
    }
    const [first, ...rest] = answers;
    // Empty answers would compare equal whatever the code: say how many results were compared.
    const results = first!.reduce<number>((n, r) => n + ((r as { body: { count?: number } }).body.count ?? 0), 0);
    process.stdout.write(`${bodies.length} searches, ${results} results in the first checkout's answers\n`);
    for (const [i, other] of rest.entries()) {
      const differ = bodies.filter((_, j) => !isDeepStrictEqual(first![j], other[j]));
      process.stdout.write(`checkout ${i + 2} against 1: ${bodies.length - differ.length} of ${bodies.length} responses identical\n`);
      for (const b of differ.slice(0, 5)) process.stdout.write(`  differs: ${JSON.stringify(b)}\n`);
    }
  } finally {
    await standIn.close();
    await sql.end({ timeout: 5 });
    await tmp.remove();
  }
}

runMain(main);
