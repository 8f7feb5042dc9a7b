import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { requireFullAccess } from '../auth/access.js';
import type { Tx } from '../db/client.js';
import { AppError, validationError } from '../errors.js';
import { isPrivateAddress, UnsafeUrlError, validatePublicUrl } from '../net/ssrf.js';
import type { AppDeps, Caller } from '../types.js';
import { sealWebhookSecret } from './secrets.js';

export const WEBHOOK_URL_MAX = 2048;
const SECRET_PREFIX = 'whsec_';
/** A slow resolver must not hold the request: after this, the URL is accepted and delivery re-checks it. */
const CONFIG_DNS_TIMEOUT_MS = 2000;

export interface WebhookRow {
  id: string;
  organization_id: string;
  url: string;
  /** Sealed (webhooks/secrets.ts); openWebhookSecret gives the secret to sign with. */
  secret: string;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface WebhookJson {
  configured: boolean;
  url: string | null;
  is_active: boolean;
}

/** 32 random bytes, base64url: `whsec_` + 43 characters. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

function webhookJson(w: WebhookRow | undefined): WebhookJson {
  return w ? { configured: true, url: w.url, is_active: w.is_active } : { configured: false, url: null, is_active: false };
}

export async function webhookOfOrg(tx: Tx, organizationId: string): Promise<WebhookRow | undefined> {
  return (await webhooksOfOrgs(tx, [organizationId]))[0];
}

/** The webhooks of several organizations (at most one each), in one statement. */
export async function webhooksOfOrgs(tx: Tx, organizationIds: string[]): Promise<WebhookRow[]> {
  return tx<WebhookRow[]>`select * from webhooks where organization_id = any(${organizationIds}::uuid[])`;
}

export async function requireWebhook(tx: Tx, organizationId: string): Promise<WebhookRow> {
  const w = await webhookOfOrg(tx, organizationId);
  if (!w)
    throw new AppError('WEBHOOK_NOT_CONFIGURED', 'No webhook is configured for this organization. Create one with POST /api/v1/webhooks/.');
  return w;
}

async function resolvesPrivate(host: string): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), CONFIG_DNS_TIMEOUT_MS)));
  try {
    const answer = await Promise.race([lookup(host, { all: true }).catch(() => null), timeout]);
    return answer?.find((a) => isPrivateAddress(a.address))?.address ?? null;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Refuses URLs a server must not call: non-http(s), credentials, over 2,048 characters, and
 * private/loopback/link-local targets, both literal and (unless the name does not resolve yet)
 * by DNS answer. Delivery checks again at connect time, which is what defeats DNS rebinding.
 */
export async function validateWebhookUrl(deps: AppDeps, raw: string): Promise<string> {
  let url: URL;
  try {
    url = validatePublicUrl(raw, { allowPrivate: deps.config.ALLOW_PRIVATE_URLS, maxLength: WEBHOOK_URL_MAX });
  } catch (err) {
    if (err instanceof UnsafeUrlError) throw validationError({ url: [err.message] }, `Webhook URL refused: ${err.message}`);
    throw err;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!deps.config.ALLOW_PRIVATE_URLS && !ipaddr.isValid(host)) {
    const bad = await resolvesPrivate(host);
    if (bad) {
      const msg = `${host} resolves to a private address (${bad}); private, loopback and link-local targets are not allowed.`;
      throw validationError({ url: [msg] }, `Webhook URL refused: ${msg}`);
    }
  }
  return url.toString();
}

export async function getWebhookConfig(deps: AppDeps, caller: Caller): Promise<WebhookJson> {
  requireFullAccess(caller, 'read webhook configuration');
  return webhookJson(await webhookOfOrg(deps.sql, caller.orgId));
}

/** Creates the organization's webhook (secret returned once) or changes the URL of the existing one. */
export async function putWebhook(
  deps: AppDeps,
  caller: Caller,
  rawUrl: string,
): Promise<{ created: boolean; body: WebhookJson & { secret?: string } }> {
  requireFullAccess(caller, 'configure webhooks');
  const url = await validateWebhookUrl(deps, rawUrl);
  const now = deps.clock.now();
  const secret = newWebhookSecret();
  // One statement, so two concurrent first POSTs cannot both create: the loser updates instead.
  const rows = await deps.sql<(WebhookRow & { inserted: boolean })[]>`
    insert into webhooks (organization_id, url, secret, created_at, updated_at)
    values (${caller.orgId}, ${url}, ${sealWebhookSecret(deps.config.SIGNING_SECRET, caller.orgId, secret)}, ${now}, ${now})
    on conflict (organization_id) do update set url = excluded.url, updated_at = excluded.updated_at
    returning *, (xmax = 0) as inserted`;
  const row = rows[0]!;
  return row.inserted ? { created: true, body: { ...webhookJson(row), secret } } : { created: false, body: webhookJson(row) };
}

export async function setWebhookActive(deps: AppDeps, caller: Caller, isActive: boolean): Promise<WebhookJson> {
  requireFullAccess(caller, 'configure webhooks');
  const rows = await deps.sql<WebhookRow[]>`
    update webhooks set is_active = ${isActive}, updated_at = ${deps.clock.now()} where organization_id = ${caller.orgId} returning *`;
  if (!rows[0]) await requireWebhook(deps.sql, caller.orgId);
  return webhookJson(rows[0]);
}

export async function rotateWebhookSecret(deps: AppDeps, caller: Caller): Promise<WebhookJson & { secret: string }> {
  requireFullAccess(caller, 'configure webhooks');
  const secret = newWebhookSecret();
  const rows = await deps.sql<WebhookRow[]>`
    update webhooks set secret = ${sealWebhookSecret(deps.config.SIGNING_SECRET, caller.orgId, secret)}, updated_at = ${deps.clock.now()}
     where organization_id = ${caller.orgId} returning *`;
  const row = rows[0] ?? (await requireWebhook(deps.sql, caller.orgId));
  return { ...webhookJson(row), secret };
}

/** Idempotent. Queued deliveries find no webhook (they look it up by id) and stop without sending. */
export async function deleteWebhook(deps: AppDeps, caller: Caller): Promise<{ configured: false; deleted: boolean }> {
  requireFullAccess(caller, 'configure webhooks');
  const rows = await deps.sql`delete from webhooks where organization_id = ${caller.orgId} returning id`;
  return { configured: false, deleted: rows.length > 0 };
}
