// Rows written straight into a database at an older migration, for the upgrade tests: what the
// daemon of that time would have written, without its code.
import type postgres from 'postgres';
import { generateApiKey } from '../../daemon/src/auth/keys.js';

/** An organization with its owner, a full-access key and one collection (slug = label). */
export async function insertTenant(sql: postgres.Sql, label: string): Promise<{ key: string; collection: string; org: string }> {
  const [org] = await sql<{ id: string }[]>`insert into organizations (name) values (${label}) returning id`;
  const [user] = await sql<{ id: string }[]>`
    insert into users (organization_id, email, role) values (${org!.id}, ${`${label}@example.test`}, 'owner') returning id`;
  const k = generateApiKey();
  await sql`insert into api_keys (user_id, name, prefix, key_hash, is_full_access) values (${user!.id}, 'k', ${k.prefix}, ${k.hash}, true)`;
  const [c] = await sql<{ id: string }[]>`
    insert into collections (owner_id, organization_id, name, slug) values (${user!.id}, ${org!.id}, ${label}, ${label}) returning id`;
  return { key: k.key, collection: c!.id, org: org!.id };
}
