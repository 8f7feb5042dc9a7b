import { createClient, type DocsiftClient } from '@docsift/sdk/node';
import type { Command } from 'commander';
import type { Agent } from 'undici';
import { configPath, readConfig, type ConfigFile, type Profile } from './config.js';
import { httpFetch } from './http-fetch.js';
import { CliError, ExitCode, UsageError } from './errors.js';
import { Output } from './output.js';
import { formatRetryWait, retryWait, sameWait, type RetryWait } from './retry-notice.js';
import { VERSION } from './version.js';

export const DEFAULT_URL = 'http://localhost:8080';

export interface GlobalOptions {
  json?: boolean;
  profile?: string;
  url?: string;
  color?: boolean;
}

export interface Credentials {
  url: string;
  apiKey: string | undefined;
  profileName: string;
  profile: Profile | undefined;
  /** Where the key came from, for whoami and error hints. */
  source: 'env' | 'profile' | 'none';
}

/**
 * Everything a command needs besides its own flags: output, configuration, credentials and the
 * SDK client. Precedence for the server and key: an explicit --profile (or DOCSIFT_PROFILE) wins;
 * otherwise DOCSIFT_URL / DOCSIFT_API_KEY override the default profile; --url overrides the address.
 */
export class Context {
  readonly out: Output;
  readonly configFile: string;
  /** The whole command tree, for commands that describe it (completion); set by the program. */
  program: Command | undefined;
  private config: ConfigFile | undefined;
  private clientInstance: DocsiftClient | undefined;
  /**
   * Bulk commands (sync, upload) share one connection pool for every request of the run (hundreds):
   * connections are kept alive 30 s between requests and shared by the concurrent uploads. Idle ones
   * do not keep the process alive (undici unrefs them). undici is imported only then: loading it
   * costs more than a one-request command's whole run, which httpFetch (node:http) serves.
   */
  private agent: Promise<Agent> | undefined;
  /** A live progress view on screen takes retry notices into its frame (a line beside it would break it). */
  private waitListener: ((w: RetryWait) => void) | undefined;
  private lastWait: RetryWait | undefined;

  constructor(
    readonly globals: GlobalOptions,
    readonly env: NodeJS.ProcessEnv = process.env,
    readonly stdin: NodeJS.ReadStream = process.stdin,
  ) {
    if (globals.color === false) env = { ...env, NO_COLOR: '1', FORCE_COLOR: '' };
    this.out = Output.create(!!globals.json, env);
    this.configFile = configPath(env);
  }

  get json(): boolean {
    return !!this.globals.json;
  }

  /** Prompts, spinners and live progress are allowed: both ends are terminals and output is not JSON. */
  get interactive(): boolean {
    return !this.json && !!this.stdin.isTTY && !!process.stdout.isTTY;
  }

  /**
   * Live progress on stderr (a TTY), never mixed into --json stdout. A terminal that reports no
   * size (some CI pseudo-terminals) gets log lines instead: a zero-width layout is unreadable.
   */
  get liveProgress(): boolean {
    return !!process.stderr.isTTY && !!process.stderr.columns && !this.json;
  }

  async loadConfig(): Promise<ConfigFile> {
    this.config ??= await readConfig(this.configFile);
    return this.config;
  }

  async credentials(): Promise<Credentials> {
    const config = await this.loadConfig();
    const explicit = this.globals.profile ?? this.env.DOCSIFT_PROFILE;
    const profileName = explicit ?? config.default_profile ?? 'default';
    const profile = config.profiles[profileName];
    if (explicit && !profile) {
      throw new CliError(
        `No profile named "${profileName}" in ${this.configFile}.`,
        ExitCode.AUTH,
        `Create it with \`docsift login --profile ${profileName}\`.`,
        'PROFILE_NOT_FOUND',
      );
    }
    const envKey = this.env.DOCSIFT_API_KEY || undefined;
    const envUrl = this.env.DOCSIFT_URL || undefined;
    const useEnv = !explicit;
    const apiKey = (useEnv ? envKey : undefined) ?? profile?.api_key;
    const url = this.globals.url ?? (useEnv ? envUrl : undefined) ?? profile?.url ?? envUrl ?? DEFAULT_URL;
    const source = useEnv && envKey ? 'env' : profile?.api_key ? 'profile' : 'none';
    return { url, apiKey, profileName, profile, source };
  }

  /** The SDK client for the resolved credentials; exit 4 with a hint when there is no key. */
  async client(opts: { pooled?: boolean } = {}): Promise<DocsiftClient> {
    if (this.clientInstance) return this.clientInstance;
    const c = await this.credentials();
    if (!c.apiKey)
      throw new CliError(
        'Not logged in: no API key configured.',
        ExitCode.AUTH,
        'Run `docsift login`, or set DOCSIFT_API_KEY (and DOCSIFT_URL).',
        'NOT_LOGGED_IN',
      );
    this.clientInstance = this.makeClient(c.url, c.apiKey, opts);
    return this.clientInstance;
  }

  makeClient(url: string, apiKey: string, opts: { pooled?: boolean } = {}): DocsiftClient {
    const pooled: typeof fetch = async (input, init) => {
      this.agent ??= import('undici').then(({ Agent }) => new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000 }));
      return fetch(input, { ...init, dispatcher: await this.agent } as RequestInit);
    };
    return createClient({
      baseUrl: url,
      apiKey,
      fetch: opts.pooled ? pooled : httpFetch,
      headers: { 'User-Agent': `docsift-cli/${VERSION}` },
      maxRetries: Number(this.env.DOCSIFT_MAX_RETRIES ?? 3),
      onRetry: ({ delayMs, error }) => this.retrying(retryWait(error, delayMs)),
    });
  }

  /** Routes retry notices to `listener` until it is removed (undefined). */
  onRetryWait(listener: ((w: RetryWait) => void) | undefined): void {
    this.waitListener = listener;
  }

  /**
   * The SDK is about to wait before repeating a request. Said once per wait: requests in flight
   * that hit the same limit together would otherwise each print the same line.
   */
  private retrying(w: RetryWait): void {
    if (this.waitListener) {
      this.waitListener(w);
      return;
    }
    if (this.json || sameWait(this.lastWait, w)) return;
    this.lastWait = w;
    this.out.note(this.out.dim(formatRetryWait(w)));
  }

  /** Throws a usage error (exit 2) unless prompting is possible; then runs the prompt. */
  async prompt<T>(what: string, flag: string, ask: () => Promise<T>): Promise<T> {
    if (!this.interactive) throw new UsageError(`Missing ${what}.`, `Pass ${flag}.`);
    return ask();
  }
}
