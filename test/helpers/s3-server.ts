// A real S3-protocol server for tests: s3rver (a devDependency, installed by `npm install`) on a
// loopback port chosen at run time, storing objects in a temporary directory. The daemon and the
// tests talk to it with @aws-sdk/client-s3 over HTTP. Every request it receives is recorded
// (method, path, query, declared length, status), so a test can see multipart parts arrive.
//
// s3rver checks that the access key id exists, but does not verify SigV4 signatures: a wrong
// secret key goes unnoticed, a wrong key id does not.
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mkdtemp, rm } from 'node:fs/promises';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { arrivals } from './arrivals.js';

export const S3RVER_KEY = 'S3RVER';

export interface S3Request {
  method: string;
  path: string;
  query: URLSearchParams;
  /** Content-Length as declared by the client (0 when absent). */
  contentLength: number;
  /** Set once the response has been sent. */
  status?: number;
}

export interface StoredObject {
  key: string;
  size: number;
  lastModified: Date;
}

export interface TestS3 {
  readonly endpoint: string;
  readonly port: number;
  readonly bucket: string;
  readonly requests: S3Request[];
  /** Daemon settings for this server (STORAGE=s3 …), with overrides. */
  env(overrides?: Record<string, string>): Record<string, string>;
  readonly client: S3Client;
  /** Resolves with the first request (past or future) that matches and has been answered. */
  waitForRequest(match: (r: S3Request) => boolean, timeoutMs: number, what: string): Promise<S3Request>;
  objects(prefix?: string): Promise<StoredObject[]>;
  read(key: string): Promise<Buffer>;
  /** Stops listening and cuts every open connection (the server is "down"). */
  stop(): Promise<void>;
  /** Listens again on the same port, with the same stored objects. */
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/**
 * `tls`: serve https with this key and certificate (pgBackRest reaches S3 only over TLS); the
 * test client then trusts any certificate.
 */
export async function startS3Server(opts: { bucket?: string; tls?: { key: Buffer; cert: Buffer } } = {}): Promise<TestS3> {
  const bucket = opts.bucket ?? 'docsift-test';
  const directory = await mkdtemp(path.join(os.tmpdir(), 'docsift-s3-'));
  const requests: S3Request[] = [];
  const arrived = arrivals();
  let server: S3rver | undefined;
  let port = 0;

  const record = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://s3.local');
    const r: S3Request = {
      method: req.method ?? '',
      path: decodeURIComponent(url.pathname),
      query: url.searchParams,
      contentLength: Number(req.headers['content-length'] ?? 0),
    };
    requests.push(r);
    res.on('finish', () => {
      r.status = res.statusCode;
      arrived.notify();
    });
  };

  const start = async () => {
    const s = new S3rver({
      address: '127.0.0.1',
      port,
      silent: true,
      directory,
      vhostBuckets: false,
      configureBuckets: [{ name: bucket }],
      ...(opts.tls ?? {}),
    });
    const info = await s.run();
    port = info.port;
    s.httpServer.on('request', record);
    server = s;
  };
  await start();
  const endpoint = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const client = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    ...(opts.tls ? { requestHandler: { httpsAgent: new https.Agent({ rejectUnauthorized: false }) } } : {}),
    credentials: { accessKeyId: S3RVER_KEY, secretAccessKey: S3RVER_KEY },
  });

  const stop = async () => {
    const s = server;
    server = undefined;
    if (!s) return;
    const closed = s.close();
    s.httpServer.closeAllConnections();
    await closed;
  };

  return {
    endpoint,
    port,
    bucket,
    requests,
    client,
    env: (overrides = {}) => ({
      STORAGE: 's3',
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: S3RVER_KEY,
      S3_SECRET_ACCESS_KEY: S3RVER_KEY,
      S3_FORCE_PATH_STYLE: 'true',
      ...overrides,
    }),
    waitForRequest: (match, timeoutMs, what) =>
      arrived.waitFor(() => requests.find((x) => x.status !== undefined && match(x)), timeoutMs, what),
    async objects(prefix = '') {
      const out: StoredObject[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
        for (const o of page.Contents ?? []) out.push({ key: o.Key!, size: o.Size ?? 0, lastModified: o.LastModified ?? new Date(0) });
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return out;
    },
    async read(key) {
      const r = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return Buffer.from(await r.Body!.transformToByteArray());
    },
    stop,
    start,
    async destroy() {
      await stop();
      client.destroy();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
