import { ApiError, AuthenticationError, DocsiftError } from '@docsift/sdk';
import { defineCommand } from '../../command.js';
import { readConfig, updateProfile, writeConfig } from '../../config.js';
import { DEFAULT_URL, type Context } from '../../context.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { describeKey } from './whoami.js';

interface Options {
  apiKeyStdin: boolean;
  setDefault: boolean;
}

async function readStdin(ctx: Context): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
}

export default defineCommand<Options>({
  name: 'login',
  summary: 'Save a server URL and API key as a profile, after checking the key works',
  help: `The key is read from (first found): --api-key-stdin, DOCSIFT_API_KEY, or a hidden prompt on a TTY.
The profile is stored in the user config dir with file mode 0600.

Examples:
  docsift login                                   # prompts for URL and key
  docsift login --url https://search.example.com  # prompts for the key
  echo "$KEY" | docsift login --api-key-stdin --profile ci`,
  options: (cmd) => cmd.option('--api-key-stdin', 'read the key from standard input').option('--default', 'make this profile the default'),
  parse: (_args, flags) => ({ apiKeyStdin: !!flags.apiKeyStdin, setDefault: !!flags.default }),
  async run(ctx, opts) {
    const config = await readConfig(ctx.configFile);
    const profileName = ctx.globals.profile ?? ctx.env.DOCSIFT_PROFILE ?? config.default_profile ?? 'default';
    const existing = config.profiles[profileName];
    let url = ctx.globals.url ?? ctx.env.DOCSIFT_URL ?? existing?.url;
    if (!url && ctx.interactive) {
      const { input } = await import('@inquirer/prompts');
      url = await input({ message: 'Server URL', default: DEFAULT_URL });
    }
    url = (url ?? DEFAULT_URL).replace(/\/+$/, '');

    let key: string | undefined;
    if (opts.apiKeyStdin) key = await readStdin(ctx);
    else key = ctx.env.DOCSIFT_API_KEY || undefined;
    if (!key) {
      key = await ctx.prompt('API key', '--api-key-stdin or DOCSIFT_API_KEY', async () => {
        const { password } = await import('@inquirer/prompts');
        return password({ message: 'API key (svc_…)', mask: '•' });
      });
    }
    key = key.trim();
    if (!key) throw new UsageError('The API key is empty.');

    let current: Awaited<ReturnType<ReturnType<Context['makeClient']>['keys']['current']>>;
    try {
      current = await ctx.makeClient(url, key).keys.current();
    } catch (err) {
      if (err instanceof AuthenticationError)
        throw new CliError(
          `The server at ${url} refused this key: ${err.message}`,
          ExitCode.AUTH,
          'Check the key (keys start with svc_) or create one on the API Keys page.',
          err.code,
        );
      // An HTML page (the web UI at /app/, a proxy's page) instead of the API's JSON: wrong base URL.
      if (err instanceof DocsiftError && !(err instanceof ApiError) && err.cause instanceof SyntaxError) {
        const origin = new URL(url).origin;
        throw new CliError(
          `${url} is not the docsift API: it answered with something other than JSON (a web page?).`,
          ExitCode.ERROR,
          origin !== url
            ? `Use the server's base URL, not the web UI's: docsift login --url ${origin}`
            : 'Use the address the daemon printed at start (the API base URL, e.g. http://127.0.0.1:8080), not a web page or proxy.',
          'NOT_DOCSIFT_API',
        );
      }
      throw err;
    }
    const saved = await updateProfile(profileName, { url, api_key: key }, ctx.configFile);
    if (opts.setDefault && saved.default_profile !== profileName)
      await writeConfig({ ...saved, default_profile: profileName }, ctx.configFile);

    ctx.out.result({ profile: profileName, url, config_path: ctx.configFile, ...current }, () => {
      ctx.out.line(`${ctx.out.green('✓')} Logged in to ${url} as ${current.user.email} (${current.organization.name}).`);
      ctx.out.line(`  Key ${describeKey(current)} saved to profile "${profileName}" in ${ctx.configFile}.`);
    });
  },
});
