import { ApiError, AuthenticationError, ConnectionError, DocsiftError, TimeoutError } from '@docsift/sdk';

export const ExitCode = { OK: 0, ERROR: 1, USAGE: 2, AUTH: 4 } as const;

/** An error the CLI raises itself, with the exit code it implies. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = ExitCode.ERROR,
    readonly hint?: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** Wrong or missing arguments: exit 2. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.USAGE, hint, 'USAGE');
  }
}

/** The server runs on this machine (the CLI's own loopback address). */
function isLocal(baseUrl: string | undefined): boolean {
  if (!baseUrl) return false;
  try {
    const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\./.test(host);
  } catch {
    return false;
  }
}

/** Keys are shown (keys list, the web UI) and found (admin set-tier) by their first 12 characters. */
const keyPrefix = (apiKey: string | undefined) => (apiKey?.startsWith('svc_') ? apiKey.slice(0, 12) : 'svc_…');

/**
 * A 429: how long to wait, and who can raise the limit. The server marks rate-limit answers with
 * the tier hit (X-RateLimit-Tier) and, when the caller administers it, X-RateLimit-Admin; a
 * self-hosted operator is then given the command instead of being told to ask an administrator.
 */
function rateLimitHint(err: ApiError, baseUrl: string | undefined, apiKey: string | undefined): string {
  const wait =
    err.retryAfter !== undefined ? `Wait ${formatWait(err.retryAfter)} (Retry-After) and try again.` : 'Wait a moment and try again.';
  const tier = err.headers.get('x-ratelimit-tier');
  // Requests without a valid key count against a budget of their address, not of a user.
  if (!tier && !err.message.startsWith('Plan quota'))
    return `${wait} ${err.message.includes('without a valid API key') ? 'Check the API key: requests without a valid one share a small per-address budget.' : ''}`.trim();
  if (!tier)
    return `${wait} The organization's plan quota of searches is used up (\`docsift billing plan\` shows it); an administrator changes the plan with \`docsift-daemon admin set-plan --org <organization uuid> --plan starter|pro\`.`;
  if (tier === 'pro')
    return `${wait} This key is on the Pro tier, the highest; all keys of one user share its per-minute, per-day and per-month limits.`;
  const cmd = `admin set-tier --key ${keyPrefix(apiKey)} --tier pro`;
  if (err.headers.get('x-ratelimit-admin') === 'true')
    return isLocal(baseUrl)
      ? `${wait} You administer this server: raise this key's tier (now ${tier}) with \`npm run -s daemon -- ${cmd}\` in the docsift folder (\`docsift-daemon ${cmd}\` where it is installed; \`--email <user>\` instead of --key raises all of a user's keys).`
      : `${wait} You administer this server: raise this key's tier (now ${tier}) on its host with \`docsift-daemon ${cmd}\` (\`npm run -s daemon -- ${cmd}\` in a docsift folder).`;
  return `${wait} All keys of one user share the per-minute, per-day and per-month limits of the key's tier (${tier}); ask an administrator of this server to raise it: \`docsift-daemon ${cmd}\`.`;
}

