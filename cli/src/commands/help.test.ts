// Every command's --help ends with examples: command lines that run the command itself.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CommandDef } from '../command.js';
import {
  authCommands,
  billingCommands,
  collectionCommands,
  docCommands,
  keyCommands,
  mcpCommands,
  topLevelCommands,
  webhookCommands,
} from './index.js';

const groups: [string, CommandDef<unknown>[]][] = [
  ['', [...authCommands, ...topLevelCommands]],
  ['collections', collectionCommands],
  ['docs', docCommands],
  ['keys', keyCommands],
  ['webhooks', webhookCommands],
  ['billing', billingCommands],
  ['mcp', mcpCommands],
];

describe('--help examples', () => {
  for (const [group, defs] of groups) {
    for (const def of defs) {
      const name = def.name.split(' ')[0]!;
      const full = group ? `${group} ${name}` : name;
      it(`docsift ${full} --help shows examples of itself`, () => {
        const m = /(?:^|\n)Examples?:\n((?: {2}.*\n?)+)/.exec(def.help ?? '');
        assert.ok(m, `no "Examples:" section in the help of ${full}`);
        const lines = m[1]!.split('\n').filter((l) => l.trim());
        assert.ok(lines.length >= 1);
        const aliases = [name, ...(def.aliases ?? [])].map((a) => (group ? `${group} ${a}` : a));
        for (const l of lines) {
          assert.match(l, /^ {2}(\S.*[\s(])?docsift /, `${full}: ${l}`);
          assert.ok(
            aliases.some((a) => l.includes(`docsift ${a}`)),
            `${full}: the example runs another command: ${l}`,
          );
        }
      });
    }
  }
});
