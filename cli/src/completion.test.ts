// The completion scripts, run by a real bash: COMP_WORDS as the shell would fill them in.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { UsageError } from './errors.js';
import { completionScript } from './completion.js';
import completion from './commands/shell/completion.js';
import { buildProgram } from './program.js';

const bash = completionScript('bash', buildProgram());

/** What bash offers for the last word of `line` (a trailing space means a new, empty word). */
function complete(line: string): string[] {
  const words = line.split(' ');
  const script = `${bash}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})
COMP_CWORD=${words.length - 1}
_docsift
printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean).sort();
}

describe('docsift completion', () => {
  it('bash completes commands, subcommands (aliases too) and the options of the command typed', () => {
    assert.deepEqual(complete('docsift d'), ['doc', 'docs', 'documents']);
    assert.deepEqual(complete('docsift docs s'), ['show', 'sync']);
    assert.deepEqual(complete('docsift doc upl'), ['upload']);
    assert.deepEqual(complete('docsift docs sync --d'), ['--delete', '--dry-run']);
    // Global options, positional arguments and option values before the cursor do not confuse it.
    assert.ok(complete('docsift --json docs sync ./handbook -c handbook --').includes('--delete'));
    assert.ok(complete('docsift --profile ci keys create ci-bot --').includes('--full-access'));
  });

  it('bash leaves option values and paths to file-name completion', () => {
    assert.deepEqual(complete('docsift docs upload -c '), []);
    assert.deepEqual(complete('docsift docs upload '), []);
    assert.deepEqual(complete('docsift --url '), []);
  });

  it('bash and fish complete the languages after --language', () => {
    assert.deepEqual(complete('docsift collections create Handbook --language ch'), ['chinese']);
    assert.ok(complete('docsift collections update handbook --language ').includes('thai'));
    assert.ok(complete('docsift collections update handbook --language ').includes('turkish'));
    const fish = completionScript('fish', buildProgram());
    assert.match(fish, /^complete -c docsift -n '[^']*create' -l language -r -f -a '[^']*\bjapanese\b[^']*' /m);
  });

  it('zsh reuses the bash function; fish gets its own lines; other shells are a usage error', () => {
    const zsh = completionScript('zsh', buildProgram());
    assert.match(zsh, /bashcompinit/);
    assert.match(zsh, /complete -o default -o bashdefault -F _docsift docsift/);
    const fish = completionScript('fish', buildProgram());
    assert.match(fish, /^complete -c docsift -n '__fish_seen_subcommand_from docs; and not __fish_seen_subcommand_from .*' -a 'sync'/m);
    assert.match(fish, /^complete -c docsift -n '__fish_seen_subcommand_from docs; and __fish_seen_subcommand_from sync' -l delete /m);
    assert.throws(() => completion.parse(['powershell'], {}), UsageError);
  });
});
