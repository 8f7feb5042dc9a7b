// Rendering for people and for machines. Colour only on a TTY (and not with NO_COLOR); --json output
// is the API's own field names, one JSON document on stdout, nothing decorative.
import { styleText } from 'node:util';

type Style = Parameters<typeof styleText>[0];

export interface Column<T> {
  header: string;
  value: (row: T) => string;
  /** Truncate to this many characters. */
  max?: number;
  align?: 'left' | 'right';
  style?: (text: string, row: T) => string;
}

const ANSI_RE = /\x1b\[[0-9;]*m/g;
export const visibleLength = (s: string) => [...s.replace(ANSI_RE, '')].length;

export function truncate(s: string, max: number): string {
  const chars = [...s];
  return chars.length <= max ? s : chars.slice(0, Math.max(1, max - 1)).join('') + '…';
}

export class Output {
  constructor(
    readonly stdout: NodeJS.WriteStream,
    readonly stderr: NodeJS.WriteStream,
    /** stdout shows decoration: a TTY and not --json. */
    readonly rich: boolean,
    readonly color: boolean,
    readonly json: boolean,
  ) {}

  static create(json: boolean, env: NodeJS.ProcessEnv = process.env): Output {
    const rich = !json && !!process.stdout.isTTY;
    const color = (rich && !env.NO_COLOR) || (!!env.FORCE_COLOR && env.FORCE_COLOR !== '0');
    return new Output(process.stdout, process.stderr, rich, color, json);
  }

  paint(style: Style, text: string): string {
    return this.color ? styleText(style, text) : text;
  }
  bold = (t: string) => this.paint('bold', t);
  dim = (t: string) => this.paint('dim', t);
  green = (t: string) => this.paint('green', t);
  red = (t: string) => this.paint('red', t);
  yellow = (t: string) => this.paint('yellow', t);
  cyan = (t: string) => this.paint('cyan', t);

  /** A line on stdout. */
  line(text = ''): void {
    this.stdout.write(text + '\n');
  }

  /** Diagnostics, progress notes and warnings: stderr, so stdout stays parseable. */
  note(text: string): void {
    this.stderr.write(text + '\n');
  }
  warn(text: string): void {
    this.stderr.write((this.stderr.isTTY && this.color ? styleText('yellow', 'warning: ') : 'warning: ') + text + '\n');
  }

  /** The machine-readable result: pretty JSON on stdout. */
  data(value: unknown): void {
    this.stdout.write(JSON.stringify(value, null, 2) + '\n');
  }

  /** A command's result: with --json the data (the API's own field names), otherwise `human` prints it. */
  result<T>(value: T, human: (value: T) => void): void {
    if (this.json) this.data(value);
    else human(value);
  }

  table<T>(rows: T[], columns: Column<T>[], empty = '(none)'): void {
    if (!rows.length) {
      this.line(this.dim(empty));
      return;
    }
    const cells = rows.map((r) => columns.map((c) => (c.max ? truncate(c.value(r), c.max) : c.value(r))));
    const widths = columns.map((c, i) => Math.max(visibleLength(c.header), ...cells.map((row) => visibleLength(row[i]!))));
    const pad = (text: string, i: number) => {
      const gap = ' '.repeat(Math.max(0, widths[i]! - visibleLength(text)));
      return columns[i]!.align === 'right' ? gap + text : text + gap;
    };
    this.line(
      columns
        .map((c, i) => this.bold(pad(c.header, i)))
        .join('  ')
        .trimEnd(),
    );
    rows.forEach((row, r) => {
      this.line(
        columns
          .map((c, i) => {
            const text = pad(cells[r]![i]!, i);
            return c.style ? c.style(text, row) : text;
          })
          .join('  ')
          .trimEnd(),
      );
    });
  }

  /** Aligned "label  value" lines. */
  fields(pairs: [string, string | number | boolean | null | undefined][]): void {
    const width = Math.max(...pairs.map(([k]) => k.length));
    for (const [k, v] of pairs)
      this.line(`${this.dim(k.padEnd(width))}  ${v === null || v === undefined || v === '' ? this.dim('—') : String(v)}`);
  }
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/** "2026-03-01 14:02" in local time, or "never"/"—". */
export function formatDate(iso: string | null | undefined, none = '—'): string {
  if (!iso) return none;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** "in 3 days", "2 hours ago". */
export function relativeTime(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  const diff = new Date(iso).getTime() - now;
  const abs = Math.abs(diff);
  const steps: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
  ];
  for (const [ms, unit] of steps) {
    if (abs >= ms) {
      const n = Math.round(abs / ms);
      const label = `${n} ${unit}${n === 1 ? '' : 's'}`;
      return diff > 0 ? `in ${label}` : `${label} ago`;
    }
  }
  return diff > 0 ? 'in under a minute' : 'just now';
}
