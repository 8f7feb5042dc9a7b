import busboy from 'busboy';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { AppError } from '../errors.js';
import type { BlobStore } from '../storage/types.js';

export const MAX_FILE_BYTES = 50 * 1024 * 1024;
export const MAX_BATCH_FILES = 100;
const MAX_FIELD_BYTES = 10 * 1024 * 1024;

export interface ReceivedFile {
  field: string;
  documentId: string;
  blobKey: string;
  filename: string;
  mediaType: string;
  size: number;
  head: Buffer;
  tooLarge: boolean;
  /** A part with no filename and no bytes: what browsers send for an empty file input. */
  empty: boolean;
  failed?: unknown;
}

export interface MultipartResult {
  fields: Record<string, string>;
  files: ReceivedFile[];
}

/**
 * Streams a multipart body: each file part goes straight into blob storage (never buffered in
 * memory). A part over 50 MB is cut off at the limit; for a single upload (`file`) the whole
 * request is refused with FILE_TOO_LARGE the moment the limit is crossed, and the partial blob is
 * removed. The caller deletes blobs of files it later rejects.
 */
export function receiveMultipart(
  body: IncomingMessage | ReadableStream<Uint8Array>,
  headers: Record<string, string>,
  blobs: BlobStore,
  opts: { collectionId: string; maxFileBytes?: number },
): Promise<MultipartResult> {
  const maxFileBytes = opts.maxFileBytes ?? MAX_FILE_BYTES;
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers,
        limits: { fileSize: maxFileBytes, files: MAX_BATCH_FILES, fields: 50, fieldSize: MAX_FIELD_BYTES },
        defParamCharset: 'utf8',
      });
    } catch {
      reject(
        new AppError('VALIDATION_FAILED', 'Expected a multipart/form-data body.', {
          _body: ['Send multipart/form-data with a file or files part.'],
        }),
      );
      return;
    }
    const fields: Record<string, string> = {};
    const files: ReceivedFile[] = [];
    const writes: Promise<void>[] = [];
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      source.unpipe(bb);
      // Whatever was already stored is removed once the pending writes settle.
      void Promise.allSettled(writes).then(() => Promise.all(files.map((f) => blobs.delete(f.blobKey).catch(() => {}))));
      reject(err);
    };

    bb.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(new AppError('VALIDATION_FAILED', `Field "${name}" is too long.`, { [name]: ['Too long.'] }));
      fields[name] = value;
    });
    bb.on('file', (field, stream, info) => {
      if (settled) {
        stream.resume();
        return;
      }
      const documentId = randomUUID();
      const f: ReceivedFile = {
        field,
        documentId,
        blobKey: `docs/${opts.collectionId}/${documentId}`,
        filename: (info.filename ?? '').split(/[\\/]/).pop() || 'upload',
        mediaType: info.mimeType || 'application/octet-stream',
        size: 0,
        head: Buffer.alloc(0),
        tooLarge: false,
        empty: false,
      };
      files.push(f);
      stream.on('limit', () => {
        f.tooLarge = true;
        // A single upload (`file`) is refused outright; a batch (`files`) skips just this file.
        if (field === 'file') {
          stream.destroy();
          fail(new AppError('FILE_TOO_LARGE', `File "${f.filename}" exceeds the 50 MB limit.`));
        }
      });
      writes.push(
        blobs.put(f.blobKey, stream, { maxBytes: maxFileBytes, contentType: f.mediaType }).then(
          (r) => {
            f.size = r.size;
            f.head = r.head;
            f.empty = !info.filename && r.size === 0;
          },
          (err) => {
            f.failed = err;
            // Keep the body flowing: an unconsumed part would stall the whole multipart parse.
            stream.resume();
          },
        ),
      );
    });
    bb.on('filesLimit', () =>
      fail(
        new AppError('VALIDATION_FAILED', `A batch holds at most ${MAX_BATCH_FILES} files.`, {
          files: [`At most ${MAX_BATCH_FILES} files per request.`],
        }),
      ),
    );
    bb.on('error', (err) =>
      fail(
        new AppError('VALIDATION_FAILED', `Malformed multipart body: ${(err as Error).message}`, { _body: ['Malformed multipart body.'] }),
      ),
    );
    bb.on('close', () => {
      if (settled) return;
      void Promise.all(writes).then(() => {
        if (settled) return;
        settled = true;
        resolve({ fields, files });
      });
    });
    const source = body instanceof Readable ? body : Readable.fromWeb(body as never);
    source.on('error', (err) => fail(err));
    source.pipe(bb);
  });
}
