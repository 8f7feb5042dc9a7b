import { PagePromise } from '../pagination.js';
import type { CallOptions, Transport } from '../transport.js';
import type { RequestLogEntry, UsageQuery, UsageStats } from '../types.js';

export interface UsageParams extends Omit<UsageQuery, 'days'> {
  /** Whole days from 1 to 90 (default 30); 7, 30 and 90 are the usual periods. */
  days?: number;
}

const query = ({ days, ...rest }: UsageParams): UsageQuery => ({ ...rest, ...(days !== undefined ? { days } : {}) });

export function usageResource(t: Transport) {
  const get = (p: UsageParams = {}, opts?: CallOptions): Promise<UsageStats> =>
    t.get('/api/v1/keys/usage/', { params: { query: query(p) }, ...opts });
  const forKey = (uuid: string, p: UsageParams = {}, opts?: CallOptions): Promise<UsageStats> =>
    t.get('/api/v1/keys/{uuid}/usage/', { params: { path: { uuid }, query: query(p) }, ...opts });
  return {
    /**
     * Totals, daily series, per-key breakdown and the first page of the request log, for the
     * caller's organization (full-access keys) or user (scoped keys), over the last `days`.
     */
    get,
    /** The same report for one key. */
    forKey,
    /** The request log of the period, newest first, across pages (`recent.next_cursor`). */
    requests(p: UsageParams & { key?: string } = {}, opts?: CallOptions): PagePromise<RequestLogEntry> {
      const { key, ...rest } = p;
      return new PagePromise(async (cursor) => {
        const params = { ...rest, ...(cursor ? { cursor } : {}) };
        const data = await (key ? forKey(key, params, opts) : get(params, opts));
        return { data: data.recent.items, nextCursor: data.recent.next_cursor };
      });
    },
  };
}

export type UsageResource = ReturnType<typeof usageResource>;
