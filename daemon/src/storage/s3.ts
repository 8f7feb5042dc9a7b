import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { randomUUID } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  BlobTooLargeError,
  sizeLimiter,
  StorageConfigError,
  StorageUnavailableError,
  type BlobStore,
  type PutResult,
  type StoredBlob,
} from './types.js';

export interface S3Options {
  bucket: string;
  region: string;
  endpoint?: string;
  /** Endpoint that download links are signed for, when clients reach the store by another address. */
  publicEndpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle?: boolean;
}

/**
 * Multipart part size and parts in flight: an upload holds at most about (QUEUE + 1) × PART bytes
 * in memory whatever the file's size (a 50 MiB file is sent as ten 5 MiB parts).
 */
export const S3_PART_BYTES = 5 * 1024 * 1024;
const S3_QUEUE = 2;

interface SdkError {
  name?: string;
  message?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
}

const statusOf = (err: unknown) => (err as SdkError | null)?.$metadata?.httpStatusCode;
const isNotFound = (err: unknown) =>
  statusOf(err) === 404 || ['NotFound', 'NoSuchKey', 'NoSuchBucket'].includes((err as SdkError | null)?.name ?? '');

/**
 * An S3 failure as the rest of the daemon sees it: its own type, and no `code`/`cause` a database
 * check could mistake for PostgreSQL being down (a refused S3 connection is not a database outage).
 */
function unavailable(op: string, err: unknown): StorageUnavailableError {
  if (err instanceof StorageUnavailableError) return err;
  const e = err as SdkError;
  const what = [e?.name, e?.code].filter((x, i, a) => x && a.indexOf(x) === i).join('/');
  return new StorageUnavailableError(`S3 ${op} failed: ${what ? `${what}: ` : ''}${e?.message ?? String(err)}`, err);
}

/** Any S3-compatible store (AWS, MinIO, R2…). Multipart upload only completes on success, so writes are atomic. */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;
  /** Signs download links only (no requests): for the address clients use. */
  private readonly signer: S3Client;
  constructor(private readonly opts: S3Options) {
    const make = (endpoint: string | undefined) =>
      new S3Client({
        region: opts.region,
        ...(endpoint ? { endpoint } : {}),
        forcePathStyle: opts.forcePathStyle ?? Boolean(opts.endpoint),
        ...(opts.accessKeyId && opts.secretAccessKey
          ? { credentials: { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey } }
          : {}),
        // Without these a store that accepts connections but never answers holds an upload forever.
        requestHandler: { connectionTimeout: 5000, requestTimeout: 60_000 },
      });
    this.client = make(opts.endpoint);
    this.signer = opts.publicEndpoint ? make(opts.publicEndpoint) : this.client;
  }

  private get where(): string {
    return `bucket "${this.opts.bucket}" at ${this.opts.endpoint ?? `AWS region ${this.opts.region}`}`;
  }

  /** At start-up: the bucket exists, the credentials are accepted, and an object can be written and deleted. */
  async check(): Promise<void> {
    const probeKey = `docsift-check/${randomUUID()}`;
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.opts.bucket }));
      await this.client.send(new PutObjectCommand({ Bucket: this.opts.bucket, Key: probeKey, Body: 'ok' }));
      await this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: probeKey }));
    } catch (err) {
      const e = err as SdkError;
      const status = statusOf(err);
      if (status === 404 || e.name === 'NoSuchBucket' || e.name === 'NotFound')
        throw new StorageConfigError(`S3 ${this.where} does not exist: create it or fix S3_BUCKET.`);
      if (status === 401 || status === 403 || /AccessDenied|InvalidAccessKeyId|SignatureDoesNotMatch|Forbidden/.test(e.name ?? ''))
        throw new StorageConfigError(
          `S3 refused access to ${this.where} (${e.name ?? status}): check S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY and the bucket's policy (the daemon reads, writes, lists and deletes objects).`,
        );
      if (status === 301 || e.name === 'PermanentRedirect')
        throw new StorageConfigError(`S3 ${this.where} is in another region: fix S3_REGION.`);
      throw new StorageConfigError(
        `S3 storage is unreachable: ${this.where} (${e.code ?? e.name ?? 'error'}: ${e.message ?? String(err)}); check S3_ENDPOINT and that the store is running.`,
      );
    }
  }

  async put(key: string, body: Readable, opts: { maxBytes: number; contentType: string; headBytes?: number }): Promise<PutResult> {
    const limiter = sizeLimiter(opts.maxBytes, opts.headBytes ?? 8192);
    const pass = new PassThrough();
    // Streams in parts (never the whole file in memory); lib-storage aborts the multipart upload on
    // failure, so no object appears under `key` unless every byte arrived.
    const upload = new Upload({
      client: this.client,
      queueSize: S3_QUEUE,
      partSize: S3_PART_BYTES,
      params: { Bucket: this.opts.bucket, Key: key, Body: pass, ContentType: opts.contentType },
    });
    // pipeline() listens for errors on every stream (the body included) and destroys them all on a
    // failure; a failing body or a too-large file aborts the multipart upload, so nothing is kept.
    let failure: unknown;
    const piped = pipeline(body, limiter.stream, pass).catch((err: unknown) => {
      failure = err;
      void upload.abort().catch(() => {});
    });
    try {
      await upload.done();
    } catch (err) {
      // The store failed first: stop reading the body.
      pass.destroy(err as Error);
      await piped;
      throw failure instanceof BlobTooLargeError ? failure : unavailable('upload', failure ?? err);
    }
    await piped;
    if (failure) throw failure;
    return { size: limiter.size(), head: limiter.head() };
  }

  async get(key: string): Promise<Readable> {
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.opts.bucket, Key: key }));
      return res.Body as Readable;
    } catch (err) {
      // The same signal as the local store's, so a missing file fails its document for good.
      if (isNotFound(err)) throw Object.assign(new Error(`stored file ${key} is missing`), { code: 'ENOENT' });
      throw unavailable('read', err);
    }
  }

  async read(key: string): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const part of await this.get(key)) parts.push(part as Buffer);
    return Buffer.concat(parts);
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.opts.bucket, Key: key }));
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      // Anything else (store down, access refused) is not "the file is gone".
      throw unavailable('read', err);
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: key }));
    } catch (err) {
      if (isNotFound(err)) return;
      throw unavailable('delete', err);
    }
  }

  async *list(prefix: string): AsyncIterable<StoredBlob> {
    let token: string | undefined;
    do {
      const page = await this.client
        .send(new ListObjectsV2Command({ Bucket: this.opts.bucket, Prefix: prefix, ContinuationToken: token }))
        .catch((err: unknown) => {
          throw unavailable('list', err);
        });
      for (const o of page.Contents ?? []) if (o.Key) yield { key: o.Key, modifiedAt: o.LastModified ?? new Date(0) };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async presignedUrl(key: string, o: { filename: string; contentType: string; expiresInSec: number }): Promise<string | null> {
    const cmd = new GetObjectCommand({
      Bucket: this.opts.bucket,
      Key: key,
      ResponseContentType: o.contentType,
      ResponseContentDisposition: `attachment; filename*=UTF-8''${encodeURIComponent(o.filename)}`,
    });
    return getSignedUrl(this.signer, cmd, { expiresIn: o.expiresInSec });
  }

  close(): void {
    this.client.destroy();
    if (this.signer !== this.client) this.signer.destroy();
  }
}
