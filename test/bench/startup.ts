// `npm run bench:startup`: what the first search after "ready" costs beside the tenth (target: the
// first within 2× the tenth). A daemon (`serve`, the built-in embedding model) indexes BENCH_DOCS
// documents and stops; then, BENCH_ROUNDS times, a fresh daemon starts on that database, /readyz is
// polled until it answers 200, and ten searches (hybrid, each a different query so none comes from
// the query-embedding cache) run one after another. Reported: spawn → listening, spawn → ready, the
// first search, the tenth, and the median of the second to the tenth. With BENCH_PEER_CWD (a
// checkout, e.g. main's) the rounds also run on that checkout's daemon.
import os from 'node:os';
import path from 'node:path';
import { createUserWithKey } from '../../daemon/src/accounts/create.js';
import { createSql } from '../../daemon/src/db/client.js';
import { benchDatabase, benchTempDir, runMain, startDaemonProcess } from './lib/env.js';
import { percentiles, round } from './lib/metrics.js';
import { codeVersion, machineInfo, printTable, writeResults } from './lib/report.js';

const DOCS = Number(process.env.BENCH_DOCS ?? 40);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PEER = process.env.BENCH_PEER_CWD;
const QUERIES = [
  'harbour budget ledger',
  'legal office budget entries',
  'travel and fuel of the harbour',
  'payroll of the engineering office',
  'audit corrections',
  'human resources ledger',
  'fuel budget for the quarter',
  'harbour pilots office travel',
  'engineering payroll entries',
  'ledger audit of the legal office',
];

interface Round {
  listeningMs: number;
  readyMs: number;
  searches: number[];
}

