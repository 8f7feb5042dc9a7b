// POST /api/v1/collections/import/: rebuilds an exported collection (format.ts) through the normal
// upload pipeline, streaming: the manifest is spooled to a temporary file, then each original goes
// from the request straight to the store as its manifest line is reached, so memory holds one
// manifest line at a time. Without `collection`, the import goes into the caller's collection
// rebuilt from the same export before (collections.imported_from), or a new one; importing the same
// archive again adds nothing (document uuids are derived from the collection and the exported uuid).
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { collectionToJson, createCollection, getVisibleCollection, requireWritableCollection } from '../collections/service.js';
import { requireFullAccess } from '../auth/access.js';
import { AppError } from '../errors.js';
import type { AppDeps, Caller } from '../types.js';
import { type CollectionLine, type DocumentLine, FILE_ENTRY, FORMAT, MANIFEST_ENTRY, VERSION } from './format.js';
import { importDocument, type Outcome } from './import-document.js';
import { readTar, type TarEntry, TarFormatError } from './tar.js';

/** A manifest line holds at most a text document (MAX_TEXT_DOCUMENT_BYTES) with JSON escaping; the manifest at most 1 GiB. */
const MAX_MANIFEST_BYTES = 1024 ** 3;

export interface ImportResult {
  collection: ReturnType<typeof collectionToJson>;
  created_collection: boolean;
  imported: number;
  already_present: number;
  failed: { uuid: string; title: string; reason: string }[];
}

const invalid = (why: string) => new AppError('VALIDATION_FAILED', `Not a docsift collection export: ${why}.`, { _body: [why] });

async function spool(entry: TarEntry, file: string): Promise<void> {
  if (entry.size > MAX_MANIFEST_BYTES) throw invalid(`its manifest is larger than ${MAX_MANIFEST_BYTES} bytes`);
  const out = createWriteStream(file, { mode: 0o600 });
  for await (const chunk of entry.body) if (!out.write(chunk)) await once(out, 'drain');
  out.end();
  await once(out, 'close');
}

function parseLine<T>(text: string, n: number): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw invalid(`line ${n} of its manifest is not JSON`);
  }
}

/** The collection the documents go into: the named one, the one an earlier import of this export made, or a new one. */
async function targetCollection(deps: AppDeps, caller: Caller, head: CollectionLine, named: string | undefined) {
  if (named) return { id: (await requireWritableCollection(deps.sql, caller, named)).id, created: false };
  const src = head.collection;
  const find = async () =>
    (
      await deps.sql<{ id: string }[]>`
        select id from collections where owner_id = ${caller.userId} and imported_from = ${src.uuid} and deleted_at is null`
    )[0]?.id;
  const found = await find();
  if (found) return { id: found, created: false };
  try {
    const c = await createCollection(
      deps,
      caller,
      { name: src.name, description: src.description, is_public: src.is_public, language: src.language },
      { importedFrom: src.uuid },
    );
    return { id: c.uuid, created: true };
  } catch (err) {
    const id = (err as { code?: string }).code === '23505' ? await find() : undefined;
    if (id) return { id, created: false };
    throw err;
  }
}

export async function importCollection(
  deps: AppDeps,
  caller: Caller,
  body: IncomingMessage | ReadableStream<Uint8Array>,
  opts: { collection?: string } = {},
): Promise<ImportResult> {
  // Access is decided before a byte of the body is read.
  if (opts.collection) await requireWritableCollection(deps.sql, caller, opts.collection);
  else requireFullAccess(caller, 'create collections: import into a collection this key may write to with ?collection=');
  const source = body instanceof ReadableStream ? Readable.fromWeb(body as never) : body;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'docsift-import-'));
  const result = { imported: 0, already_present: 0, failed: [] as ImportResult['failed'] };
  try {
    const entries = readTar(source);
    const first = await entries.next();
    if (first.done || first.value.name !== MANIFEST_ENTRY) throw invalid(`its first entry must be ${MANIFEST_ENTRY}`);
    const manifest = path.join(dir, MANIFEST_ENTRY);
    await spool(first.value, manifest);
    const lines = createInterface({ input: createReadStream(manifest), crlfDelay: Number.POSITIVE_INFINITY })[Symbol.asyncIterator]();
    let n = 1;
    const headText = await lines.next();
    const head = headText.done ? undefined : parseLine<CollectionLine>(headText.value, n);
    if (head?.type !== 'collection' || head.format !== FORMAT || !head.collection?.uuid)
      throw invalid('its manifest has no collection line');
    if (head.version > VERSION) throw invalid(`it is format version ${head.version}; this docsift reads version ${VERSION} and older`);
    const target = await targetCollection(deps, caller, head, opts.collection);
    const nextLine = async (): Promise<DocumentLine | undefined> => {
      for (;;) {
        const r = await lines.next();
        if (r.done) return undefined;
        n++;
        if (!r.value.trim()) continue;
        const line = parseLine<DocumentLine>(r.value, n);
        if (line.type === 'document' && typeof line.uuid === 'string') return line;
      }
    };
    const count = (line: DocumentLine, o: Outcome) => {
      if (o.kind === 'imported') result.imported++;
      else if (o.kind === 'present') result.already_present++;
      else result.failed.push({ uuid: line.uuid, title: line.title, reason: o.reason });
    };
    // Files come in manifest order: the lines before a file's own (text, URL, or files the archive lacks) go first.
    for await (const entry of entries) {
      if (!FILE_ENTRY.test(entry.name)) continue;
      for (let line = await nextLine(); line; line = await nextLine()) {
        const mine = line.file === entry.name;
        count(line, await importDocument(deps, caller, target.id, line, mine ? entry.body : undefined));
        if (mine) break;
      }
    }
    for (let line = await nextLine(); line; line = await nextLine())
      count(line, await importDocument(deps, caller, target.id, line, undefined));
    const collection = collectionToJson(await getVisibleCollection(deps.sql, caller, target.id), deps.config.TEXT_SEARCH_CONFIG);
    return { collection, created_collection: target.created, ...result };
  } catch (err) {
    if (err instanceof TarFormatError) {
      const why = `${err.message}; ${result.imported} document(s) were imported before it, and importing the whole archive again adds the rest`;
      throw new AppError('VALIDATION_FAILED', `The archive cannot be read: ${why}.`, { _body: [why] });
    }
    throw err;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
