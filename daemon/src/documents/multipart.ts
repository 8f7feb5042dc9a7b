import busboy from 'busboy';
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { PassThrough, Readable } from 'node:stream';
import { AppError, callbackGuard } from '../errors.js';
import { BlobTooLargeError, type BlobStore } from '../storage/types.js';
import { parseMediaType } from '../net/media-type.js';
import { documentFilename, MAX_FILENAME_LENGTH } from './filenames.js';
import { PartCounter } from './part-counter.js';

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

export function textTooLarge(maxTextBytes: number): AppError {
  return new AppError('VALIDATION_FAILED', `A text document holds at most ${maxTextBytes} bytes of content.`, {
    content: [`At most ${maxTextBytes} bytes (UTF-8).`],
  });
}

interface ReceiveOptions {
  collectionId: string;
  maxTextBytes: number;
  maxFileBytes: number;
}

/**
 * One multipart body being received: busboy's events land in the methods below, and the state they
 * share is named here. Every method runs inside busboy's or a stream's event, outside the request's
 * promise, so each is wrapped (callbackGuard): a throw fails this request instead of escaping as an
 * uncaught exception. An AppError answers with its status; anything else (a bug) is 500 INTERNAL_ERROR.
 */
class MultipartReceiver {
  /** Null prototype: a part may be named "__proto__" or "toString"; each stays an own field. */
  private readonly fields: Record<string, string> = Object.create(null);
  private readonly files: ReceivedFile[] = [];
  /** One per file part: its write to blob storage, settled whatever happens. */
  private readonly writes: Promise<void>[] = [];
  /** The streams currently feeding blob storage; ended with an error when the request fails. */
  private readonly sinks = new Set<PassThrough>();
  /** UTF-8 bytes of every field so far, against the request's whole budget. */
  private fieldBytes = 0;
  /** Body bytes read from the client: an empty body is a request without a file, not a malformed one. */
  private receivedBytes = 0;
  /** Parts busboy reported (a field or a file); the body's own count is `partCount.parts`. */
  private partsReported = 0;
  /** Resolved or rejected: later events only release what they hold. */
  private settled = false;
  private readonly guard = callbackGuard((err) => this.fail(err));
  private readonly maxFieldBytes: number;

  constructor(
    private readonly source: Readable,
    private readonly bb: busboy.Busboy,
    private readonly partCount: PartCounter,
    private readonly blobs: BlobStore,
    private readonly opts: ReceiveOptions,
    private readonly resolve: (r: MultipartResult) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    this.maxFieldBytes = Math.max(opts.maxTextBytes, MAX_SHORT_FIELD_BYTES);
  }

  start() {
    const { bb, source, guard } = this;
    bb.on('field', guard(this.onField.bind(this)));
    bb.on('file', guard(this.onFile.bind(this)));
    bb.on(
      'filesLimit',
      guard(() => this.invalid(`A batch holds at most ${MAX_BATCH_FILES} files.`, 'files')),
    );
    bb.on(
      'fieldsLimit',
      guard(() => this.invalid(`A request holds at most ${MAX_FIELDS} fields besides its files.`)),
    );
    bb.on('error', guard(this.onParserError.bind(this)));
    bb.on('close', guard(this.onParsed.bind(this)));
    // A client that disconnects mid-body: the request errors or closes before its end.
    source.on('error', guard(this.gone.bind(this)));
    source.on(
      'data',
      guard((chunk: Buffer) => {
        this.receivedBytes += chunk.length;
        this.partCount.push(chunk);
      }),
    );
    source.on(
      'close',
      guard(() => {
        if (!source.readableEnded) this.gone();
      }),
    );
    // It may already have gone while access was being checked: then no event will come.
    if (source.destroyed && !source.readableEnded) return this.gone();
    source.pipe(bb);
  }

  private fail(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.source.unpipe(this.bb);
    const aborted = new Error('multipart upload aborted');
    for (const s of this.sinks) s.destroy(aborted);
    // Stops the parser; it ends its current file stream with an error, which onFile listens to.
    // Deferred: fail() runs inside busboy's own event emits, and busboy still touches its state
    // after they return.
    process.nextTick(() => this.bb.destroy());
    // Whatever was already stored is removed once the pending writes settle.
    void Promise.allSettled(this.writes).then(() => Promise.all(this.files.map((f) => this.blobs.delete(f.blobKey).catch(() => {}))));
    this.reject(err);
  }

  private invalid(message: string, field = '_body'): void {
    this.fail(new AppError('VALIDATION_FAILED', message, { [field]: [message] }));
  }

  private unnamed(): void {
    this.invalid('Every part needs a name: Content-Disposition: form-data; name="…".');
  }

  private gone(): void {
    this.fail(new AppError('VALIDATION_FAILED', 'The request body ended early (the client disconnected).'));
  }

  private onField(name: string | undefined, value: string | undefined, info: busboy.FieldInfo) {
    this.partsReported++;
    if (this.settled) return;
    if (name === undefined) return this.unnamed();
    // busboy gives no value for a part in a character set it cannot decode (charset=x).
    if (typeof value !== 'string')
      return this.invalid(`Field "${name.replace(/\u0000/g, '')}" has a character set that cannot be decoded; send UTF-8.`, name);
    const bytes = Buffer.byteLength(value);
    this.fieldBytes += bytes;
    if (name === 'content' && (info.valueTruncated || bytes > this.opts.maxTextBytes))
      return this.fail(textTooLarge(this.opts.maxTextBytes));
    if (
      info.valueTruncated ||
      (name !== 'content' && bytes > MAX_SHORT_FIELD_BYTES) ||
      this.fieldBytes > this.maxFieldBytes + MAX_SHORT_FIELD_BYTES * MAX_FIELDS
    )
      return this.fail(new AppError('VALIDATION_FAILED', `Field "${name}" is too long.`, { [name]: ['Too long.'] }));
    if (hasNul(value) || hasNul(name)) return this.invalid(`Field "${name.replace(/\u0000/g, '')}" must not contain NUL characters.`, name);
    this.fields[name] = value;
  }

