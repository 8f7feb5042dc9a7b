import type { Command } from 'commander';
import type { Context } from './context.js';
import { UsageError } from './errors.js';

/**
 * One CLI command. Flag parsing (`parse`: commander's raw args and flags → typed options, throwing
 * UsageError) is separate from `run`, which only sees typed options, so commands can be exercised
 * without a command line and their validation stays in one place.
 */
export interface CommandDef<O> {
  /** Commander syntax: `upload <paths...>`, `show <collection>`. */
  name: string;
  summary: string;
  /** Extra help text (examples) shown by --help. */
  help?: string;
  aliases?: string[];
  options?: (cmd: Command) => void;
  parse: (args: string[], flags: Record<string, unknown>) => O;
  /** Returns the exit code (default 0). */
  // biome-ignore lint/suspicious/noConfusingVoidType: lets commands that always succeed return nothing
  run: (ctx: Context, opts: O) => Promise<number | void>;
}

export function defineCommand<O>(def: CommandDef<O>): CommandDef<O> {
  return def;
}

// Small parsing helpers shared by commands.

export function intFlag(value: unknown, name: string, { min = 1, max = Number.MAX_SAFE_INTEGER } = {}): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${name} must be a whole number between ${min} and ${max} (got "${String(value)}").`);
  return n;
}

export function choiceFlag<T extends string>(value: unknown, name: string, choices: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!choices.includes(value as T)) throw new UsageError(`${name} must be one of: ${choices.join(', ')} (got "${String(value)}").`);
  return value as T;
}

export function stringFlag(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Repeatable option collector for commander: `--tag a --tag b`, commas also split. */
export function collect(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ];
}

/** Repeatable option collector that keeps each value whole (`--meta note=a,b` is one pair). */
export function repeat(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
