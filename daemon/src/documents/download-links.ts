import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const DOWNLOAD_LINK_TTL_SEC = 3600;

function sign(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(`download:${payload}`).digest('base64url');
}

/** Identifies one stored file: a replace stores a new blob (new link needed), a reprocess keeps it. */
export function blobTag(blobKey: string): string {
  return createHash('sha256').update(blobKey).digest('base64url').slice(0, 16);
}

/** `<payload>.<signature>`: the payload names the document, its stored file and the expiry (unix seconds). */
export function createDownloadToken(secret: string, documentId: string, blobKey: string, expiresAt: number): string {
  const payload = Buffer.from(`${documentId}:${blobTag(blobKey)}:${expiresAt}`).toString('base64url');
  return `${payload}.${sign(secret, payload)}`;
}

export function verifyDownloadToken(secret: string, token: string, nowSec: number): { documentId: string; blobTag: string } | null {
  const [payload, sig] = token.split('.');
  if (!payload || !sig) return null;
  const expected = Buffer.from(sign(secret, payload));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  const [documentId, tag, exp] = Buffer.from(payload, 'base64url').toString('utf8').split(':');
  if (!documentId || !tag || !exp || Number(exp) < nowSec) return null;
  return { documentId, blobTag: tag };
}
