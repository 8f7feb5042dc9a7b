// Ink views of upload and indexing progress. Plain functions of their props, so
// ink-testing-library can render them without a terminal.
import { Box, Text } from 'ink';
import { createElement as h, type ReactElement } from 'react';
import { formatBytes } from '../output.js';

export interface UploadView {
  filesTotal: number;
  filesDone: number;
  bytesTotal: number;
  bytesDone: number;
  uploaded: number;
  /** Sync: files sent to replace a document (counted apart from new uploads, as its summary does). */
  replaced?: number | undefined;
  skipped: number;
  failed: number;
  elapsedMs: number;
  /** Why nothing moves right now, e.g. "rate limited — resuming in 57 s (…)". */
  notice?: string | undefined;
}

export interface WaitView {
  total: number;
  pending: number;
  indexed: number;
  failed: number;
  elapsedMs: number;
  notice?: string | undefined;
}

export function bar(fraction: number, width: number): string {
  const f = Math.max(0, Math.min(1, Number.isFinite(fraction) ? fraction : 1));
  const full = Math.round(f * width);
  return '█'.repeat(full) + '░'.repeat(width - full);
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

export function UploadProgressView(p: UploadView): ReactElement {
  const fraction = p.bytesTotal ? p.bytesDone / p.bytesTotal : p.filesTotal ? p.filesDone / p.filesTotal : 1;
  const rate = p.elapsedMs > 500 ? `${formatBytes(Math.round((p.bytesDone / p.elapsedMs) * 1000))}/s` : '';
  return h(
    Box,
    { flexDirection: 'column' },
    h(
      Box,
      null,
      h(Text, { color: 'cyan' }, 'Uploading '),
      h(Text, null, bar(fraction, 30)),
      h(Text, { bold: true }, ` ${Math.floor(fraction * 100)}%`),
    ),
    h(
      Text,
      null,
      `${p.filesDone}/${p.filesTotal} files · ${formatBytes(p.bytesDone)} / ${formatBytes(p.bytesTotal)}${rate ? ` · ${rate}` : ''} · ${seconds(p.elapsedMs)}`,
    ),
    h(
      Box,
      null,
      h(Text, { color: 'green' }, `${p.uploaded} uploaded`),
      h(Text, null, ' · '),
      ...(p.replaced !== undefined
        ? [h(Text, { color: 'yellow', dimColor: !p.replaced }, `${p.replaced} replaced`), h(Text, null, ' · ')]
        : []),
      h(Text, { color: p.skipped ? 'yellow' : undefined, dimColor: !p.skipped }, `${p.skipped} skipped`),
      h(Text, null, ' · '),
      h(Text, { color: p.failed ? 'red' : undefined, dimColor: !p.failed }, `${p.failed} failed`),
    ),
    p.notice ? h(Text, { color: 'yellow' }, p.notice) : null,
  );
}

export function WaitProgressView(p: WaitView): ReactElement {
  const settled = p.indexed + p.failed;
  return h(
    Box,
    { flexDirection: 'column' },
    h(
      Box,
      null,
      h(Text, { color: 'cyan' }, 'Indexing  '),
      h(Text, null, bar(p.total ? settled / p.total : 1, 30)),
      h(Text, null, ` ${p.pending} pending · `),
      h(Text, { color: 'green' }, `${p.indexed} indexed`),
      h(Text, null, ' · '),
      h(Text, { color: p.failed ? 'red' : undefined, dimColor: !p.failed }, `${p.failed} failed`),
      h(Text, { dimColor: true }, ` · ${seconds(p.elapsedMs)}`),
    ),
    p.notice ? h(Text, { color: 'yellow' }, p.notice) : null,
  );
}
