import type { App } from './router.js';
import { getDocumentById } from '../documents/queries.js';
import { AppError } from '../errors.js';
import { blobTag, verifyDownloadToken } from '../documents/download-links.js';
import type { AppDeps } from '../types.js';
import { Readable } from 'node:stream';
import { baseFilename } from '../documents/filenames.js';

/** Serves a blob behind an HMAC-signed, expiring link (local storage). No bearer auth: the signature is the credential. */
export function registerFileRoutes(app: App, deps: AppDeps): void {
  app.get('/files/:token', async (c) => {
    const v = verifyDownloadToken(deps.config.SIGNING_SECRET, c.req.param('token'), Math.floor(deps.clock.now().getTime() / 1000));
    if (!v) throw new AppError('DOWNLOAD_LINK_INVALID', 'This download link is invalid or has expired; request a new one.');
    const d = await getDocumentById(deps.sql, v.documentId);
    if (!d || d.deleted_at || !d.blob_key || blobTag(d.blob_key) !== v.blobTag)
      throw new AppError('DOCUMENT_FILE_NOT_FOUND', 'The file is no longer available.');
    let stream: Readable;
    try {
      stream = await deps.blobs.get(d.blob_key);
    } catch {
      throw new AppError('DOCUMENT_FILE_NOT_FOUND', 'The file is no longer available.');
    }
    // A relative path (docs sync) names the file by its last segment.
    const name = baseFilename(d.original_filename) || d.id;
    const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
    return c.body(Readable.toWeb(stream) as ReadableStream, 200, {
      'content-type': d.media_type,
      'content-length': String(d.file_size),
      'content-disposition': `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`,
      'cache-control': 'private, no-store',
      'x-content-type-options': 'nosniff',
    });
  });
}
