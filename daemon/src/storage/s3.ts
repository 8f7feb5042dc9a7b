import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sizeLimiter, type BlobStore, type PutResult, type StoredBlob } from './types.js';

export interface S3Options {
  bucket: string;
  region: string;
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle?: boolean;
}

/** Any S3-compatible store (AWS, MinIO, R2…). Multipart upload only completes on success, so writes are atomic. */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;
  constructor(private readonly opts: S3Options) {
    this.client = new S3Client({
      region: opts.region,
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      forcePathStyle: opts.forcePathStyle ?? Boolean(opts.endpoint),
      ...(opts.accessKeyId && opts.secretAccessKey
        ? { credentials: { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey } }
        : {}),
    });
  }

  async put(key: string, body: Readable, opts: { maxBytes: number; contentType: string; headBytes?: number }): Promise<PutResult> {
    const limiter = sizeLimiter(opts.maxBytes, opts.headBytes ?? 8192);
    const pass = new PassThrough();
    const upload = new Upload({
      client: this.client,
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
      throw failure ?? err;
    }
    await piped;
    if (failure) throw failure;
    return { size: limiter.size(), head: limiter.head() };
  }

  async get(key: string): Promise<Readable> {
    const res = await this.client.send(new GetObjectCommand({ Bucket: this.opts.bucket, Key: key }));
    return res.Body as Readable;
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.opts.bucket, Key: key }));
      return true;
    } catch {
      return false;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: key }));
  }

  async *list(prefix: string): AsyncIterable<StoredBlob> {
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.opts.bucket, Prefix: prefix, ContinuationToken: token }));
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
    return getSignedUrl(this.client, cmd, { expiresIn: o.expiresInSec });
  }
}
