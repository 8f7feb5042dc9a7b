import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DatabaseAvailability } from '../db/availability.js';
import type { Sql } from '../db/client.js';
import { migrationsCurrent } from '../db/migrate.js';
import type { WorkerStatus } from './supervisor.js';

/** What readiness reads: the database, whether it is known to be down, and this process's job worker if it runs one. */
export interface ReadinessSources {
  sql: Sql;
  availability: DatabaseAvailability;
  workerStatus?: () => WorkerStatus;
}

export interface Readiness {
  ready: boolean;
  body: { status: 'ready' | 'database_unreachable' | 'migrations_pending' | 'worker_not_processing'; reason?: string };
}

/**
 * GET /readyz of every process, the API's and a worker's: ready while the database answers, its
 * schema is current, and this process's job worker (if it runs one) is processing. A worker that
 * is not (its runner died or is being replaced) makes the process not ready, with the reason,
 * rather than letting ingestion stall behind a "ready".
 */
export async function readiness({ sql, availability, workerStatus }: ReadinessSources): Promise<Readiness> {
  const notReady = (status: Readiness['body']['status'], reason?: string): Readiness => ({
    ready: false,
    body: reason ? { status, reason } : { status },
  });
  if (availability.isDown) return notReady('database_unreachable');
  try {
    if (!(await migrationsCurrent(sql))) return notReady('migrations_pending');
  } catch (err) {
    await availability.explains(err);
    return notReady('database_unreachable');
  }
  const worker = workerStatus?.();
  if (worker && !worker.processing) return notReady('worker_not_processing', worker.reason);
  return { ready: true, body: { status: 'ready' } };
}

/**
 * The health endpoint of a `worker` process (it serves no API): GET /healthz answers while the
 * process runs; GET /readyz is readiness() above, 200 or 503 with the reason: what a container
 * health check or a Kubernetes probe needs.
 */
export async function startWorkerHealth(
  sources: ReadinessSources,
  host: string,
  port: number,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const send = (status: number, body: Record<string, unknown>) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, { status: 'method_not_allowed' });
    if (path === '/healthz') return send(200, { status: 'ok' });
    if (path !== '/readyz') return send(404, { status: 'not_found' });
    readiness(sources).then(
      (r) => send(r.ready ? 200 : 503, r.body),
      () => send(503, { status: 'database_unreachable' }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const a = server.address() as AddressInfo;
  const h = a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return {
    url: `http://${h === '0.0.0.0' ? '127.0.0.1' : h}:${a.port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
