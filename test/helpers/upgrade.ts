// The frame of an upgrade test: a database migrated to just below one migration, where the test
// writes rows as the daemon of that time wrote them; then every migration, and a daemon on top that
// embeds with a stand-in Ollama serving the model the old rows were embedded with.
import type postgres from 'postgres';
import { toSql } from 'pgvector';
import { createSql, type Sql } from '../../daemon/src/db/client.js';
import { listMigrations, migrate } from '../../daemon/src/db/migrate.js';
import { createLogger } from '../../daemon/src/logger.js';
import { migrateWorkerSchema } from '../../daemon/src/worker/runner.js';
import { startTestDaemon, type TestDaemon } from './daemon.js';
import { fakeEmbedding, startFakeOllama, type FakeOllama } from './fake-ollama-server.js';
import { createTestDatabase, type TestDatabase } from './pg.js';

/** The embedding model of the old rows, and its dimension: the instance setting and the stand-in's. */
export const OLD_MODEL = 'nomic-embed-text';
export const OLD_DIM = 16;

export interface Upgrade {
  db: TestDatabase;
  sql: Sql;
  /** The number of the migration under test. */
  version: number;
  /** The migrations applied below it, in order. */
  applied: number[];
  /** Applies every migration left, then starts a daemon on the database (with the job worker when `worker`). */
  finish(opts?: { worker?: boolean }): Promise<TestDaemon>;
  /** Stops the daemon and the stand-in and drops the database. */
  close(): Promise<void>;
}

/** A fresh database at every migration below the one named `name`, with OLD_MODEL as its embedding model. */
export async function beforeMigration(name: string, label: string): Promise<Upgrade> {
  const version = (await listMigrations()).find((m) => m.name === name)!.version;
  const db = await createTestDatabase(label, { empty: true });
  const sql = createSql(db.url, { max: 2 });
  let ollama: FakeOllama | undefined;
  let d: TestDaemon | undefined;
  const close = async () => {
    await d?.close();
    await ollama?.close();
    await sql.end();
    await db.drop();
  };
  try {
    const applied = await migrate(sql, () => {}, { upTo: version - 1 });
    await sql`insert into instance_settings (key, value) values ('embedding_model', ${sql.json({ model: OLD_MODEL, dimension: OLD_DIM })})`;
    return {
      db,
      sql,
      version,
      applied,
      async finish(opts = {}) {
        await migrate(sql);
        await migrateWorkerSchema(db.url, createLogger('silent'));
        ollama = await startFakeOllama({ dimension: OLD_DIM });
        d = await startTestDaemon({
          db,
          worker: opts.worker,
          env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, OLLAMA_MODEL: OLD_MODEL },
        });
        return d;
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** A document's one chunk as the daemon wrote it before: embedded by OLD_MODEL, `tsv` its old parse (a fragment of `sql`). */
export async function insertOldChunk(
  sql: Sql,
  chunk: { document: string; collection: string; text: string; tsv: postgres.PendingQuery<postgres.Row[]> },
): Promise<void> {
  await sql`
    insert into chunks (document_id, collection_id, generation, chunk_index, content, token_count, embedding, embedding_model, tsv)
    values (${chunk.document}, ${chunk.collection}, 1, 0, ${chunk.text}, 12, ${toSql(fakeEmbedding(chunk.text, OLD_DIM))}::halfvec,
            ${OLD_MODEL}, ${chunk.tsv})`;
}

/** An indexed text document of one chunk (insertOldChunk); returns its id. */
export async function insertOldTextDocument(
  sql: Sql,
  doc: { collection: string; title: string; text: string; tsv: postgres.PendingQuery<postgres.Row[]> },
): Promise<string> {
  const [row] = await sql<{ id: string }[]>`
    insert into documents (collection_id, title, source_type, status, chunks_count, text_joins, indexed_at)
    values (${doc.collection}, ${doc.title}, 'text', 'indexed', 1, '{}', now()) returning id`;
  await insertOldChunk(sql, { document: row!.id, collection: doc.collection, text: doc.text, tsv: doc.tsv });
  return row!.id;
}