  /** A part's checks before its bytes are stored: a refused part is read to its end and discarded. */
  private onFile(field: string | undefined, stream: Readable, info: busboy.FileInfo) {
    // Every stream gets its error listener at once: busboy ends a file stream with an error when
    // the body breaks off, and an 'error' nobody listens to ends the process.
    stream.on('error', () => {});
    this.partsReported++;
    const refuse = (then: () => void) => {
      stream.resume();
      then();
    };
    if (this.settled) return refuse(() => {});
    if (field === undefined) return refuse(() => this.unnamed());
    const filename = documentFilename(info.filename ?? '');
    if (hasNul(filename) || hasNul(info.mimeType ?? ''))
      return refuse(() => this.invalid('File names and types must not contain NUL characters.', field));
    // Cutting a deep path would make two different files one name to `docs sync`.
    if (filename.length > MAX_FILENAME_LENGTH) {
      const message = `A file's relative path holds at most ${MAX_FILENAME_LENGTH} characters; this one has ${filename.length}.`;
      return refuse(() => this.invalid(message, field));
    }
    const documentId = randomUUID();
    const file: ReceivedFile = {
      field,
      documentId,
      blobKey: `docs/${this.opts.collectionId}/${documentId}`,
      filename,
      mediaType: info.mimeType || 'application/octet-stream',
      size: 0,
      head: Buffer.alloc(0),
      tooLarge: false,
      empty: false,
    };
    this.files.push(file);
    this.store(file, stream, !info.filename);
  }

  /** Streams one file part into blob storage, hashing it on the way. */
  private store(file: ReceivedFile, stream: Readable, unnamedFile: boolean): void {
    const { guard } = this;
    // Storage reads from a pass-through this code owns: if storage fails, the part is still read
    // to its end (discarded), so the rest of the body keeps flowing.
    const sink = new PassThrough();
    // Storage reports its failures through put(); this listener only keeps a late error harmless.
    sink.on('error', () => {});
    this.sinks.add(sink);
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
        file.tooLarge = true;
        // A single upload (`file`) is refused outright; a batch (`files`) skips just this file.
        if (file.field === 'file') this.fail(new AppError('FILE_TOO_LARGE', `File "${file.filename}" exceeds the 50 MiB limit.`));
      }),
    );
    stream.pipe(sink);
    this.writes.push(
      this.blobs
        .put(file.blobKey, sink, { maxBytes: this.opts.maxFileBytes, contentType: file.mediaType })
        .then(
          guard((r: { size: number; head: Buffer }) => {
            file.size = r.size;
            file.head = r.head;
            file.sha256 = hash.digest('hex');
            file.empty = unnamedFile && r.size === 0;
          }),
          guard((err: unknown) => {
            file.failed = err;
            if (err instanceof BlobTooLargeError) file.tooLarge = true;
            stream.unpipe(sink);
            stream.resume();
          }),
        )
        .finally(() => this.sinks.delete(sink)),
    );
  }

  private onParserError(err: Error) {
    if (this.receivedBytes === 0) return this.fail(new AppError('NO_FILE_PROVIDED', 'No file provided: the multipart body is empty.'));
    this.invalid(`Malformed multipart body: ${err.message}`);
  }

  /** The parser read the whole body: the result, once every file is stored. */
  private onParsed() {
    if (this.settled) return;
    // A part busboy skipped had a Content-Disposition it could not read: it has no usable name.
    if (this.partCount.parts > this.partsReported) return this.unnamed();
    void Promise.all(this.writes).then(
      this.guard(() => {
        if (this.settled) return;
        this.settled = true;
        this.resolve({ fields: this.fields, files: this.files });
      }),
    );
  }
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
  const limits: ReceiveOptions = { ...opts, maxFileBytes: opts.maxFileBytes ?? MAX_FILE_BYTES };
  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers,
      // One byte over the limits, so that reaching a limit exactly is still allowed: busboy
      // reports a limit when a part reaches it, not when it exceeds it.
      limits: {
        fileSize: limits.maxFileBytes + 1,
        files: MAX_BATCH_FILES,
        fields: MAX_FIELDS,
        fieldSize: Math.max(opts.maxTextBytes, MAX_SHORT_FIELD_BYTES) + 1,
      },
      defParamCharset: 'utf8',
      // Relative paths reach documentFilename, which normalizes them.
      preservePath: true,
    });
  } catch {
    // Not multipart at all (no content type, text/plain, octet-stream…): the request carries no file part (docs/service-spec.md §7: NO_FILE_PROVIDED).
    return Promise.reject(
      new AppError('NO_FILE_PROVIDED', 'No file provided: send multipart/form-data with a `file` part (or several in `files`).', {
        _body: ['Send multipart/form-data with a file or files part.'],
      }),
    );
  }
  const source = body instanceof Readable ? body : Readable.fromWeb(body as never);
  // busboy accepted the type, so it has a boundary (the first one, as busboy reads it).
  const boundary = parseMediaType(headers['content-type'] ?? '')?.parameters.find(([name]) => name === 'boundary')?.[1] ?? '';
  const parts = new PartCounter(boundary);
  return new Promise((resolve, reject) => new MultipartReceiver(source, bb, parts, blobs, limits, resolve, reject).start());
}
