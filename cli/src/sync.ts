// What `docs sync` decides, kept apart from the requests that carry it out. A local file's key is
// its path relative to the synced folder, with `/` separators; the service keeps that path as the
// document's original_filename (a relative path sent as the part's file name). A document whose
// key matches is the same file: unchanged when content_sha256 equals the file's SHA-256, replaced
// (same uuid) otherwise. Only file documents take part: text and URL documents are left alone.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { MAX_FILE_BYTES, type DocumentListItem } from '@docsift/sdk';
import { filesInDirectory } from '@docsift/sdk/node';
import { SYNC_EXTENSIONS } from './file-types.js';

export interface LocalFile {
  /** Relative path with `/` separators: the document's original_filename. */
  key: string;
  path: string;
  size: number;
}

export type RemoteDoc = Pick<
  DocumentListItem,
  'uuid' | 'original_filename' | 'content_sha256' | 'file_size' | 'source_type' | 'created_at' | 'status'
>;

export interface Pair {
  file: LocalFile;
  doc: RemoteDoc;
}

export interface Removal {
  doc: RemoteDoc;
  /** `gone`: no local file has its key; `duplicate`: another document holds the key. */
  reason: 'gone' | 'duplicate';
}

export interface SyncPlan {
  upload: LocalFile[];
  replace: Pair[];
  unchanged: Pair[];
  /** Removals carried out (with --delete). */
  delete: Removal[];
  /** Removals --delete would make, left alone without it. */
  kept: Removal[];
  /** Left out before sending, with the code the service would have refused them with. */
  skipped: { file: LocalFile; reason: string; code: 'UNSUPPORTED_FILE_TYPE' | 'FILE_TOO_LARGE' }[];
}

/** The same key the service derives from a relative path (it also turns `\` into `/`). */
export function syncKey(relative: string): string {
  return relative.split(path.sep).join('/').replace(/\\/g, '/');
}

/** Every file under `dir` that a sync considers (dot-files and node_modules are left out), sorted by key. */
export async function localFiles(dir: string): Promise<LocalFile[]> {
  const files = await filesInDirectory(dir);
  const out: LocalFile[] = [];
  for (const f of files) out.push({ key: syncKey(path.relative(dir, f)), path: f, size: (await stat(f)).size });
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

export function hashFile(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(file)
      .on('data', (b) => h.update(b))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });
}

function whyNotSent(f: LocalFile): Omit<SyncPlan['skipped'][number], 'file'> | undefined {
  const dot = f.key.lastIndexOf('.');
  const ext = dot > f.key.lastIndexOf('/') ? f.key.slice(dot + 1).toLowerCase() : '';
  if (!SYNC_EXTENSIONS.has(ext)) return { reason: 'unsupported file type (not sent)', code: 'UNSUPPORTED_FILE_TYPE' };
  if (f.size > MAX_FILE_BYTES) return { reason: 'larger than 50 MiB (not sent)', code: 'FILE_TOO_LARGE' };
  return undefined;
}

/**
 * Compares a folder with a collection's documents. Files are hashed only when a document with the
 * same key and size has a hash to compare with (a different size is a change without reading).
 * Of several documents with one key (left by earlier plain uploads), the oldest whose content
 * matches is kept, else the oldest, which is replaced; the others are duplicates.
 */
export async function planSync(
  local: LocalFile[],
  remote: RemoteDoc[],
  opts: { delete: boolean; hash?: (f: LocalFile) => Promise<string> },
): Promise<SyncPlan> {
  const hash = opts.hash ?? ((f: LocalFile) => hashFile(f.path));
  const plan: SyncPlan = { upload: [], replace: [], unchanged: [], delete: [], kept: [], skipped: [] };
  const byKey = new Map<string, RemoteDoc[]>();
  for (const d of remote) {
    if (d.source_type === 'text' || d.source_type === 'url') continue;
    byKey.set(d.original_filename, [...(byKey.get(d.original_filename) ?? []), d]);
  }
  for (const docs of byKey.values()) docs.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.uuid.localeCompare(b.uuid));
  const remove = (doc: RemoteDoc, reason: Removal['reason']) => (opts.delete ? plan.delete : plan.kept).push({ doc, reason });

  const seen = new Set<string>();
  for (const file of local) {
    const notSent = whyNotSent(file);
    if (notSent) {
      plan.skipped.push({ file, ...notSent });
      continue;
    }
    seen.add(file.key);
    const docs = byKey.get(file.key);
    if (!docs?.length) {
      plan.upload.push(file);
      continue;
    }
    const comparable = docs.filter((d) => d.content_sha256 && d.file_size === file.size);
    const digest = comparable.length ? await hash(file) : undefined;
    const same = digest ? docs.find((d) => d.content_sha256 === digest) : undefined;
    const keeper = same ?? docs[0]!;
    (same ? plan.unchanged : plan.replace).push({ file, doc: keeper });
    for (const d of docs) if (d !== keeper) remove(d, 'duplicate');
  }
  // A key whose only local file was skipped still has its file: its documents are left alone.
  const present = new Set(local.map((f) => f.key));
  for (const [key, docs] of byKey) if (!seen.has(key) && !present.has(key)) for (const d of docs) remove(d, 'gone');
  return plan;
}
