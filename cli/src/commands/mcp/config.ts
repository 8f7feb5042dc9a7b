import { choiceFlag, defineCommand } from '../../command.js';
import { CliError, ExitCode } from '../../errors.js';

type ClientKind = 'generic' | 'claude-desktop' | 'claude-code' | 'cursor' | 'vscode';
const KINDS: ClientKind[] = ['generic', 'claude-desktop', 'claude-code', 'cursor', 'vscode'];

/** Ready-to-paste configuration for MCP clients; Streamable HTTP where the client speaks it, else the mcp-remote bridge. */
export function mcpConfig(kind: ClientKind, mcpUrl: string, key: string, name = 'docsift'): unknown {
  const auth = `Bearer ${key}`;
  switch (kind) {
    case 'claude-desktop':
      // Claude Desktop's config file launches local (stdio) servers; mcp-remote bridges to HTTP.
      return {
        mcpServers: {
          [name]: {
            command: 'npx',
            // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote expands ${DOCSIFT_AUTH} from its env block
            args: ['-y', 'mcp-remote', mcpUrl, '--header', 'Authorization:${DOCSIFT_AUTH}'],
            env: { DOCSIFT_AUTH: auth },
          },
        },
      };
    case 'claude-code':
      return { command: `claude mcp add --transport http ${name} ${mcpUrl} --header "Authorization: ${auth}"` };
    case 'vscode':
      return { servers: { [name]: { type: 'http', url: mcpUrl, headers: { Authorization: auth } } } };
    case 'cursor':
    case 'generic':
      return { mcpServers: { [name]: { type: 'http', url: mcpUrl, headers: { Authorization: auth } } } };
  }
}

export default defineCommand<{ kind: ClientKind; placeholder: boolean }>({
  name: 'config',
  summary: 'Print MCP client configuration for this server and key (Claude Desktop, Claude Code, Cursor, VS Code, generic)',
  help: `The endpoint is <server>/mcp (Streamable HTTP) with tools search_documents, list_collections,
get_document_info and search_by_tag. The output embeds the API key unless --placeholder;
consider a scoped, read-only key: \`docsift keys create mcp --collection <slug>\`.

Examples:
  docsift mcp config --client claude-desktop
  docsift mcp config --client cursor --placeholder > .cursor/mcp.json`,
  options: (cmd) =>
    cmd.option('--client <kind>', KINDS.join(', '), 'generic').option('--placeholder', 'write <DOCSIFT_API_KEY> instead of the real key'),
  parse: (_a, flags) => ({ kind: choiceFlag<ClientKind>(flags.client, '--client', KINDS)!, placeholder: !!flags.placeholder }),
  async run(ctx, { kind, placeholder }) {
    const creds = await ctx.credentials();
    if (!creds.apiKey && !placeholder)
      throw new CliError(
        'Not logged in: no API key to put in the configuration.',
        ExitCode.AUTH,
        'Run `docsift login`, or pass --placeholder.',
        'NOT_LOGGED_IN',
      );
    const mcpUrl = `${creds.url.replace(/\/+$/, '')}/mcp`;
    const config = mcpConfig(kind, mcpUrl, placeholder ? '<DOCSIFT_API_KEY>' : creds.apiKey!);
    ctx.out.result(config, () => {
      // The configuration is JSON for people too, except Claude Code's, which is a command to run.
      if (kind === 'claude-code') ctx.out.line((config as { command: string }).command);
      else ctx.out.data(config);
      if (!placeholder) ctx.out.warn('This configuration contains your API key; keep it out of version control.');
    });
  },
});
