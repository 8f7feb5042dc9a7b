// What every admin subcommand is built from: the context it runs in, its parsed arguments, the
// command shape (like the CLI's defineCommand) and the argument helpers the subcommands share.
import type { ParseArgsConfig } from 'node:util';
import { findUserByEmail } from '../accounts/queries.js';
import type { Config } from '../config.js';
import type { Sql } from '../db/client.js';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Clock, RateTier } from '../types.js';

export interface AdminContext {
  sql: Sql;
  config: Config;
  clock: Clock;
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
  /** Where set-password reads from; process.stdin when omitted. */
  in?: NodeJS.ReadableStream;
}

const TIERS = ['free', 'basic', 'pro'] as const;

/** What a subcommand's `run` gets besides the context: its parsed options and the output helpers. */
export interface AdminArgs {
  str(name: string): string | undefined;
  flag(name: string): boolean;
  /** The human text, or with --json the data as one JSON line. */
  print(human: string, data: unknown): void;
}

/** One admin subcommand, like the CLI's defineCommand: its options, its usage text and what it does. */
export interface AdminCommand {
  name: string;
  /** Its lines in the `admin --help` text. */
  usage: string;
  /** Argument lists shown under "Examples" in its --help. */
  examples: string[];
  options?: NonNullable<ParseArgsConfig['options']>;
  /** Returns the exit code (default 0); throws UsageError for exit 2. */
  // biome-ignore lint/suspicious/noConfusingVoidType: lets subcommands that always succeed return nothing
  run(ctx: AdminContext, a: AdminArgs): Promise<number | void>;
}

/** What `backup`, `restore` and the `pitr-…` subcommands get: they open the database themselves (main.ts neither opens nor migrates it first). */
export interface StandaloneContext {
  config: Config;
  clock: Clock;
  logger: Logger;
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream & { isTTY?: boolean };
}

export type StandaloneCommand = Omit<AdminCommand, 'run'> & {
  // biome-ignore lint/suspicious/noConfusingVoidType: as AdminCommand.run
  run(ctx: StandaloneContext, a: AdminArgs): Promise<number | void>;
};

/** A mistake on the command line: exit 2 with the message and the usage text. */
export class UsageError extends Error {}

export function required(a: AdminArgs, ...names: string[]): string[] {
  const values = names.map((n) => a.str(n));
  if (values.some((v) => !v)) {
    throw new UsageError(names.length === 1 ? `--${names[0]} is required.` : `${names.map((n) => `--${n}`).join(' and ')} are required.`);
  }
  return values as string[];
}

export function tierOption(a: AdminArgs): RateTier | undefined {
  const tier = a.str('tier');
  if (tier && !TIERS.includes(tier as RateTier)) throw new UsageError(`--tier must be one of ${TIERS.join(', ')}.`);
  return tier as RateTier | undefined;
}

export async function userByEmail(ctx: AdminContext, email: string, hint = '') {
  const user = await findUserByEmail(ctx.sql, email);
  if (!user) throw new AppError('VALIDATION_FAILED', `No user with email ${email}${hint}.`);
  return user;
}
