// GET /api/v1/collections/{uuid}/export/: a collection as a streamed tar archive (format.ts). The
// manifest is written from one snapshot to a temporary file first (so its size is known for its tar
// header, and memory stays flat whatever the collection's size); then the archive streams the
// manifest and every original from the store. A file a row of the snapshot references is kept for
// BLOB_RETENTION_DAYS after the row stops referencing it, so a delete during the export loses nothing.
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { docsiftVersion } from '../backup/manifest.js';
import { collectionToJson, getVisibleCollection } from '../collections/service.js';
import type { AppDeps, Caller } from '../types.js';
import { type CollectionLine, type DocumentLine, FORMAT, fileEntry, MANIFEST_ENTRY, VERSION } from './format.js';
import { tarEnd, tarHeader, tarPadding } from './tar.js';

/** A document as read for its line: the line's fields under their column names. */
type Row = Omit<DocumentLine, 'type' | 'uuid' | 'file_size' | 'created_at' | 'file' | 'content'> & {
  id: string;
  file_size: string | number;
  created_at: Date;
  blob_key: string | null;
  content: string | null;
};

interface FileToSend {
  id: string;
  blobKey: string;
  size: number;
}

async function writeManifest(deps: AppDeps, collection: CollectionLine['collection'], file: string): Promise<FileToSend[]> {
  const out = createWriteStream(file, { mode: 0o600 });
  const write = async (line: object) => {
    if (!out.write(`${JSON.stringify(line)}\n`)) await once(out, 'drain');
  };
  const files: FileToSend[] = [];
  await deps.sql.begin('isolation level repeatable read read only', async (tx) => {
    const [n] = await tx<{ n: number }[]>`
      select count(*)::int as n from documents where collection_id = ${collection.uuid} and deleted_at is null`;
    const head: CollectionLine = {
      type: 'collection',
      format: FORMAT,
      version: VERSION,
      exported_at: deps.clock.now().toISOString(),
      docsift_version: docsiftVersion(),
      collection,
      documents: n!.n,
    };
    await write(head);
    const cursor = tx<Row[]>`
      select id, title, source_type, status, tags, metadata, original_filename, media_type, file_size, content_sha256,
             source_url, created_at, blob_key,
             case when source_type = 'text' then document_text(id, text_joins) end as content
        from documents where collection_id = ${collection.uuid} and deleted_at is null
       order by created_at, id`.cursor(200);
    for await (const rows of cursor)
      for (const r of rows) {
        const size = Number(r.file_size);
        const line: DocumentLine = {
          type: 'document',
          uuid: r.id,
          title: r.title,
          source_type: r.source_type,
          status: r.status,
          tags: r.tags,
          metadata: r.metadata,
          original_filename: r.original_filename,
          media_type: r.media_type,
          file_size: size,
          content_sha256: r.content_sha256,
          source_url: r.source_url,
          created_at: r.created_at.toISOString(),
          file: r.blob_key ? fileEntry(r.id) : null,
          ...(r.content !== null ? { content: r.content } : {}),
        };
        await write(line);
        if (r.blob_key) files.push({ id: r.id, blobKey: r.blob_key, size });
      }
  });
  out.end();
  await once(out, 'close');
  return files;
}

async function* archive(deps: AppDeps, dir: string, manifest: string, files: FileToSend[]): AsyncGenerator<Buffer> {
  try {
    const now = deps.clock.now();
    const size = (await stat(manifest)).size;
    yield tarHeader(MANIFEST_ENTRY, size, now);
    for await (const chunk of createReadStream(manifest)) yield chunk as Buffer;
    yield tarPadding(size);
    for (const f of files) {
      const body = await deps.blobs.get(f.blobKey);
      yield tarHeader(fileEntry(f.id), f.size, now);
      let sent = 0;
      for await (const chunk of body) {
        sent += (chunk as Buffer).length;
        if (sent > f.size) break;
        yield chunk as Buffer;
      }
      // The status line has gone: a short file can only cut the archive, which an import reports as truncated.
      if (sent !== f.size) throw new Error(`stored file ${f.blobKey} has ${sent} bytes, its document says ${f.size}`);
      yield tarPadding(f.size);
    }
    yield tarEnd();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The archive of a collection the caller may read (404 COLLECTION_NOT_FOUND otherwise), as a stream. */
export async function exportCollection(
  deps: AppDeps,
  caller: Caller,
  id: string,
): Promise<{ filename: string; body: ReadableStream<Uint8Array> }> {
  const c = collectionToJson(await getVisibleCollection(deps.sql, caller, id), deps.config.TEXT_SEARCH_CONFIG);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'docsift-export-'));
  try {
    const manifest = path.join(dir, MANIFEST_ENTRY);
    const meta = { uuid: c.uuid, name: c.name, slug: c.slug, description: c.description, language: c.language, is_public: c.is_public };
    const files = await writeManifest(deps, meta, manifest);
    const stream = Readable.from(archive(deps, dir, manifest, files)).on('error', (err) =>
      deps.logger.error({ err, collection: c.uuid }, 'collection export cut short'),
    );
    return { filename: `${c.slug}.docsift.tar`, body: Readable.toWeb(stream) as ReadableStream<Uint8Array> };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
