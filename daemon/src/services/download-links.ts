import { createHmac, timingSafeEqual } from 'node:crypto';

export const DOWNLOAD_LINK_TTL_SEC = 3600;

function sign(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(`download:${payload}`).digest('base64url');
}

/** `<payload>.<signature>`: the payload names the document, its file generation and the expiry (unix seconds). */
export function createDownloadToken(secret: string, documentId: string, generation: number, expiresAt: number): string {
  const payload = Buffer.from(`${documentId}:${generation}:${expiresAt}`).toString('base64url');
  return `${payload}.${sign(secret, payload)}`;
}

export function verifyDownloadToken(secret: string, token: string, nowSec: number): { documentId: string; generation: number } | null {
  const [payload, sig] = token.split('.');
  if (!payload || !sig) return null;
  const expected = Buffer.from(sign(secret, payload));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  const [documentId, gen, exp] = Buffer.from(payload, 'base64url').toString('utf8').split(':');
  if (!documentId || !gen || !exp || Number(exp) < nowSec) return null;
  return { documentId, generation: Number(gen) };
}
