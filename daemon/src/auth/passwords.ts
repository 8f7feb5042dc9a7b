import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * scrypt with N = 2^15, r = 8, p = 1: 32 MiB of memory per hash (memory-hard, OWASP's minimum
 * is 2^17 with r = 8 → 128 MiB; 2^15 keeps sign-in near 100 ms on a 2-core host while still
 * costing an attacker 32 MiB per guess). The parameters travel with each hash, so raising them
 * later only affects new hashes.
 */
export const SCRYPT_DEFAULTS = { log2N: 15, r: 8, p: 1 } as const;
const KEY_LEN = 32;
const SALT_LEN = 16;

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 1024;

function derive(password: string, salt: Buffer, o: { log2N: number; r: number; p: number }): Promise<Buffer> {
  const N = 2 ** o.log2N;
  // Node refuses scrypt above maxmem (default 32 MiB); 128·N·r is what it needs, plus headroom.
  const opts: ScryptOptions = { N, r: o.r, p: o.p, maxmem: 256 * N * o.r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LEN, opts, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string, o: { log2N: number; r: number; p: number } = SCRYPT_DEFAULTS): Promise<string> {
  const salt = randomBytes(SALT_LEN);
  const key = await derive(password, salt, o);
  return ['scrypt', o.log2N, o.r, o.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Constant-time check; a malformed stored hash simply never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [log2N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![log2N, r, p].every((n) => Number.isInteger(n) && n > 0) || log2N > 22 || r > 32 || p > 16) return false;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  if (expected.length !== KEY_LEN) return false;
  const key = await derive(password, salt, { log2N, r, p });
  return timingSafeEqual(key, expected);
}

// Verified when the email is unknown, so a sign-in takes as long whether or not the account exists.
let dummyHash: Promise<string> | undefined;
export async function burnPasswordCheck(password: string): Promise<void> {
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
  await verifyPassword(password, await dummyHash);
}

/** Problems with a new password, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN) return `Use at least ${PASSWORD_MIN} characters.`;
  if (password.length > PASSWORD_MAX) return `Use at most ${PASSWORD_MAX} characters.`;
  if (!password.trim()) return 'The password cannot be only spaces.';
  return null;
}
