import busboy from 'busboy';
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { PassThrough, Readable } from 'node:stream';
import { AppError, callbackGuard } from '../errors.js';
import { BlobTooLargeError, type BlobStore } from '../storage/types.js';

export const MAX_FILE_BYTES = 50 * 1024 * 1024;
export const MAX_BATCH_FILES = 100;
export const MAX_FIELDS = 50;
/** Every field but `content` (a text document) is short: title, tags, source_type, url. */
const MAX_SHORT_FIELD_BYTES = 64 * 1024;

export interface ReceivedFile {
  field: string;
  documentId: string;
  blobKey: string;
  /** The part's file name, a relative path kept as sent (normalized, see documentFilename). */
  filename: string;
  /** Hex SHA-256 of the bytes, once the part was read whole. */
  sha256?: string;
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

const hasNul = (s: string) => s.includes('\u0000');

/** Longest relative path kept (characters, after normalizing); a longer one is refused, never cut. */
export const MAX_FILENAME_LENGTH = 1024;

/**
 * A part's file name as stored in original_filename. A relative path is kept (`guide/intro.md`):
 * `docs sync` identifies documents by it. Separators become `/`; empty and `.` segments, a drive
 * letter and `..` (resolved, never above the top) are dropped, so the name never points outside.
 */
export function documentFilename(raw: string): string {
  const parts: string[] = [];
  const segments = raw.replace(/\\/g, '/').split('/');
  if (/^[A-Za-z]:$/.test(segments[0] ?? '')) segments.shift();
  for (const seg of segments) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return parts.join('/') || 'upload';
}

/** The last segment of a stored file name: titles and download names. */
export const baseFilename = (name: string) => name.slice(name.lastIndexOf('/') + 1);

export function textTooLarge(maxTextBytes: number): AppError {
  return new AppError('VALIDATION_FAILED', `A text document holds at most ${maxTextBytes} bytes of content.`, {
    content: [`At most ${maxTextBytes} bytes (UTF-8).`],
  });
}

/**
 * Streams a multipart body: each file part goes straight into blob storage (never buffered in
 * memory). A file may hold at most 50 MiB (52,428,800 bytes, inclusive); a single upload (`file`)
 * over it is refused with FILE_TOO_LARGE the moment the limit is crossed. Whatever goes wrong (a
 * malformed body, a client that disconnects, a refused field), every stream is ended, every
 * partial or stored blob of the request is removed, and the promise rejects with an AppError. The
 * caller deletes blobs of files it later rejects.
 */
export function receiveMultipart(
  body: IncomingMessage | ReadableStream<Uint8Array>,
  headers: Record<string, string>,
  blobs: BlobStore,
  opts: { collectionId: string; maxTextBytes: number; maxFileBytes?: number },
): Promise<MultipartResult> {
  const maxFileBytes = opts.maxFileBytes ?? MAX_FILE_BYTES;
  const maxFieldBytes = Math.max(opts.maxTextBytes, MAX_SHORT_FIELD_BYTES);
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers,
        // One byte over the limits, so that reaching a limit exactly is still allowed: busboy
        // reports a limit when a part reaches it, not when it exceeds it.
        limits: { fileSize: maxFileBytes + 1, files: MAX_BATCH_FILES, fields: MAX_FIELDS, fieldSize: maxFieldBytes + 1 },
        defParamCharset: 'utf8',
        // Relative paths reach documentFilename, which normalizes them.
        preservePath: true,
      });
    } catch {
      // Not multipart at all (no content type, text/plain, octet-stream…): the request carries no file part (docs/service-spec.md §7: NO_FILE_PROVIDED).
      reject(
        new AppError('NO_FILE_PROVIDED', 'No file provided: send multipart/form-data with a `file` part (or several in `files`).', {
          _body: ['Send multipart/form-data with a file or files part.'],
        }),
      );
      return;
    }
    const source = body instanceof Readable ? body : Readable.fromWeb(body as never);
    // Null prototype: a part may be named "__proto__" or "toString"; each stays an own field.
    const fields: Record<string, string> = Object.create(null);
    const files: ReceivedFile[] = [];
    const writes: Promise<void>[] = [];
    // The streams currently feeding blob storage; ended with an error when the request fails.
    const sinks = new Set<PassThrough>();
    let fieldBytes = 0;
    let settled = false;
    // An AppError answers with its status; anything else (a bug) is 500 INTERNAL_ERROR, never a crash.
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      source.unpipe(bb);
      const aborted = new Error('multipart upload aborted');
      for (const s of sinks) s.destroy(aborted);
      // Stops the parser; it ends its current file stream with an error, which is listened to below.
      // Deferred: fail() runs inside busboy's own event emits, and busboy still touches its state
      // after they return.
      process.nextTick(() => bb.destroy());
      // Whatever was already stored is removed once the pending writes settle.
      void Promise.allSettled(writes).then(() => Promise.all(files.map((f) => blobs.delete(f.blobKey).catch(() => {}))));
      reject(err);
    };
    const invalid = (message: string, field = '_body') => fail(new AppError('VALIDATION_FAILED', message, { [field]: [message] }));
    // Every callback below runs in busboy's or a stream's event, outside this promise: a throw in one
    // fails this request instead of escaping as an uncaught exception.
    const guard = callbackGuard(fail);
    const unnamed = () => invalid('Every part needs a name: Content-Disposition: form-data; name="…".');

    bb.on(
      'field',
      guard((name: string | undefined, value: string | undefined, info: busboy.FieldInfo) => {
        if (settled) return;
        if (name === undefined) return unnamed();
        // busboy gives no value for a part in a character set it cannot decode (charset=x).
        if (typeof value !== 'string')
          return invalid(`Field "${name.replace(/\u0000/g, '')}" has a character set that cannot be decoded; send UTF-8.`, name);
        const bytes = Buffer.byteLength(value);
        fieldBytes += bytes;
        if (name === 'content' && (info.valueTruncated || bytes > opts.maxTextBytes)) return fail(textTooLarge(opts.maxTextBytes));
        if (
          info.valueTruncated ||
          (name !== 'content' && bytes > MAX_SHORT_FIELD_BYTES) ||
          fieldBytes > maxFieldBytes + MAX_SHORT_FIELD_BYTES * MAX_FIELDS
        )
          return fail(new AppError('VALIDATION_FAILED', `Field "${name}" is too long.`, { [name]: ['Too long.'] }));
        if (hasNul(value) || hasNul(name)) return invalid(`Field "${name.replace(/\u0000/g, '')}" must not contain NUL characters.`, name);
        fields[name] = value;
      }),
    );
    bb.on(
      'file',
      guard((field: string | undefined, stream: Readable, info: busboy.FileInfo) => {
        // Every stream gets its error listener at once: busboy ends a file stream with an error when
        // the body breaks off, and an 'error' nobody listens to ends the process.
        stream.on('error', () => {});
        if (settled) {
          stream.resume();
          return;
        }
        if (field === undefined) {
          stream.resume();
          return unnamed();
        }
        const filename = documentFilename(info.filename ?? '');
        if (hasNul(filename) || hasNul(info.mimeType ?? '')) {
          stream.resume();
          return invalid('File names and types must not contain NUL characters.', field);
        }
        // Cutting a deep path would make two different files one name to `docs sync`.
        if (filename.length > MAX_FILENAME_LENGTH) {
          stream.resume();
          return invalid(`A file's relative path holds at most ${MAX_FILENAME_LENGTH} characters; this one has ${filename.length}.`, field);
        }
        const documentId = randomUUID();
        const f: ReceivedFile = {
          field,
          documentId,
          blobKey: `docs/${opts.collectionId}/${documentId}`,
          filename,
          mediaType: info.mimeType || 'application/octet-stream',
          size: 0,
          head: Buffer.alloc(0),
          tooLarge: false,
          empty: false,
        };
        files.push(f);
        // Storage reads from a pass-through this code owns: if storage fails, the part is still read
        // to its end (discarded), so the rest of the body keeps flowing.
        const sink = new PassThrough();
        // Storage reports its failures through put(); this listener only keeps a late error harmless.
        sink.on('error', () => {});
        sinks.add(sink);
        stream.on(
          'error',
          guard((err: Error) => sink.destroy(err)),
        );
        const hash = createHash('sha256');
        stream.on(
          'data',
          guard((chunk: Buffer) => hash.update(chunk)),
        );
        stream.on(
          'limit',
          guard(() => {
            f.tooLarge = true;
            // A single upload (`file`) is refused outright; a batch (`files`) skips just this file.
            if (field === 'file') fail(new AppError('FILE_TOO_LARGE', `File "${f.filename}" exceeds the 50 MB limit.`));
          }),
        );
        stream.pipe(sink);
        writes.push(
          blobs
            .put(f.blobKey, sink, { maxBytes: maxFileBytes, contentType: f.mediaType })
            .then(
              guard((r: { size: number; head: Buffer }) => {
                f.size = r.size;
                f.head = r.head;
                f.sha256 = hash.digest('hex');
                f.empty = !info.filename && r.size === 0;
              }),
              guard((err: unknown) => {
                f.failed = err;
                if (err instanceof BlobTooLargeError) f.tooLarge = true;
                stream.unpipe(sink);
                stream.resume();
              }),
            )
            .finally(() => sinks.delete(sink)),
        );
      }),
    );
    bb.on(
      'filesLimit',
      guard(() => invalid(`A batch holds at most ${MAX_BATCH_FILES} files.`, 'files')),
    );
    bb.on(
      'fieldsLimit',
      guard(() => invalid(`A request holds at most ${MAX_FIELDS} fields besides its files.`)),
    );
    // An empty body is a request without a file, not a malformed one.
    let received = 0;
    bb.on(
      'error',
      guard((err: Error) =>
        received === 0
          ? fail(new AppError('NO_FILE_PROVIDED', 'No file provided: the multipart body is empty.'))
          : invalid(`Malformed multipart body: ${err.message}`),
      ),
    );
    bb.on(
      'close',
      guard(() => {
        if (settled) return;
        void Promise.all(writes).then(
          guard(() => {
            if (settled) return;
            settled = true;
            resolve({ fields, files });
          }),
        );
      }),
    );
    // A client that disconnects mid-body: the request errors or closes before its end.
    const gone = () => fail(new AppError('VALIDATION_FAILED', 'The request body ended early (the client disconnected).'));
    source.on('error', guard(gone));
    source.on(
      'data',
      guard((chunk: Buffer) => {
        received += chunk.length;
      }),
    );
    source.on(
      'close',
      guard(() => {
        if (!source.readableEnded) gone();
      }),
    );
    // It may already have gone while access was being checked: then no event will come.
    if (source.destroyed && !source.readableEnded) return gone();
    source.pipe(bb);
  });
}
