import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Sql } from '../db/client.js';
import type { Logger } from '../logger.js';

/**
 * Webhook signing secrets at rest. Signing needs the secret itself (a hash would not do), so it is
 * encrypted: AES-256-GCM under a key derived from SIGNING_SECRET with HKDF-SHA256, the organization
 * id as associated data (a ciphertext copied into another organization's row does not open), stored
 * as `enc:v1:` + base64url(iv | ciphertext | tag). Migration 012 makes the database refuse any new
 * plaintext; rows written in plaintext by earlier versions are sealed by the daemon at start.
 */
const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class WebhookSecretUnreadableError extends Error {}

const keys = new Map<string, Buffer>();
function keyOf(signingSecret: string | undefined): Buffer {
  if (!signingSecret) throw new Error('SIGNING_SECRET is required to store webhook secrets.');
  let key = keys.get(signingSecret);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', signingSecret, 'docsift webhook secrets', 'aes-256-gcm v1', 32));
    keys.set(signingSecret, key);
  }
  return key;
}

export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

export function sealWebhookSecret(signingSecret: string | undefined, organizationId: string, secret: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyOf(signingSecret), iv);
  cipher.setAAD(Buffer.from(organizationId));
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

/** The secret to sign with. A plaintext value (only before the start-up sweep) is returned as is. */
export function openWebhookSecret(signingSecret: string | undefined, organizationId: string, stored: string): string {
  if (!isSealed(stored)) return stored;
  const raw = Buffer.from(stored.slice(PREFIX.length), 'base64url');
  try {
    if (raw.length <= IV_BYTES + TAG_BYTES) throw new Error('truncated');
    const decipher = createDecipheriv('aes-256-gcm', keyOf(signingSecret), raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(organizationId));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new WebhookSecretUnreadableError(
      'The webhook secret cannot be decrypted (SIGNING_SECRET changed since it was stored): rotate it with POST /api/v1/webhooks/rotate-secret/.',
    );
  }
}

/**
 * Seals every webhook secret still stored in plaintext (written before migration 012). Runs at
 * every start, before serving or delivering; idempotent, and safe with several processes starting
 * at once: each row is replaced only if it still holds the plaintext that was read.
 */
export async function sealPlaintextWebhookSecrets(sql: Sql, signingSecret: string | undefined, logger: Logger): Promise<number> {
  const rows = await sql<{ id: string; organization_id: string; secret: string }[]>`
    select id, organization_id, secret from webhooks where secret not like ${`${PREFIX}%`}`;
  let sealed = 0;
  for (const r of rows) {
    const done = await sql`
      update webhooks set secret = ${sealWebhookSecret(signingSecret, r.organization_id, r.secret)}
       where id = ${r.id} and secret = ${r.secret}`;
    sealed += done.count;
  }
  if (sealed) logger.info({ sealed }, 'encrypted webhook secrets that were stored in plaintext');
  return sealed;
}
