import createFetchClient, { type Client, type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import { errorFromResponse, ApiError, DocsiftError, TimeoutError } from './errors.js';
import type { paths as Paths } from './generated/schema.js';
import { connectionErrorFrom, DEFAULT_RETRY, retryDelayMs, shouldRetry, sleep, type RetryConfig } from './retry.js';

export interface ClientOptions {
  /** Where the service runs, e.g. `http://localhost:8080` (no `/api/v1`). */
  baseUrl: string;
  /** `svc_…` key; sent as `Authorization: Bearer`. */
  apiKey?: string | undefined;
  /** A fetch implementation; defaults to the global one. */
  fetch?: typeof fetch;
  /** Retries after the first attempt (default 2); see the policy in retry.ts and the README. */
  maxRetries?: number;
  /** Per-attempt timeout in ms (default 60 000). Uploads use `uploadTimeoutMs`. */
  timeoutMs?: number;
  /** Per-attempt timeout for uploads and replaces (default 10 minutes). */
  uploadTimeoutMs?: number;
  /** Longest Retry-After the client waits through before giving up with RateLimitError (default 60 000 ms). */
  maxRetryAfterMs?: number;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Called before each retry, e.g. to log "rate limited, waiting 12 s". */
  onRetry?: (info: { attempt: number; delayMs: number; error: DocsiftError; method: string; path: string }) => void;
}

export interface CallOptions {
  /** Safe to repeat after an ambiguous failure (see retry.ts). Defaults to true for GET/PATCH/DELETE. */
  idempotent?: boolean;
  timeoutMs?: number;
  signal?: AbortSignal | undefined;
}

/** What openapi-fetch resolves with. */
interface FetchResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

export type RawClient = Client<Paths>;

type Verb = 'get' | 'post' | 'patch' | 'delete';
/** The API paths that have an operation for a verb. */
export type PathsWith<V extends Verb> = { [P in keyof Paths]: Paths[P] extends Record<V, object> ? P : never }[keyof Paths];
type InitOf<V extends Verb, P extends PathsWith<V>> = MaybeOptionalInit<Paths[P], V>;
/**
 * A verb helper's options: openapi-fetch's (`params`, `body`, `parseAs`, …) and the call's
 * (`idempotent`, `timeoutMs`, `signal`), optional when the operation needs no parameters.
 */
type VerbArgs<V extends Verb, P extends PathsWith<V>> =
  undefined extends InitOf<V, P> ? [options?: NonNullable<InitOf<V, P>> & CallOptions] : [options: NonNullable<InitOf<V, P>> & CallOptions];
/** The parsed body of a successful response. */
export type DataOf<V extends Verb, P extends PathsWith<V>> = Exclude<
  FetchResponse<Paths[P][V] & Record<string, unknown>, NonNullable<InitOf<V, P>>, `${string}/${string}`>['data'],
  undefined
>;

/** Request core shared by every resource: timeouts, retries, typed errors. */
export class Transport {
  readonly raw: RawClient;
  readonly baseUrl: string;
  readonly retry: RetryConfig;
  readonly timeoutMs: number;
  readonly uploadTimeoutMs: number;
  readonly fetchImpl: typeof fetch;
  readonly onRetry: ClientOptions['onRetry'];
  readonly authHeaders: Record<string, string>;

  constructor(opts: ClientOptions) {
    if (!opts.baseUrl) throw new TypeError('createClient: baseUrl is required, e.g. "http://localhost:8080".');
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
    this.retry = {
      ...DEFAULT_RETRY,
      maxRetries: opts.maxRetries ?? DEFAULT_RETRY.maxRetries,
      maxRetryAfterMs: opts.maxRetryAfterMs ?? DEFAULT_RETRY.maxRetryAfterMs,
    };
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.uploadTimeoutMs = opts.uploadTimeoutMs ?? 600_000;
    // Resolved per call rather than captured, so a fetch patched after createClient (tests, polyfills) is honoured.
    this.fetchImpl = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.onRetry = opts.onRetry;
    this.authHeaders = { ...(opts.apiKey ? { Authorization: `Bearer ${opts.apiKey}` } : {}), ...opts.headers };
    this.raw = createFetchClient<Paths>({ baseUrl: this.baseUrl, fetch: this.fetchImpl, headers: this.authHeaders });
  }

  /**
   * Runs one API call with the retry policy. `fn` performs the request through the raw openapi-fetch
   * client (rebuilding the body each time, so a FormData of Blobs is sent whole on every attempt).
   * Resolves with the parsed body and the response; rejects with a DocsiftError subclass.
   */
  async call<R extends FetchResult>(
    method: string,
    path: string,
    fn: (init: { signal: AbortSignal }) => Promise<R>,
    opts: CallOptions = {},
  ): Promise<{ data: Exclude<R['data'], undefined>; response: Response }> {
    const idempotent = opts.idempotent ?? method !== 'POST';
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    for (let attempt = 0; ; attempt++) {
      let error: DocsiftError;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new TimeoutError(`${method} ${path} timed out after ${timeoutMs} ms`)), timeoutMs);
      const onAbort = () => controller.abort(opts.signal!.reason);
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        if (opts.signal?.aborted) throw opts.signal.reason;
        const r = await fn({ signal: controller.signal });
        if (r.response.ok || (r.response.status >= 300 && r.response.status < 400)) {
          return { data: r.data as Exclude<R['data'], undefined>, response: r.response };
        }
        error = errorFromResponse(r.response, r.error);
      } catch (err) {
        if (opts.signal?.aborted) throw opts.signal.reason;
        if (controller.signal.aborted && controller.signal.reason instanceof TimeoutError) error = controller.signal.reason;
        else if (err instanceof DocsiftError) throw err;
        else if (err instanceof SyntaxError)
          throw new DocsiftError(`${method} ${path}: the server sent a body that is not valid JSON`, { cause: err });
        else error = connectionErrorFrom(err, this.baseUrl);
      } finally {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
      }
      if (attempt >= this.retry.maxRetries || !shouldRetry(error, idempotent)) throw error;
      const retryAfter = error instanceof ApiError ? error.retryAfter : undefined;
      if (retryAfter !== undefined && retryAfter * 1000 > this.retry.maxRetryAfterMs) throw error;
      const delayMs = retryDelayMs(attempt, this.retry, retryAfter);
      this.onRetry?.({ attempt: attempt + 1, delayMs, error, method, path });
      await sleep(delayMs, opts.signal);
    }
  }

  // Verb helpers: each call site names its method and path once, as in openai-node
  // (`t.get('/api/v1/collections/{uuid}/', { params: { path: { uuid } }, ...opts })`).

  get<P extends PathsWith<'get'>>(path: P, ...args: VerbArgs<'get', P>): Promise<DataOf<'get', P>> {
    return this.send('get', path, args[0]).then((r) => r.data);
  }
  post<P extends PathsWith<'post'>>(path: P, ...args: VerbArgs<'post', P>): Promise<DataOf<'post', P>> {
    return this.send('post', path, args[0]).then((r) => r.data);
  }
  patch<P extends PathsWith<'patch'>>(path: P, ...args: VerbArgs<'patch', P>): Promise<DataOf<'patch', P>> {
    return this.send('patch', path, args[0]).then((r) => r.data);
  }
  delete<P extends PathsWith<'delete'>>(path: P, ...args: VerbArgs<'delete', P>): Promise<DataOf<'delete', P>> {
    return this.send('delete', path, args[0]).then((r) => r.data);
  }

  /** A GET that also resolves with the response (lists paginated by headers, redirects). */
  getWithResponse<P extends PathsWith<'get'>>(
    path: P,
    ...args: VerbArgs<'get', P>
  ): Promise<{ data: DataOf<'get', P>; response: Response }> {
    return this.send('get', path, args[0]);
  }

  /** A multipart POST; the form is built again for each attempt, so a retry sends every file whole. */
  async postForm(
    path: '/api/v1/collections/{uuid}/documents/' | '/api/v1/documents/{uuid}/replace/',
    uuid: string,
    form: () => FormData,
    opts: CallOptions,
  ): Promise<unknown> {
    const init = () => ({ params: { path: { uuid } }, body: form() as never, bodySerializer: (b: unknown) => b as FormData });
    return (await this.call('POST', path, (i) => this.raw.POST(path, { ...i, ...init() }), opts)).data;
  }

  private send<V extends Verb, P extends PathsWith<V>>(
    verb: V,
    path: P,
    options: (NonNullable<InitOf<V, P>> & CallOptions) | undefined,
  ): Promise<{ data: DataOf<V, P>; response: Response }> {
    const { idempotent, timeoutMs, signal, ...init } = options ?? ({} as CallOptions);
    const request = this.raw.request as (verb: V, path: P, init: object) => Promise<FetchResult>;
    return this.call(verb.toUpperCase(), path, (i) => request(verb, path, { ...init, ...i }), {
      idempotent,
      timeoutMs,
      signal,
    }) as Promise<{
      data: DataOf<V, P>;
      response: Response;
    }>;
  }

  /** Absolute URL of an API path (for links printed to users). */
  url(path: string): string {
    return new URL(path, this.baseUrl + '/').toString();
  }
}
