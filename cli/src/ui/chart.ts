// A terminal bar chart of daily request volume: one row per day (per week beyond 31 days).

export interface DayPoint {
  date: string;
  requests: number;
  errors: number;
}

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

export function hbar(value: number, max: number, width: number): string {
  if (max <= 0 || value <= 0) return '';
  const units = (value / max) * width * 8;
  const full = Math.floor(units / 8);
  return '█'.repeat(full) + (EIGHTHS[Math.round(units % 8)] ?? '') || '▏';
}

/** Groups days into weeks (starting at the first day) when there are too many rows. */
export function bucket(points: DayPoint[], maxRows = 31): { label: string; requests: number; errors: number }[] {
  if (points.length <= maxRows) return points.map((p) => ({ label: p.date.slice(0, 10), requests: p.requests, errors: p.errors }));
  const out: { label: string; requests: number; errors: number }[] = [];
  for (let i = 0; i < points.length; i += 7) {
    const week = points.slice(i, i + 7);
    out.push({
      label: `${week[0]!.date.slice(0, 10)} +${week.length}d`,
      requests: week.reduce((n, p) => n + p.requests, 0),
      errors: week.reduce((n, p) => n + p.errors, 0),
    });
  }
  return out;
}

export function dailyChart(
  points: DayPoint[],
  width = 40,
  paint: { bar: (s: string) => string; err: (s: string) => string; dim: (s: string) => string } = {
    bar: (s) => s,
    err: (s) => s,
    dim: (s) => s,
  },
): string[] {
  const rows = bucket(points);
  const max = Math.max(0, ...rows.map((r) => r.requests));
  const labelWidth = Math.max(...rows.map((r) => r.label.length), 0);
  const numWidth = Math.max(...rows.map((r) => r.requests.toLocaleString('en-US').length), 1);
  return rows.map((r) => {
    const bar = hbar(r.requests, max, width);
    const count = r.requests.toLocaleString('en-US').padStart(numWidth);
    const errs = r.errors ? paint.err(` ${r.errors} err`) : '';
    return `${paint.dim(r.label.padEnd(labelWidth))} ${count} ${paint.bar(bar)}${errs}`;
  });
}
