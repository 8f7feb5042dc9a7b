import { parseArgs } from 'node:util';
import {
  type AdminArgs,
  type AdminCommand,
  type AdminContext,
  type StandaloneCommand,
  type StandaloneContext,
  UsageError,
} from './admin/command.js';
import { COMMANDS } from './admin/commands.js';
import { BACKUP_COMMANDS } from './backup/admin-commands.js';
import { PITR_COMMANDS } from './pitr/admin-commands.js';

const STANDALONE: StandaloneCommand[] = [...BACKUP_COMMANDS, ...PITR_COMMANDS];

export type { AdminContext, StandaloneContext };

type AnyCommand = AdminCommand | StandaloneCommand;
const ALL: AnyCommand[] = [...COMMANDS, ...STANDALONE];

const examplesOf = (c: AnyCommand) => c.examples.map((e) => `  docsift-daemon admin ${e}`).join('\n');

export const ADMIN_USAGE = `docsift-daemon admin <subcommand> [options]   (add --json for machine output)

${ALL.map((c) => c.usage).join('\n')}

Examples (from a clone: npm run -s daemon -- admin …; "admin <subcommand> --help" for each):
${COMMANDS.filter((c) => ['create-user', 'set-tier', 'set-password'].includes(c.name))
  .map((c) => examplesOf(c).split('\n')[0])
  .join('\n')}`;

/**
 * The answer to a help request (`admin`, `admin --help`, `admin help [sub]`, `admin <sub> --help`),
 * or undefined when argv asks for real work. Needs no database, so it is answered before connecting.
 */
export function adminHelp(argv: string[]): { code: number; out?: string; err?: string } | undefined {
  const [sub, ...rest] = argv;
  const isHelp = (a: string | undefined) => a === '--help' || a === '-h';
  let name: string | undefined;
  if (sub === undefined || isHelp(sub)) return { code: 0, out: ADMIN_USAGE };
  if (sub === 'help') name = rest[0];
  else if (rest.some(isHelp)) name = sub;
  else return undefined;
  if (name === undefined) return { code: 0, out: ADMIN_USAGE };
  const command = ALL.find((c) => c.name === name);
  if (!command) return { code: 2, err: `Unknown admin subcommand "${name}".\n\n${ADMIN_USAGE}` };
  return {
    code: 0,
    out: `docsift-daemon admin${command.usage.replace(/^ +/, ' ')}\n\nExamples:\n${examplesOf(command)}\n\nAdd --json for machine output (only the JSON result on stdout).`,
  };
}

/** Whether `sub` opens the database itself (backup, restore, pitr-…): main.ts neither opens nor migrates it first. */
export function isStandaloneAdmin(sub: string | undefined): boolean {
  return STANDALONE.some((c) => c.name === sub);
}

/** Runs one admin subcommand; returns the process exit code (0 ok, 1 error, 2 usage). */
export function runAdmin(ctx: AdminContext, argv: string[]): Promise<number> {
  return runCommand(COMMANDS, ctx, argv);
}

/** Runs `backup`, `restore` or a `pitr-…` subcommand, which open the database themselves. */
export function runStandaloneAdmin(ctx: StandaloneContext, argv: string[]): Promise<number> {
  return runCommand(STANDALONE, ctx, argv);
}

async function runCommand<C extends { out: NodeJS.WritableStream; err: NodeJS.WritableStream }>(
  // biome-ignore lint/suspicious/noConfusingVoidType: as AdminCommand.run
  commands: { name: string; options?: AdminCommand['options']; run(ctx: C, a: AdminArgs): Promise<number | void> }[],
  ctx: C,
  argv: string[],
): Promise<number> {
  const [sub, ...args] = argv;
  const usage = (msg: string) => {
    ctx.err.write(`${msg}\n\n${ADMIN_USAGE}\n`);
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