async function startRound(dbUrl: string, dir: string, label: string, key: string, cwd?: string): Promise<Round> {
  const t0 = performance.now();
  const daemon = await startDaemonProcess({
    args: ['serve'],
    ...(cwd ? { cwd } : {}),
    logFile: path.join(dir, `daemon-${label}.log`),
    env: daemonEnv(dbUrl, dir, label),
    readyTimeoutMs: 300_000,
  });
  try {
    const listeningMs = performance.now() - t0;
    for (;;) {
      const r = await fetch(`${daemon.url}/readyz`).catch(() => undefined);
      await r?.arrayBuffer();
      if (r?.status === 200) break;
      if (performance.now() - t0 > 300_000) throw new Error(`${label}: not ready after 300 s`);
      await new Promise((res) => setTimeout(res, 20));
    }
    const readyMs = performance.now() - t0;
    const searches: number[] = [];
    for (const query of QUERIES) {
      const s = performance.now();
      const r = await fetch(`${daemon.url}/api/v1/search/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query, limit: 10 }),
      });
      const body = (await r.json()) as { count?: number; fallback?: string | null };
      if (r.status !== 200 || body.fallback) throw new Error(`${label}: search ${r.status} ${JSON.stringify(body).slice(0, 300)}`);
      if (!body.count) process.stderr.write(`[bench] ${label}: no result for "${query}"\n`);
      searches.push(performance.now() - s);
    }
    return { listeningMs, readyMs, searches };
  } finally {
    await daemon.stop();
  }
}

function daemonEnv(dbUrl: string, dir: string, label: string): Record<string, string> {
  return {
    DATABASE_URL: dbUrl,
    DATA_DIR: path.join(dir, `data-${label}`),
    PORT: '0',
    LOG_LEVEL: 'warn',
    EMBEDDING_PROVIDER: 'builtin',
    SIGNING_SECRET: 'bench-signing-secret-0123456789abcdef0123456789',
    RATE_LIMITS_ENABLED: 'false',
  };
}

/** Indexes DOCS documents with a daemon that then stops, so the measured daemons start on a settled corpus. */
async function seed(dbUrl: string, dir: string, key: string, sql: ReturnType<typeof createSql>): Promise<void> {
  const daemon = await startDaemonProcess({
    args: ['serve'],
    logFile: path.join(dir, 'daemon-seed.log'),
    env: daemonEnv(dbUrl, dir, 'seed'),
  });
  try {
    const h = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const coll = await (
      await fetch(`${daemon.url}/api/v1/collections/`, { method: 'POST', headers: h, body: JSON.stringify({ name: 'Ledgers' }) })
    ).json();
    const offices = ['legal', 'human resources', 'engineering', 'harbour pilots'];
    for (let i = 0; i < DOCS; i++) {
      const office = offices[i % offices.length];
      const content = `Ledger ${i} of the ${office} office: budget entries for quarter ${(i % 4) + 1}, travel, fuel, payroll and audit corrections of the harbour.`;
      const r = await fetch(`${daemon.url}/api/v1/collections/${coll.uuid}/documents/`, {
        method: 'POST',
        headers: h,
        body: JSON.stringify({ source_type: 'text', title: `Ledger ${i}`, content }),
      });
      if (r.status !== 201) throw new Error(`upload: ${r.status} ${await r.text()}`);
    }
    for (let waited = 0; ; waited += 500) {
      const [row] = await sql<{ pending: number }[]>`select count(*) filter (where status <> 'indexed')::int as pending from documents`;
      if (!row!.pending) break;
      if (waited > 300_000) throw new Error('documents not indexed after 300 s');
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    await daemon.stop();
  }
}

function summary(name: string, rounds: Round[]) {
  const first = rounds.map((r) => r.searches[0]!);
  const tenth = rounds.map((r) => r.searches[9]!);
  const rest = rounds.flatMap((r) => r.searches.slice(1));
  const med = (xs: number[]) => percentiles(xs).p50;
  return {
    name,
    rounds: rounds.map((r) => ({
      listening_ms: round(r.listeningMs),
      ready_ms: round(r.readyMs),
      searches_ms: r.searches.map((x) => round(x)),
    })),
    listening_ms: round(med(rounds.map((r) => r.listeningMs))),
    ready_ms: round(med(rounds.map((r) => r.readyMs))),
    first_ms: round(med(first)),
    tenth_ms: round(med(tenth)),
    second_to_tenth_p50_ms: round(med(rest)),
    first_over_tenth: round(med(first) / med(tenth)),
  };
}

async function main(): Promise<void> {
  const db = await benchDatabase('startup');
  const tmp = await benchTempDir('startup');
  const sql = createSql(db.url, { max: 2 });
  try {
    const { key } = await createUserWithKey(sql, { email: 'bench-startup@example.test', newOrganization: 'startup', now: new Date() });
    await seed(db.url, tmp.dir, key, sql);
    process.stderr.write(`[bench] ${DOCS} documents indexed\n`);
    const targets: { name: string; cwd?: string }[] = [{ name: 'this' }, ...(PEER ? [{ name: 'peer', cwd: PEER }] : [])];
    const results = [];
    for (const t of targets) {
      const rounds: Round[] = [];
      try {
        for (let i = 0; i < ROUNDS; i++) rounds.push(await startRound(db.url, tmp.dir, `${t.name}-${i}`, key, t.cwd));
      } catch (err) {
        // A peer that cannot start on this database (a newer schema) leaves this checkout's figures standing.
        if (!t.cwd) throw err;
        process.stderr.write(`[bench] ${t.name}: ${(err as Error).message}\n`);
        continue;
      }
      results.push(summary(t.name, rounds));
    }
    printTable(
      `bench:startup — ${DOCS} documents, built-in model, ${ROUNDS} fresh daemons each, medians; load ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
      ['daemon', 'spawn → listening', 'spawn → ready', 'first search', 'tenth search', '2nd–10th p50', 'first / tenth (target ≤ 2)'],
      results.map((r) => [
        r.name,
        `${r.listening_ms} ms`,
        `${r.ready_ms} ms`,
        `${r.first_ms} ms`,
        `${r.tenth_ms} ms`,
        `${r.second_to_tenth_p50_ms} ms`,
        r.first_over_tenth,
      ]),
    );
    const file = writeResults('startup', { machine: machineInfo(), code: codeVersion(), docs: DOCS, rounds: ROUNDS, results });
    process.stderr.write(`[bench] results: ${file}\n`);
  } finally {
    await sql.end();
    await db.drop();
    await tmp.remove();
  }
}

runMain(main);
