/** A key's rate tier: its per-minute, per-day and per-month limits are in limits/windows.ts. */
export type RateTier = 'free' | 'basic' | 'pro';
