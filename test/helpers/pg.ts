import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

/** The migrated template database, named by scripts/test.ts after a hash of the migrations. */
export function templateDb(): string {
  const name = process.env.DOCSIFT_TEST_TEMPLATE;
  if (!name) throw new Error('DOCSIFT_TEST_TEMPLATE is not set: run tests through `npm test` (scripts/test.ts).');
  return name;
}

/** Admin connection URL of the test cluster (its `postgres` database), set by scripts/test.ts. */
export function adminUrl(): string {
  const url = process.env.DOCSIFT_TEST_ADMIN_URL;
  if (!url) throw new Error('DOCSIFT_TEST_ADMIN_URL is not set: run tests through `npm test` (scripts/test.ts).');
  return url;
}

export function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = '/' + db;
  return u.toString();
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh database copied from the migrated template (or, with `empty`, created from scratch so a
 * daemon's own first start and migrations are exercised); each test file drops its own.
 */
export async function createTestDatabase(label = 't', opts: { empty?: boolean } = {}): Promise<TestDatabase> {
  // The owning pid is part of the name so a later run can drop databases left by a dead one.
  const name = `${label
    .replace(/[^a-z0-9_]/gi, '_')
    .toLowerCase()
    .slice(0, 30)}_p${process.pid.toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
  try {
    // The template may be briefly busy if another file is copying it; retry a few times.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.unsafe(opts.empty ? `create database "${name}"` : `create database "${name}" template "${templateDb()}"`);
        break;
      } catch (err) {
        if (attempt >= 20 || !/being accessed by other users/.test((err as Error).message)) throw err;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.end();
  }
  return {
    name,
    url: withDatabase(adminUrl(), name),
    async drop() {
      const a = postgres(adminUrl(), { max: 1, onnotice: () => {} });
      try {
        await a.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await a.end();
      }
    },
  };
}
