// Display formatting for the web UI: one place, so every page writes numbers and dates alike.

const nf = new Intl.NumberFormat('en-US');
const nf1 = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

export const count = (n: number): string => nf.format(n);

/** The noun for a count: "1 document", "2 documents", "0 documents". */
export const noun = (n: number, one: string, many = `${one}s`): string => (n === 1 ? one : many);

/** 1234 → "1.2k", 3_400_000 → "3.4M": axis labels and tight stat lines. */
export function compact(n: number): string {
  const a = Math.abs(n);
  if (a >= 1e9) return `${nf1.format(n / 1e9)}B`;
  if (a >= 1e6) return `${nf1.format(n / 1e6)}M`;
  if (a >= 1e4) return `${nf1.format(n / 1e3)}k`;
  return nf.format(n);
}

export function ms(n: number): string {
  if (n >= 1000) return `${nf1.format(n / 1000)} s`;
  return `${n >= 100 ? Math.round(n) : nf1.format(n)} ms`;
}

export function percent(part: number, whole: number): string {
  if (!whole) return '0%';
  const p = (part / whole) * 100;
  return `${p > 0 && p < 0.1 ? '<0.1' : nf1.format(p)}%`;
}

export function money(cents: number, currency = 'usd'): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100);
}

/** Millicents per query → "$0.002". */
export function ratePerQuery(millicents: number | null): string {
  if (millicents === null) return 'no overage';
  return `$${(millicents / 100_000).toFixed(3)} per query`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${nf1.format(n / 1024)} KiB`;
  if (n < 1024 ** 3) return `${nf1.format(n / 1024 ** 2)} MiB`;
  return `${nf1.format(n / 1024 ** 3)} GiB`;
}

/** UTC, to the minute: the server has no idea of the viewer's zone, and UTC matches the API. */
export function dateTime(d: Date | string | null | undefined): string {
  if (!d) return '—';
  const x = typeof d === 'string' ? new Date(d) : d;
  return `${x.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function date(d: Date | string | null | undefined): string {
  if (!d) return '—';
  return (typeof d === 'string' ? new Date(d) : d).toISOString().slice(0, 10);
}

/** "3 min ago", "in 29 days": relative to the service clock. */
export function relative(d: Date | string | null | undefined, now: Date): string {
  if (!d) return 'never';
  const t = (typeof d === 'string' ? new Date(d) : d).getTime();
  const diff = t - now.getTime();
  const a = Math.abs(diff);
  const unit = a < 60_000 ? null : a < 3_600_000 ? ['min', 60_000] : a < 86_400_000 ? ['h', 3_600_000] : ['day', 86_400_000];
  if (!unit) return diff < 0 ? 'just now' : 'in under a minute';
  const n = Math.round(a / (unit[1] as number));
  const label = unit[0] === 'day' ? (n === 1 ? 'day' : 'days') : unit[0];
  return diff < 0 ? `${n} ${label} ago` : `in ${n} ${label}`;
}

export const EXPIRY_LABELS: Record<string, string> = {
  '30d': '30 days',
  '90d': '90 days',
  '6m': '6 months',
  '1y': '1 year',
  never: 'Never',
};

export function truncate(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1).trimEnd()}…` : s;
}
