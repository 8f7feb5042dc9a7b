// The compose files are documentation here (no Docker on the test machines): this keeps them coherent
// with the daemon. Every setting they pass is one the daemon knows and accepts, every URL names a
// service of the file, every dependency and volume exists, the worker can be scaled and has a health
// check, and the scaled example wires pgbouncer, the replica and S3 the way docs/deploying.md says.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { configSchema, loadConfig } from '../daemon/src/config.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
type Service = {
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  command?: string[];
  container_name?: string;
  deploy?: { replicas?: number };
};
type Compose = { services: Record<string, Service>; volumes?: Record<string, unknown> };

const load = (file: string): Compose =>
  parse(readFileSync(path.join(root, file), 'utf8'), {
    merge: true,
    customTags: [{ tag: '!reset', collection: 'seq', resolve: () => [] }],
  });

/** What `docker compose -f a -f b` does with the keys used here: maps merge, other values are replaced. */
function merge(base: Compose, over: Compose): Compose {
  const services: Record<string, Service> = { ...base.services };
  for (const [name, s] of Object.entries(over.services)) {
    const b = services[name] ?? {};
    services[name] = {
      ...b,
      ...s,
      environment: { ...b.environment, ...s.environment },
      depends_on: { ...b.depends_on, ...s.depends_on },
    };
  }
  return { services, volumes: { ...base.volumes, ...over.volumes } };
}

/** `${VAR:-default}` as compose substitutes it with VAR unset. */
const substitute = (env: Record<string, string>) =>
  Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v).replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1')]));

const KNOWN = new Set([...Object.keys(configSchema.shape), 'DOCSIFT_ADMIN_EMAIL']);

function checkCoherent(c: Compose, label: string) {
  for (const [name, s] of Object.entries(c.services)) {
    for (const dep of Object.keys(s.depends_on ?? {})) assert.ok(c.services[dep], `${label}: ${name} depends on unknown service ${dep}`);
    for (const v of s.volumes ?? []) {
      const [src] = v.split(':');
      if (src!.startsWith('./')) assert.ok(existsSync(path.join(root, src!)), `${label}: ${name} mounts missing ${src}`);
      else assert.ok(c.volumes && src! in c.volumes, `${label}: ${name} uses undeclared volume ${src}`);
    }
  }
  for (const name of ['daemon', 'worker']) {
    const env = substitute(c.services[name]!.environment ?? {});
    for (const k of Object.keys(env)) assert.ok(KNOWN.has(k), `${label}: ${name} sets ${k}, which the daemon does not read`);
    assert.doesNotThrow(() => loadConfig(env), `${label}: ${name}'s settings load`);
    for (const k of ['DATABASE_URL', 'DATABASE_POOL_URL', 'DATABASE_READ_URL', 'S3_ENDPOINT', 'OLLAMA_HOST']) {
      if (!env[k]) continue;
      const host = new URL(env[k]!).hostname;
      assert.ok(c.services[host], `${label}: ${name}'s ${k} points at ${host}, not a service`);
    }
  }
  const worker = c.services.worker!;
  assert.equal(worker.ports, undefined, `${label}: a worker publishes no port, so --scale worker=N works`);
  assert.equal(worker.container_name, undefined);
  const healthPort = worker.environment?.HEALTH_PORT;
  assert.ok(healthPort, `${label}: the worker serves a health endpoint`);
  assert.match(worker.healthcheck?.test.join(' ') ?? '', new RegExp(`127\\.0\\.0\\.1:${healthPort}/readyz`));
  assert.match(c.services.daemon!.healthcheck?.test.join(' ') ?? '', /\/readyz/);
}

describe('docker compose files', () => {
  const base = load('docker-compose.yml');
  const scaled = merge(base, load('docker-compose.scale.yml'));

  it('docker-compose.yml is coherent with the daemon: settings, services, volumes, a scalable worker with a health check', () => {
    checkCoherent(base, 'docker-compose.yml');
  });

  it('docker-compose.scale.yml over it: 2 APIs behind the lb through pgbouncer, a replica, S3, shared signing secret', () => {
    checkCoherent(scaled, 'scaled');
    const s = scaled.services;
    assert.equal(s.daemon!.deploy?.replicas, 2);
    assert.deepEqual(s.daemon!.ports, [], 'the API replicas publish no port; the lb does');
    assert.ok(s.lb!.ports?.some((p) => p.endsWith(':8080')));
    const api = substitute(s.daemon!.environment!);
    const worker = substitute(s.worker!.environment!);
    assert.equal(new URL(api.DATABASE_POOL_URL!).hostname, 'pgbouncer');
    assert.equal(new URL(api.DATABASE_URL!).hostname, 'postgres', 'migrations and workers connect directly');
    assert.equal(new URL(worker.DATABASE_URL!).hostname, 'postgres');
    assert.equal(new URL(api.DATABASE_READ_URL!).hostname, 'postgres-replica');
    assert.equal(s.pgbouncer!.environment?.POOL_MODE, 'transaction');
    assert.equal(api.STORAGE, 's3');
    assert.ok(api.SIGNING_SECRET && api.SIGNING_SECRET === worker.SIGNING_SECRET, 'one signing secret for every process');
    assert.equal(s.minio!.environment?.MINIO_ROOT_USER, api.S3_ACCESS_KEY_ID);
    assert.equal(s.minio!.environment?.MINIO_ROOT_PASSWORD, api.S3_SECRET_ACCESS_KEY);
    assert.match(readFileSync(path.join(root, 'deploy/postgres-replica-start.sh'), 'utf8'), /pg_basebackup .* -R /);
  });
});
