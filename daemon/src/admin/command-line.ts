// The `admin …` command line over a table of subcommands: help, usage and running one. The table
// itself is the root's admin-registry.ts, so the feature folders own their subcommands.
import { parseArgs } from 'node:util';
import {
  type AdminArgs,
  type AdminCommand,
  type AdminContext,
  type StandaloneCommand,
  type StandaloneContext,
  UsageError,
} from './command.js';

type AnyCommand = AdminCommand | StandaloneCommand;

export interface AdminCommandLine {
  /** The usage text of every subcommand, with a few examples. */
  usage: string;
  /**
   * The answer to a help request (`admin`, `admin --help`, `admin help [sub]`, `admin <sub> --help`),
   * or undefined when argv asks for real work. Needs no database, so it is answered before connecting.
   */
  help(argv: string[]): { code: number; out?: string; err?: string } | undefined;
  /** Whether `sub` opens the database itself (backup, restore, pitr-…): main.ts neither opens nor migrates it first. */
  isStandalone(sub: string | undefined): boolean;
  /** Runs one admin subcommand; returns the process exit code (0 ok, 1 error, 2 usage). */
  run(ctx: AdminContext, argv: string[]): Promise<number>;
  /** Runs `backup`, `restore` or a `pitr-…` subcommand, which open the database themselves. */
  runStandalone(ctx: StandaloneContext, argv: string[]): Promise<number>;
}

/** The command line of `commands` (run on a migrated database) and `standalone` (open it themselves). */
export function createAdminCommandLine(commands: AdminCommand[], standalone: StandaloneCommand[]): AdminCommandLine {
  const all: AnyCommand[] = [...commands, ...standalone];
  const examplesOf = (c: AnyCommand) => c.examples.map((e) => `  docsift-daemon admin ${e}`).join('\n');

  const usage = `docsift-daemon admin <subcommand> [options]   (add --json for machine output)

${all.map((c) => c.usage).join('\n')}

Examples (from a clone: npm run -s daemon -- admin …; "admin <subcommand> --help" for each):
${commands
  .filter((c) => ['create-user', 'set-tier', 'set-password'].includes(c.name))
  .map((c) => examplesOf(c).split('\n')[0])
  .join('\n')}`;

  function help(argv: string[]): { code: number; out?: string; err?: string } | undefined {
    const [sub, ...rest] = argv;
    const isHelp = (a: string | undefined) => a === '--help' || a === '-h';
    let name: string | undefined;
    if (sub === undefined || isHelp(sub)) return { code: 0, out: usage };
    if (sub === 'help') name = rest[0];
    else if (rest.some(isHelp)) name = sub;
    else return undefined;
    if (name === undefined) return { code: 0, out: usage };
    const command = all.find((c) => c.name === name);
    if (!command) return { code: 2, err: `Unknown admin subcommand "${name}".\n\n${usage}` };
    return {
      code: 0,
      out: `docsift-daemon admin${command.usage.replace(/^ +/, ' ')}\n\nExamples:\n${examplesOf(command)}\n\nAdd --json for machine output (only the JSON result on stdout).`,
    };
  }

  return {
    usage,
    help,
    isStandalone: (sub) => standalone.some((c) => c.name === sub),
    run: (ctx, argv) => runCommand(commands, usage, ctx, argv),
    runStandalone: (ctx, argv) => runCommand(standalone, usage, ctx, argv),
  };
}

async function runCommand<C extends { out: NodeJS.WritableStream; err: NodeJS.WritableStream }>(
  // biome-ignore lint/suspicious/noConfusingVoidType: as AdminCommand.run
  commands: { name: string; options?: AdminCommand['options']; run(ctx: C, a: AdminArgs): Promise<number | void> }[],
  usageText: string,
  ctx: C,
  argv: string[],
): Promise<number> {
  const [sub, ...args] = argv;
  const usage = (msg: string) => {
    ctx.err.write(`${msg}\n\n${usageText}\n`);
    return 2;
  };
  const command = commands.find((c) => c.name === sub);
  if (!command) return usage(`Unknown admin subcommand "${sub ?? ''}".`);
  // Not strict: an option another subcommand takes is ignored.
  const { values } = parseArgs({ args, strict: false, options: { ...command.options, json: { type: 'boolean' } } });
  const json = values.json === true;
  const a: AdminArgs = {
    str: (k) => (typeof values[k] === 'string' ? (values[k] as string) : undefined),
    flag: (k) => values[k] === true,
    print: (human, data) => ctx.out.write(json ? JSON.stringify(data) + '\n' : human + '\n'),
  };
  try {
    return (await command.run(ctx, a)) ?? 0;
  } catch (err) {
    if (err instanceof UsageError) return usage(err.message);
    ctx.err.write(`error: ${(err as Error).message}\n`);
    return 1;
  }
}
