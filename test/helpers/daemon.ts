import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, resolvedConfig, type Config } from '../../daemon/src/config.js';
import { createLogger } from '../../daemon/src/logger.js';
import { startDaemon, type Daemon } from '../../daemon/src/server.js';
import { createUserWithKey } from '../../daemon/src/accounts/create.js';
import type { Clock } from '../../daemon/src/types.js';
import { createTestDatabase, type TestDatabase } from './pg.js';

export interface TestDaemon extends Daemon {
  db: TestDatabase;
  dataDir: string;
  config: Config;
  /** Stops the daemon, drops its database and removes its data dir. */
  close(): Promise<void>;
}

/** A real daemon listening on 127.0.0.1 with its own fresh database (copied from the migrated template). */
export async function startTestDaemon(
  opts: {
    label?: string;
    env?: Record<string, string>;
    worker?: boolean;
    api?: boolean;
    clock?: Clock /** Reuse a database (e.g. to restart on the same data); close() then leaves it alone. */;
    db?: TestDatabase;
    /** Where the daemon's JSON log lines go (set LOG_LEVEL in `env`); default stdout at TEST_LOG_LEVEL. */
    logTo?: NodeJS.WritableStream;
  } = {},
): Promise<TestDaemon> {
  const ownDb = !opts.db;
  const db = opts.db ?? (await createTestDatabase(opts.label ?? 'e2e'));
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'docsift-test-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    DATABASE_URL: db.url,
    SIGNING_SECRET: 'test-signing-secret-0123456789abcdef0123456789abcdef',
    DB_POOL_MAX: '5',
    // Test users are on the Free tier (10 requests/minute); only the rate-limit tests turn limits on.
    RATE_LIMITS_ENABLED: 'false',
    // The built-in model loads on first use instead (most tests never search); search.warm-up tests it.
    SEARCH_WARM_UP: 'false',
    ...opts.env,
  });
  const logger = createLogger(config.LOG_LEVEL, opts.logTo);
  let daemon: Daemon;
  try {
    daemon = await startDaemon(resolvedConfig(config), logger, {
      api: opts.api ?? true,
      worker: opts.worker ?? false,
      migrate: false,
      ...(opts.clock ? { clock: opts.clock } : {}),
    });
  } catch (err) {
    if (ownDb) await db.drop();
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    ...daemon,
    db,
    dataDir,
    config,
    async close() {
      await daemon.stop();
      if (ownDb) await db.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Tenant {
  orgId: string;
  userId: string;
  email: string;
  /** A full-access key of the tenant's owner. */
  key: string;
}

let tenantSeq = 0;
/** An organization with an owner user holding one full-access key. */
export async function createTenant(d: Daemon, label = 'tenant'): Promise<Tenant> {
  const email = `${label}-${++tenantSeq}-${Date.now()}@example.test`;
  const r = await createUserWithKey(d.deps.sql, { email, newOrganization: `${label} org`, now: d.deps.clock.now() });
  return { orgId: r.organization.id, userId: r.user.id, email, key: r.key };
}

/** Another user in an existing organization. */
export async function createMember(d: Daemon, tenant: Tenant, label = 'member'): Promise<Tenant> {
  const email = `${label}-${++tenantSeq}-${Date.now()}@example.test`;
  const r = await createUserWithKey(d.deps.sql, { email, organization: tenant.orgId, now: d.deps.clock.now() });
  return { orgId: r.organization.id, userId: r.user.id, email, key: r.key };
}

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface RequestOptions {
  key?: string;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
  redirect?: RequestRedirect;
}

/** Minimal HTTP client for end-to-end tests: real fetch over loopback, body parsed when JSON. */
export function http(baseUrl: string) {
  return async function request<T = any>(method: string, p: string, o: RequestOptions = {}): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    let body = o.body;
    if (o.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(o.json);
    }
    const res = await fetch(baseUrl + p, { method, headers, body: body ?? null, redirect: o.redirect ?? 'manual' });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: res.status, body: parsed as T, headers: res.headers, text };
  };
}
