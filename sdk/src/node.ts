// Node-only additions: uploads by file path and directory walking. Kept out of the core entry so
// browser bundles never see `node:` imports.
import { openAsBlob } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { buildClient, type DocsiftClient } from './client.js';
import type { ClientOptions } from './transport.js';
import type { NamedBlob } from './upload.js';

export * from './index.js';

/** A file as a Blob backed by the file on disk (not read into memory), named after its base name. */
export async function fileFromPath(filePath: string): Promise<NamedBlob> {
  const info = await stat(filePath);
  if (!info.isFile()) throw new Error(`Not a file: ${filePath}`);
  return { name: path.basename(filePath), blob: await openAsBlob(filePath) };
}

/**
 * Every regular file under `dir`, recursively, sorted, skipping dot-files and dot-directories
 * (.git, .DS_Store) and node_modules.
 */
export async function filesInDirectory(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    const entries = await readdir(d, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const full = path.join(d, e.name);
      if (e.isDirectory()) await walk(full);
      else if (e.isFile()) out.push(full);
    }
  };
  await walk(dir);
  return out;
}

/** Same as the core `createClient`, plus uploads by file path (`documents.upload(uuid, './report.pdf')`). */
export function createClient(opts: ClientOptions): DocsiftClient {
  return buildClient(opts, fileFromPath);
}
