/**
 * An HTTP Retry-After (RFC 9110 §10.2.3) in milliseconds: delta-seconds (a decimal fraction is read
 * too) or an HTTP date, never negative; null when absent or unreadable. The daemon's one reader of it,
 * for webhook receivers and embedding servers alike.
 */
export function parseRetryAfter(value: string | string[] | null | undefined, nowMs = Date.now()): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v?.trim()) return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}