/** Hints for the codes people most often hit, phrased as the next command to run. */
function hintFor(err: ApiError, baseUrl?: string, apiKey?: string): string | undefined {
  switch (err.code) {
    case 'API_KEY_EXPIRED':
      return 'This key has expired. Renew it from another valid key with `docsift keys expire <key> --in 90d` (a new expiry revives it), or log in with a new key: `docsift login`.';
    case 'INVALID_API_KEY':
      return 'The key is unknown, revoked or was rotated. Log in with a current key: `docsift login` (or fix DOCSIFT_API_KEY).';
    case 'AUTHENTICATION_REQUIRED':
      return 'No API key was sent. Run `docsift login` or set DOCSIFT_API_KEY.';
    case 'USER_ACCOUNT_DISABLED':
      return 'The account that owns this key is disabled; ask an administrator.';
    case 'RATE_LIMIT_EXCEEDED':
      return rateLimitHint(err, baseUrl, apiKey);
    case 'WRITE_ACCESS_REQUIRED':
      return 'This key has no write grant on the collection. With a full-access key run `docsift keys grant <key> <collection> --permission write`, or use a full-access key.';
    case 'SCOPED_KEY_FORBIDDEN':
      return 'Scoped keys cannot do this. Use a full-access key (e.g. `docsift --profile <name> …`).';
    case 'NOT_COLLECTION_OWNER':
      return 'Only the owner of the collection may change or delete it.';
    case 'COLLECTION_NOT_FOUND':
      return 'See `docsift collections list` for the collections this key can see (search filters take the slug).';
    case 'DOCUMENT_NOT_FOUND':
      return 'See `docsift docs list` for the documents this key can see.';
    case 'WEBHOOK_NOT_CONFIGURED':
      return 'Configure one first: `docsift webhooks set <url>`.';
    case 'WEBHOOK_TEST_FAILED': {
      // The server reached the receiver, which answered an error: the address is fine, the receiver is not.
      const status = /answered HTTP (\d{3})/.exec(err.message)?.[1];
      if (status)
        return `The server reached the receiver, which answered HTTP ${status}: the receiver itself failed or refused the event; check its logs${status === '401' || status === '403' ? ' (a receiver that verifies signatures needs the current secret: `docsift webhooks rotate-secret`)' : ''}. \`docsift webhooks deliveries\` shows each attempt.`;
      return 'The receiver did not answer 2xx in time. It must be reachable from the server; a localhost URL needs ALLOW_PRIVATE_URLS=true on the daemon (development), otherwise use a public tunnel. `docsift webhooks deliveries` shows each attempt.';
    }
    case 'SEARCH_UNAVAILABLE':
      return 'The search backend is temporarily unavailable; try again shortly.';
    case 'UPLOAD_FAILED':
      return err.retryAfter !== undefined
        ? `The server could not store the file (its blob store is unavailable); nothing was stored. Try again in ${formatWait(err.retryAfter)} (DOCSIFT_MAX_RETRIES sets how often a command retries by itself).`
        : `The server could not store the file${err.requestId ? `; quote request id ${err.requestId} when reporting it` : ''}.`;
    case 'UNSUPPORTED_FILE_TYPE':
      return 'Supported: pdf, docx, pptx, xlsx, odt, odp, ods, rtf, epub, html, md, txt, csv, json.';
    case 'SERVICE_UNAVAILABLE':
      return err.retryAfter !== undefined
        ? 'The server cannot reach its database right now; nothing was changed. Try again in a moment (DOCSIFT_MAX_RETRIES sets how often a command retries by itself).'
        : 'The server lost its database connection while handling this; it may or may not have taken effect. Check (e.g. `docsift docs list`) before repeating it.';
    default:
      if (err.status >= 500)
        return `Server error${err.requestId ? `; quote request id ${err.requestId} when reporting it` : ''}${baseUrl ? ` (${baseUrl})` : ''}.`;
      return undefined;
  }
}

export function formatWait(seconds: number): string {
  if (seconds < 90) return `${Math.ceil(seconds)} s`;
  if (seconds < 5400) return `${Math.ceil(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

export interface ErrorReport {
  message: string;
  code?: string;
  status?: number;
  fields?: Record<string, string[]>;
  request_id?: string;
  retry_after?: number;
  hint?: string;
  exitCode: number;
}

/** Turns anything thrown into what is printed and the exit code. */
export function describeError(err: unknown, baseUrl?: string, apiKey?: string): ErrorReport {
  if (err instanceof CliError)
    return {
      message: err.message,
      ...(err.code ? { code: err.code } : {}),
      ...(err.hint ? { hint: err.hint } : {}),
      exitCode: err.exitCode,
    };
  if (err instanceof ApiError) {
    const hint = hintFor(err, baseUrl, apiKey);
    return {
      message: err.message,
      code: err.code,
      status: err.status,
      ...(err.fields ? { fields: err.fields } : {}),
      ...(err.requestId ? { request_id: err.requestId } : {}),
      ...(err.retryAfter !== undefined ? { retry_after: err.retryAfter } : {}),
      ...(hint ? { hint } : {}),
      exitCode: err instanceof AuthenticationError ? ExitCode.AUTH : ExitCode.ERROR,
    };
  }
  if (err instanceof TimeoutError)
    return {
      message: err.message,
      code: 'TIMEOUT',
      hint: 'The server is slow or unreachable; try again, or raise --timeout where the command has one.',
      exitCode: ExitCode.ERROR,
    };
  if (err instanceof ConnectionError) {
    return {
      message: err.message,
      code: 'CONNECTION_FAILED',
      hint: `Is the server running${baseUrl ? ` at ${baseUrl}` : ''}? Set the address with --url, DOCSIFT_URL or \`docsift login --url <url>\`.`,
      exitCode: ExitCode.ERROR,
    };
  }
  if (err instanceof DocsiftError) return { message: err.message, code: err.name, exitCode: ExitCode.ERROR };
  if (err && typeof err === 'object' && (err as { name?: string }).name === 'ExitPromptError')
    return { message: 'Cancelled.', code: 'CANCELLED', exitCode: ExitCode.ERROR };
  return { message: err instanceof Error ? err.message : String(err), exitCode: ExitCode.ERROR };
}
