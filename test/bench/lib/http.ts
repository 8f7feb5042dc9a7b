// Minimal API client for benchmarks: real fetch over loopback, with the time each call took.
export interface TimedResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
  /** wall time from sending to the full body, ms */
  ms: number;
}

export type ApiCall = <T = unknown>(
  method: string,
  path: string,
  opts?: { json?: unknown; body?: FormData; timeoutMs?: number },
) => Promise<TimedResponse<T>>;

export function apiClient(baseUrl: string, key: string): ApiCall {
  return async <T>(method: string, p: string, opts: { json?: unknown; body?: FormData; timeoutMs?: number } = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    let body: BodyInit | undefined = opts.body;
    if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.json);
    }
    const started = performance.now();
    const res = await fetch(baseUrl + p, { method, headers, body: body ?? null, signal: AbortSignal.timeout(opts.timeoutMs ?? 120_000) });
    const text = await res.text();
    const ms = performance.now() - started;
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        /* keep text */
      }
    }
    return { status: res.status, body: parsed as T, headers: res.headers, ms };
  };
}

/** Throws with the response body when the status is not the expected one. */
export function expectStatus<T>(r: TimedResponse<T>, status: number, what: string): TimedResponse<T> {
  if (r.status !== status)
    throw new Error(`${what}: HTTP ${r.status} ${typeof r.body === 'string' ? r.body : JSON.stringify(r.body)}`.slice(0, 2000));
  return r;
}
