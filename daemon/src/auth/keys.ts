import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const KEY_PREFIX = 'svc_';
export const KEY_RANDOM_LENGTH = 40;
/** How many characters of the key are kept in clear for identification. */
export const KEY_DISPLAY_LENGTH = KEY_PREFIX.length + 8;

/** A CSPRNG string over base62, with rejection sampling so every character is uniform. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function generateApiKey(): { key: string; prefix: string; hash: Buffer } {
  const key = KEY_PREFIX + randomBase62(KEY_RANDOM_LENGTH);
  return { key, prefix: key.slice(0, KEY_DISPLAY_LENGTH), hash: hashApiKey(key) };
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

export function looksLikeApiKey(token: string): boolean {
  return (
    token.length === KEY_PREFIX.length + KEY_RANDOM_LENGTH &&
    token.startsWith(KEY_PREFIX) &&
    /^[A-Za-z0-9]+$/.test(token.slice(KEY_PREFIX.length))
  );
}

export const EXPIRY_CHOICES = ['30d', '90d', '6m', '1y', 'never'] as const;
export type ExpiryChoice = (typeof EXPIRY_CHOICES)[number];

/** Expiry instant for a choice, counted from `from`; months are calendar months. */
export function expiryFrom(choice: ExpiryChoice, from: Date): Date | null {
  const d = new Date(from.getTime());
  switch (choice) {
    case '30d':
      return new Date(d.getTime() + 30 * 86_400_000);
    case '90d':
      return new Date(d.getTime() + 90 * 86_400_000);
    case '6m':
      d.setUTCMonth(d.getUTCMonth() + 6);
      return d;
    case '1y':
      d.setUTCFullYear(d.getUTCFullYear() + 1);
      return d;
    case 'never':
      return null;
  }
}
