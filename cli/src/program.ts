import { Command } from 'commander';
import type { CommandDef } from './command.js';
import { Context } from './context.js';
import { reportError } from './report.js';
import { VERSION } from './version.js';
import {
  authCommands,
  billingCommands,
  collectionCommands,
  docCommands,
  keyCommands,
  mcpCommands,
  topLevelCommands,
  webhookCommands,
} from './commands/index.js';

function addCommand<O>(parent: Command, def: CommandDef<O>): Command {
  const cmd = parent.command(def.name).description(def.summary);
  for (const a of def.aliases ?? []) cmd.alias(a);
  def.options?.(cmd);
  if (def.help) cmd.addHelpText('after', `\n${def.help}`);
  cmd.action(async (...actionArgs: unknown[]) => {
    const command = actionArgs[actionArgs.length - 1] as Command;
    const positional = actionArgs.slice(0, -2) as string[];
    const ctx = new Context(command.optsWithGlobals());
    let root = command;
    while (root.parent) root = root.parent;
    ctx.program = root;
    try {
      const opts = def.parse(positional, command.opts());
      process.exitCode = (await def.run(ctx, opts)) ?? 0;
    } catch (err) {
      process.exitCode = await reportError(ctx, err);
    }
  });
  return cmd;
}

function addGroup(program: Command, name: string, summary: string, defs: CommandDef<any>[], aliases: string[] = []): void {
  const group = program.command(name).description(summary);
  for (const a of aliases) group.alias(a);
  for (const def of defs) addCommand(group, def);
}

export function buildProgram(): Command {
  const program = new Command('docsift')
    .description('Command-line client for docsift, the self-hosted document search service.')
    .version(VERSION)
    .option('--json', 'machine-readable JSON on stdout (no colours, prompts or progress)')
    .option('-p, --profile <name>', 'use this saved profile (see `docsift login --profile`)')
    .option('--url <url>', 'server address, overriding the profile and DOCSIFT_URL')
    .option('--no-color', 'no colours')
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .addHelpText(
      'after',
      `
Configuration: \`docsift login\` saves a profile (URL + key, file mode 0600) in the user config dir
(override with DOCSIFT_CONFIG_DIR). DOCSIFT_URL and DOCSIFT_API_KEY override the default profile;
an explicit --profile wins over them.

Exit codes: 0 ok, 1 error, 2 usage, 4 authentication.`,
    );
  for (const def of [...authCommands, ...topLevelCommands]) addCommand(program, def);
  addGroup(program, 'collections', 'Create, inspect and share collections', collectionCommands, ['collection', 'col']);
  addGroup(program, 'docs', 'Upload, list, inspect and download documents', docCommands, ['documents', 'doc']);
  addGroup(program, 'keys', 'Manage API keys and their collection grants', keyCommands, ['key']);
  addGroup(program, 'webhooks', "Configure, test and receive the organization's webhook", webhookCommands, ['webhook']);
  addGroup(program, 'billing', 'Plan, quota and invoices', billingCommands);
  addGroup(program, 'mcp', 'Model Context Protocol client configuration', mcpCommands);
  return program;
}
