// Ids arriving in paths and bodies: checked before any query, so a malformed one is a plain 404.
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}

// Slugs only ever hold [a-z0-9-] (see slugify), so anything else matches nothing: answer 404 without
// a query. This also keeps NUL bytes, which PostgreSQL text rejects, away from the database.
const SLUG_RE = /^[a-z0-9][a-z0-9-]{0,199}$/;
export function isSlug(s: string): boolean {
  return SLUG_RE.test(s);
}
