import type { Tx } from '../db/client.js';
import { isUuid } from '../ids.js';

export interface UserRecord {
  id: string;
  organization_id: string;
  email: string;
  name: string;
  role: 'owner' | 'member';
  is_active: boolean;
  is_admin: boolean;
  created_at: Date;
}

export async function insertOrganization(tx: Tx, name: string): Promise<{ id: string; name: string }> {
  const rows = await tx<{ id: string; name: string }[]>`insert into organizations (name) values (${name}) returning id, name`;
  return rows[0]!;
}

export async function findOrganization(tx: Tx, idOrName: string): Promise<{ id: string; name: string } | undefined> {
  const rows = await tx<{ id: string; name: string }[]>`
    select id, name from organizations
     where ${isUuid(idOrName) ? tx`id = ${idOrName} or ` : tx``}name = ${idOrName}
     order by created_at limit 1`;
  return rows[0];
}

export async function insertUser(
  tx: Tx,
  u: { organizationId: string; email: string; name: string; role: 'owner' | 'member'; isAdmin: boolean },
): Promise<UserRecord> {
  const rows = await tx<UserRecord[]>`
    insert into users (organization_id, email, name, role, is_admin)
    values (${u.organizationId}, ${u.email}, ${u.name}, ${u.role}, ${u.isAdmin})
    returning id, organization_id, email, name, role, is_active, is_admin, created_at`;
  return rows[0]!;
}

export async function findUserByEmail(tx: Tx, email: string): Promise<UserRecord | undefined> {
  const rows = await tx<UserRecord[]>`
    select id, organization_id, email, name, role, is_active, is_admin, created_at from users where lower(email) = lower(${email})`;
  return rows[0];
}

export async function setUserActive(tx: Tx, userId: string, active: boolean): Promise<void> {
  await tx`update users set is_active = ${active} where id = ${userId}`;
}
