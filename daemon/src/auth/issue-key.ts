import type { Tx } from '../db/client.js';
import type { RateTier } from '../rate-tier.js';
import { expiryFrom, generateApiKey, insertKey, type ExpiryChoice, type KeyRecord } from './keys.js';

/** A new key's row and its secret: the one place a key is minted (bootstrap, first user, create, rotate). */
export interface IssuedKey {
  record: KeyRecord;
  /** The plaintext secret: returned once, never stored. */
  key: string;
}

export async function issueKey(
  tx: Tx,
  opts: {
    userId: string;
    name: string;
    isFullAccess: boolean;
    tier?: RateTier;
    expiresIn?: ExpiryChoice;
    rotatedFrom?: string | null;
    now: Date;
  },
): Promise<IssuedKey> {
  const { key, prefix, hash } = generateApiKey();
  const expiresIn = opts.expiresIn ?? 'never';
  const record = await insertKey(tx, {
    userId: opts.userId,
    name: opts.name,
    prefix,
    hash,
    isFullAccess: opts.isFullAccess,
    tier: opts.tier ?? 'free',
    expiresIn,
    expiresAt: expiryFrom(expiresIn, opts.now),
    rotatedFrom: opts.rotatedFrom ?? null,
    now: opts.now,
  });
  return { record, key };
}
