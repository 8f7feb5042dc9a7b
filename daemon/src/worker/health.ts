import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Daemon } from '../server.js';

/**
 * The health endpoint of a `worker` process (it serves no API): GET /healthz answers while the
 * process runs; GET /readyz answers 200 only while the database answers and the job runner is
 * processing, else 503 with the reason — what a container health check or a Kubernetes probe needs.
 */
export async function startWorkerHealth(daemon: Daemon, host: string, port: number): Promise<{ url: string; close(): Promise<void> }> {
  const availability = daemon.deps.availability;
  const server: Server = createServer((req, res) => {
    const send = (status: number, body: Record<string, unknown>) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, { status: 'method_not_allowed' });
    if (path === '/healthz') return send(200, { status: 'ok' });
    if (path !== '/readyz') return send(404, { status: 'not_found' });
    void (async () => {
      if (!(await availability.check())) return send(503, { status: 'database_unreachable' });
      const w = daemon.workerStatus?.();
      if (w && !w.processing) return send(503, { status: 'worker_not_processing', reason: w.reason });
      send(200, { status: 'ready' });
    })().catch(() => send(503, { status: 'database_unreachable' }));
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
