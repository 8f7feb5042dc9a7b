// Shared tools of the chaos tests: raw multipart bodies, raw HTTP over a socket, and the leak checks
// (files under the blob store, file descriptors this process holds open there).
import { readdir, readlink } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';

export interface Part {
  name: string;
  filename?: string;
  type?: string;
  data: Buffer | string;
  /** Replaces the generated part headers (for malformed parts). */
  rawHeaders?: string;
}

/** A multipart/form-data body; `close: false` leaves out the closing boundary. */
export function multipartBody(boundary: string, parts: Part[], opts: { close?: boolean } = {}): Buffer {
  const out: Buffer[] = [];
  for (const p of parts) {
    const headers =
      p.rawHeaders ??
      `Content-Disposition: form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}\r\n` +
        (p.type ? `Content-Type: ${p.type}\r\n` : '');
    out.push(Buffer.from(`--${boundary}\r\n${headers}\r\n`), Buffer.from(p.data), Buffer.from('\r\n'));
  }
  if (opts.close !== false) out.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(out);
}

/** Every regular file under `<dataDir>/blobs`, as keys relative to it (temp files included). */
export async function blobFiles(dataDir: string): Promise<string[]> {
  const root = path.join(dataDir, 'blobs');
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name)))
    .sort();
}

/** File descriptors of this process that point under `dir` (Linux /proc). */
export async function openFdsUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const fd of await readdir('/proc/self/fd').catch(() => [] as string[])) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (target.startsWith(dir)) out.push(target);
  }
  return out;
}

/** Polls `fn` until it returns something other than undefined; fails after `ms`. */
export async function until<T>(fn: () => Promise<T | undefined> | T | undefined, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A raw HTTP/1.1 request over a fresh socket: the test controls every byte and when the connection ends. */
export function rawRequest(url: string, head: { method: string; path: string; headers: Record<string, string> }) {
  const u = new URL(url);
  const socket = net.connect(Number(u.port), u.hostname);
  const lines = [`${head.method} ${head.path} HTTP/1.1`, `Host: ${u.host}`, ...Object.entries(head.headers).map(([k, v]) => `${k}: ${v}`)];
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  const chunks: Buffer[] = [];
  socket.on('data', (c) => chunks.push(c));
  socket.on('error', () => {});
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  return {
    socket,
    write: (b: Buffer | string) => new Promise<void>((r) => socket.write(b, () => r())),
    /** Everything the server sent, once it closed the connection or `ms` passed. */
    async response(ms = 5000): Promise<string> {
      await Promise.race([closed, new Promise((r) => setTimeout(r, ms))]);
      return Buffer.concat(chunks).toString('latin1');
    },
  };
}
