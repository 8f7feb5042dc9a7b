/** Patches postgres.js under `root` (see patch-postgres.mjs); one entry per connection.js found. */
export function patchPostgres(root: string): { file: string; status: string }[];
