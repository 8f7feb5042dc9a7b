import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { PassThrough, type Readable } from 'node:stream';
import { sizeLimiter, type BlobStore, type PutResult } from './types.js';

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
    let failure: unknown;
    body
      .pipe(limiter.stream)
      .on('error', (err) => {
        failure = err;
        pass.destroy(err);
        void upload.abort().catch(() => {});
      })
      .pipe(pass);
    try {
      await upload.done();
    } catch (err) {
      throw failure ?? err;
    }
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
