// Node-only additions: uploads by file path, directory walking and an undici dispatcher. Kept out
// of the core entry so browser bundles never see `node:` imports; undici itself is the caller's
// (the SDK does not depend on it: Node's own fetch understands a dispatcher).
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

/** What the `undici` package's `Agent`, `Pool` or any other `Dispatcher` has; typed here so the SDK needs no undici. */
export interface FetchDispatcher {
  dispatch(options: never, handler: never): boolean;
}

export interface NodeClientOptions extends ClientOptions {
  /**
   * An undici dispatcher for every request, e.g. `new Agent({ keepAliveTimeout: 30_000, connections: 8 })`
   * from the `undici` package: its connection pool, keep-alive and connection limits instead of
   * Node's global ones. Given to fetch as its `dispatcher` option (Node's fetch is undici's).
   */
  dispatcher?: FetchDispatcher;
}

/**
 * Same as the core `createClient`, plus uploads by file path (`documents.upload(uuid, './report.pdf')`)
 * and an optional undici `dispatcher`.
 */
export function createClient(opts: NodeClientOptions): DocsiftClient {
  const { dispatcher, ...rest } = opts;
  if (!dispatcher) return buildClient(rest, fileFromPath);
  const base = rest.fetch;
  // Resolved per call like the core's default, so a fetch patched after createClient is still used.
  const fetchWith: typeof fetch = (input, init) => (base ?? globalThis.fetch)(input, { ...init, dispatcher } as RequestInit);
  return buildClient({ ...rest, fetch: fetchWith }, fileFromPath);
}
