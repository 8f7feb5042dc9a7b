import { createWriteStream } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { defineCommand, stringFlag } from '../../command.js';
import { formatBytes } from '../../output.js';

/** The file name from Content-Disposition (RFC 6266 filename* first), reduced to a safe base name. */
export function dispositionName(header: string | null): string | undefined {
  if (!header) return undefined;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header)?.[1];
  const plain = /filename\s*=\s*"?([^";]+)"?/.exec(header)?.[1];
  let name: string | undefined;
  try {
    name = star ? decodeURIComponent(star) : plain;
  } catch {
    name = plain;
  }
  return name ? path.basename(name.replace(/\\/g, '/')) : undefined;
}

export default defineCommand<{ uuid: string; output: string | undefined; urlOnly: boolean }>({
  name: 'download <uuid>',
  summary: 'Download the original file (or print its signed, 1-hour URL with --url-only)',
  help: `Examples:
  docsift docs download 3f6c2a9e-0b1d-4c8e-9f27-5a4b3c2d1e0f -o downloads/
  docsift docs download 3f6c2a9e-0b1d-4c8e-9f27-5a4b3c2d1e0f -o - | less
  docsift docs download 3f6c2a9e-0b1d-4c8e-9f27-5a4b3c2d1e0f --url-only`,
  options: (cmd) =>
    cmd
      .option('-o, --output <path>', 'file or directory to write (default: original name in the current directory; - for stdout)')
      .option('--url-only', 'print the signed URL instead'),
  parse: ([uuid], flags) => ({ uuid: uuid!, output: stringFlag(flags.output), urlOnly: !!flags.urlOnly }),
  async run(ctx, { uuid, output, urlOnly }) {
    const client = await ctx.client();
    const url = await client.documents.downloadUrl(uuid);
    if (urlOnly) {
      ctx.out.result({ uuid, url }, () => ctx.out.line(url));
      return;
    }
    const res = await fetch(url);
    if (!res.ok || !res.body) throw new Error(`Download failed: HTTP ${res.status}`);
    if (output === '-') {
      await pipeline(Readable.fromWeb(res.body as never), process.stdout);
      return;
    }
    const name = dispositionName(res.headers.get('content-disposition')) ?? uuid;
    const isDir = output
      ? await stat(output).then(
          (s) => s.isDirectory(),
          () => false,
        )
      : false;
    // `-o newdir/` (a trailing separator) names a folder even before it exists; missing parents are made.
    const wantsDir = isDir || (!!output && /[\\/]$/.test(output));
    const target = output ? (wantsDir ? path.join(output, name) : output) : name;
    await mkdir(path.dirname(path.resolve(target)), { recursive: true });
    await pipeline(Readable.fromWeb(res.body as never), createWriteStream(target));
    const bytes = (await stat(target)).size;
    ctx.out.result({ uuid, path: path.resolve(target), bytes }, () => ctx.out.line(`Saved ${target} (${formatBytes(bytes)}).`));
  },
});
