import { PagePromise } from '../pagination.js';
import type { CallOptions, Transport } from '../transport.js';
import type { RequestLogEntry, UsageQuery, UsageStats } from '../types.js';

export interface UsageParams extends Omit<UsageQuery, 'days'> {
  /** Whole days from 1 to 90 (default 30); 7, 30 and 90 are the usual periods. */
  days?: number;
}

const query = ({ days, ...rest }: UsageParams): UsageQuery => ({ ...rest, ...(days !== undefined ? { days } : {}) });

export function usageResource(t: Transport) {
  const get = async (p: UsageParams = {}, opts?: CallOptions): Promise<UsageStats> =>
    (await t.call('GET', '/api/v1/keys/usage/', (init) => t.raw.GET('/api/v1/keys/usage/', { ...init, params: { query: query(p) } }), opts))
      .data;
  const forKey = async (uuid: string, p: UsageParams = {}, opts?: CallOptions): Promise<UsageStats> =>
    (
      await t.call(
        'GET',
        '/api/v1/keys/{uuid}/usage/',
        (init) => t.raw.GET('/api/v1/keys/{uuid}/usage/', { ...init, params: { path: { uuid }, query: query(p) } }),
        opts,
      )
    ).data;
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
        const path = key ? '/api/v1/keys/{uuid}/usage/' : '/api/v1/keys/usage/';
        const { data, response } = await t.call(
          'GET',
          path,
          (init) =>
            key
              ? t.raw.GET('/api/v1/keys/{uuid}/usage/', { ...init, params: { path: { uuid: key }, query: query(params) } })
              : t.raw.GET('/api/v1/keys/usage/', { ...init, params: { query: query(params) } }),
          opts,
        );
        return { data: data.recent.items, response, nextCursor: data.recent.next_cursor };
      });
    },
  };
}

export type UsageResource = ReturnType<typeof usageResource>;
