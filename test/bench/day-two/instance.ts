// A docsift instance for the day-two benchmark: a database, a DATA_DIR and a real `serve` process,
// with a user key made by the real admin command, and the SciFact helpers it loads and queries with.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { withDatabase } from '../../helpers/pg.js';
import { benchAdminUrl, benchDatabase, benchTempDir, type DaemonProcess, startDaemonProcess } from '../lib/env.js';
import { type AdminRun, runAdmin } from '../lib/admin-cli.js';
import { apiClient, type ApiCall, expectStatus } from '../lib/http.js';
import { beirIdFromTags, beirTag, type CorpusDoc, type TestQuery } from '../quality/dataset.js';

export const SECRET = 'bench-daytwo-signing-secret-0123456789abcdef';

export interface Instance {
  databaseUrl: string;
  dataDir: string;
  env: Record<string, string>;
  serve?: DaemonProcess;
  api?: ApiCall;
  sql: postgres.Sql;
  /** Stops the daemon, drops the database, removes DATA_DIR. */
  wipe(): Promise<void>;
}

/** A fresh instance: migrated (`migrated`) or empty (a restore target). */
export async function newInstance(label: string, embedEnv: Record<string, string>, migrated = true): Promise<Instance> {
  let url: string;
  let drop: () => Promise<void>;
  if (migrated) {
    const db = await benchDatabase(label);
    url = db.url;
    drop = db.drop;
  } else {
    const admin = postgres(await benchAdminUrl(), { max: 1, onnotice: () => {} });
    const name = `bench_${label}_p${process.pid.toString(36)}_${Date.now().toString(36)}`;
    await admin.unsafe(`create database "${name}"`);
    await admin.end();
    url = withDatabase(await benchAdminUrl(), name);
    drop = async () => {
      const a = postgres(await benchAdminUrl(), { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists "${name}" with (force)`);
      await a.end();
    };
  }
  const dir = await benchTempDir(`daytwo-${label}`);
  const env = {
    DATABASE_URL: url,
    DATA_DIR: dir.dir,
    SIGNING_SECRET: SECRET,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'warn',
    RATE_LIMITS_ENABLED: 'false',
    METERING_ENABLED: 'false',
    ...embedEnv,
  };
  const inst: Instance = {
    databaseUrl: url,
    dataDir: dir.dir,
    env,
    sql: postgres(url, { max: 2, onnotice: () => {} }),
    async wipe() {
      await inst.serve?.stop();
      await inst.sql.end();
      await drop();
      await dir.remove();
    },
  };
  return inst;
}

export async function startServe(inst: Instance): Promise<void> {
  inst.serve = await startDaemonProcess({
    env: inst.env,
    args: ['serve'],
    logFile: path.join(inst.dataDir, 'daemon.log'),
    readyTimeoutMs: 180_000,
  });
}

/** `docsift-daemon admin <args> --json` with the instance's settings: its exit code, JSON result and wall time. */
export function admin(inst: Instance, args: string[]): Promise<AdminRun> {
  return runAdmin(inst.env, args);
}

export async function userKey(inst: Instance, email: string): Promise<string> {
  const r = await admin(inst, ['create-user', '--email', email, '--new-org', 'Day two benchmark']);
  if (r.code !== 0) throw new Error(`create-user failed: ${r.stderr}`);
  inst.api = apiClient(inst.serve!.url!, r.result.key);
  return r.result.key;
}

/** Uploads each document as a .txt file with its BEIR id as a tag and in its metadata. */
export async function uploadFiles(api: ApiCall, collection: string, docs: CorpusDoc[], concurrency = 8): Promise<number> {
  const started = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < docs.length) {
      const d = docs[next++]!;
      const form = new FormData();
      form.append('file', new Blob([`${d.title}\n\n${d.text}`]), `${d.id}.txt`);
      form.append('title', d.title.trim() || `SciFact ${d.id}`);
      form.append('tags', beirTag(d.id));
      form.append('metadata', JSON.stringify({ beir_id: d.id, words: d.text.split(/\s+/).length }));
      expectStatus(await api('POST', `/api/v1/collections/${collection}/documents/`, { body: form }), 201, `upload ${d.id}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return performance.now() - started;
}

export type TopTens = Record<string, string[]>;

/** Top 10 BEIR ids of each query over `collection`, per mode. */
export async function topTens(api: ApiCall, collection: string, queries: TestQuery[]): Promise<TopTens> {
  const out: TopTens = {};
  for (const mode of ['text', 'vector', 'hybrid'] as const)
    for (const q of queries) {
      const r = expectStatus(
        await api<{ results: { tags: string[] }[] }>('POST', '/api/v1/search/', {
          json: { query: q.text, collections: [collection], limit: 10, mode },
        }),
        200,
        `search ${q.id}`,
      );
      out[`${mode}:${q.id}`] = r.body.results.map((x) => beirIdFromTags(x.tags) ?? '?');
    }
  return out;
}

/**
 * The exact top 10 documents of each query by cosine distance of their best chunk, with the vector
 * index bypassed: equal before and after means the stored vectors are equal, whatever the HNSW graph
 * (pg_restore builds it anew, an import in another order) makes of them.
 */
export async function exactTopTens(
  inst: Instance,
  embed: (text: string) => Promise<number[]>,
  collection: string,
  queries: TestQuery[],
): Promise<TopTens> {
  const out: TopTens = {};
  for (const q of queries) {
    const vec = await embed(q.text);
    const rows = await inst.sql.begin(async (tx) => {
      await tx`set local enable_indexscan = off`;
      await tx`set local enable_bitmapscan = off`;
      return tx<{ id: string }[]>`
        select d.metadata->>'beir_id' as id, min(c.embedding <=> ${`[${vec.join(',')}]`}::halfvec) as dist
          from chunks c join documents d on d.id = c.document_id
         where c.collection_id = ${collection} and d.deleted_at is null
         group by 1 order by 2, 1 limit 10`;
    });
    out[`exact:${q.id}`] = rows.map((x) => x.id);
  }
  return out;
}

/** Mean share of the exact top 10 that `found` (a mode's results) holds: the index's recall@10. */
export function recallAt10(found: TopTens, exact: TopTens, mode: string): number {
  const keys = Object.keys(exact).filter((k) => k.startsWith('exact:'));
  const sum = keys.reduce((acc, k) => {
    const want = new Set(exact[k]);
    const got = new Set(found[`${mode}:${k.slice('exact:'.length)}`] ?? []);
    return acc + [...want].filter((x) => got.has(x)).length / Math.max(1, want.size);
  }, 0);
  return Math.round((sum / Math.max(1, keys.length)) * 1000) / 1000;
}

/** Per mode: queries whose top 10 are identical in both (order included), and those with the same ten in another order. */
export function sameTopTens(a: TopTens, b: TopTens): Record<string, string> {
  const out: Record<string, string> = {};
  const sorted = (x: string[] | undefined) => JSON.stringify([...(x ?? [])].sort());
  for (const mode of ['text', 'vector', 'hybrid', 'exact']) {
    const keys = Object.keys(a).filter((k) => k.startsWith(`${mode}:`));
    if (!keys.length) continue;
    const same = keys.filter((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]));
    const reordered = keys.filter((k) => !same.includes(k) && sorted(a[k]) === sorted(b[k]));
    const changed = keys.filter((k) => !same.includes(k) && !reordered.includes(k));
    out[mode] =
      `${same.length}/${keys.length} identical${reordered.length ? `, ${reordered.length} reordered` : ''}${changed.length ? `, differ: ${changed.join(' ')}` : ''}`;
  }
  return out;
}

/** Stored files whose SHA-256 is not the one recorded at upload (local store under DATA_DIR/blobs). */
export async function blobMismatches(inst: Instance): Promise<{ checked: number; mismatched: number }> {
  const rows = await inst.sql<{ blob_key: string; content_sha256: string }[]>`
    select blob_key, content_sha256 from documents where blob_key is not null and blob_purged_at is null`;
  let mismatched = 0;
  for (const r of rows) {
    const bytes = await readFile(path.join(inst.dataDir, 'blobs', r.blob_key)).catch(() => undefined);
    if (!bytes || createHash('sha256').update(bytes).digest('hex') !== r.content_sha256) mismatched++;
  }
  return { checked: rows.length, mismatched };
}
