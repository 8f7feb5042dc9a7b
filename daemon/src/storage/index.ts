import path from 'node:path';
import type { Config } from '../config.js';
import { LocalBlobStore } from './local.js';
import { S3BlobStore } from './s3.js';
import type { BlobStore } from './types.js';

export type { BlobStore } from './types.js';
export { StorageConfigError, StorageUnavailableError } from './types.js';

export function createBlobStore(config: Config): BlobStore {
  if (config.STORAGE === 's3') {
    if (!config.S3_BUCKET) throw new Error('STORAGE=s3 needs S3_BUCKET (and usually S3_ENDPOINT, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY).');
    return new S3BlobStore({
      bucket: config.S3_BUCKET,
      region: config.S3_REGION,
      endpoint: config.S3_ENDPOINT,
      publicEndpoint: config.S3_PUBLIC_ENDPOINT,
      accessKeyId: config.S3_ACCESS_KEY_ID,
      secretAccessKey: config.S3_SECRET_ACCESS_KEY,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
    });
  }
  return new LocalBlobStore(path.join(config.DATA_DIR, 'blobs'));
}
