// Shell completion scripts, generated from the command tree itself so they never fall behind it.
// Bash does the work (zsh runs the same function through bashcompinit); fish gets its own lines.
// Words that are not options, subcommands or option values fall back to file names.
import type { Command } from 'commander';
import { LANGUAGES } from './languages.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** The values an option takes, by long flag, where they are known ahead: completed instead of file names. */
const OPTION_VALUES: Record<string, readonly string[]> = { '--language': LANGUAGES };

export interface CommandNode {
  /** The name and its aliases. */
  names: string[];
  options: { long?: string; short?: string; takesValue: boolean; description: string; values?: readonly string[] }[];
  children: CommandNode[];
  description: string;
}

export function commandTree(cmd: Command): CommandNode {
  return {
    names: [cmd.name(), ...cmd.aliases()],
    description: cmd.description(),
    options: [
      ...cmd.options.map((o) => ({
        ...(o.long ? { long: o.long } : {}),
        ...(o.short ? { short: o.short } : {}),
        takesValue: o.required || o.optional,
        description: o.description,
        ...(o.long && OPTION_VALUES[o.long] ? { values: OPTION_VALUES[o.long] } : {}),
      })),
      { long: '--help', short: '-h', takesValue: false, description: 'display help' },
    ],
    children: cmd.commands.map((c) => commandTree(c)),
  };
}

function walk(node: CommandNode, visit: (n: CommandNode, paths: string[]) => void, prefixes: string[] = ['']): void {
  visit(node, prefixes);
  for (const child of node.children) {
    const paths = prefixes.flatMap((p) => child.names.map((n) => (p ? `${p} ${n}` : n)));
    walk(child, visit, paths);
  }
}

const words = (list: string[]) => list.join(' ');

export function bashScript(root: CommandNode): string {
  const cases: string[] = [];
  const known: string[] = [];
  // The word after an option whose values are known (--language): those values.
  const valueCases = new Map<string, string>();
  const valuedOf = (n: CommandNode) =>
    n.options.filter((o) => o.takesValue).flatMap((o) => [o.long, o.short].filter((x): x is string => !!x));
  // Options of the program itself (--profile, --url) are accepted after any subcommand too.
  const globalValued = valuedOf(root);
  walk(root, (n, paths) => {
    const flags = n.options.flatMap((o) => [o.long, o.short].filter((x): x is string => !!x));
    const valued = n === root ? globalValued : [...valuedOf(n), ...globalValued];
    const subs = n.children.flatMap((c) => c.names);
    for (const o of n.options) if (o.values) for (const f of [o.long, o.short]) if (f) valueCases.set(f, words([...o.values]));
    known.push(...paths);
    cases.push(
      `    ${paths.map((p) => `"${p}"`).join('|')}) subs="${words(subs)}"; flags="${words(flags)}"; valued=" ${words(valued)} " ;;`,
    );
  });
  return `# docsift completion for bash. Load it now:      source <(docsift completion bash)
# or for every shell: docsift completion bash > ~/.local/share/bash-completion/completions/docsift
_docsift() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" path="" w i
  local known=" ${known
    .filter(Boolean)
    .map((k) => k.replace(/ /g, '_'))
    .join(' ')} "
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ $w == -* ]] && continue
    local next="\${path:+\${path}_}$w"
    [[ $known == *" $next "* ]] && path="$next"
  done
  local subs="" flags="" valued=""
  case "\${path//_/ }" in
${cases.join('\n')}
  esac
  case "$prev" in
${[...valueCases].map(([flag, values]) => `    ${flag}) COMPREPLY=($(compgen -W "${values}" -- "$cur")); return ;;`).join('\n')}
  esac
  # The word after another option that takes a value: file names (the shell's default).
  if [[ $valued == *" $prev "* ]]; then
    COMPREPLY=()
  elif [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
  elif [[ -n $subs ]]; then
    COMPREPLY=($(compgen -W "$subs" -- "$cur"))
  else
    COMPREPLY=()
  fi
}
complete -o default -o bashdefault -F _docsift docsift
`;
}

export function zshScript(root: CommandNode): string {
  return `# docsift completion for zsh. Load it now:       source <(docsift completion zsh)
# or for every shell: docsift completion zsh > "\${fpath[1]}/_docsift" (then restart zsh)
autoload -U +X bashcompinit && bashcompinit
${bashScript(root)
  .split('\n')
  .filter((l) => !l.startsWith('# '))
  .join('\n')}`;
}

const fishQuote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

export function fishScript(root: CommandNode): string {
  const lines = [
    '# docsift completion for fish. Load it now: docsift completion fish | source',
    '# or for every shell: docsift completion fish > ~/.config/fish/completions/docsift.fish',
    'complete -c docsift -f',
  ];
  const condition = (path: string[]) =>
    path.length ? path.map((w) => `__fish_seen_subcommand_from ${w}`).join('; and ') : '__fish_use_subcommand';
  const visit = (n: CommandNode, trail: string[]) => {
    const cond = condition(trail);
    for (const c of n.children)
      lines.push(
        `complete -c docsift -n ${fishQuote(n.children.length && trail.length ? `${cond}; and not __fish_seen_subcommand_from ${n.children.flatMap((x) => x.names).join(' ')}` : cond)} -a ${fishQuote(c.names[0]!)} -d ${fishQuote(c.description)}`,
      );
    for (const o of n.options) {
      const parts = ['complete -c docsift', `-n ${fishQuote(cond)}`];
      if (o.long) parts.push(`-l ${o.long.replace(/^--/, '')}`);
      if (o.short) parts.push(`-s ${o.short.replace(/^-/, '')}`);
      if (o.values) parts.push(`-r -f -a ${fishQuote(o.values.join(' '))}`);
      else if (o.takesValue) parts.push('-r -F');
      parts.push(`-d ${fishQuote(o.description)}`);
      lines.push(parts.join(' '));
    }
    for (const c of n.children) visit(c, [...trail, c.names[0]!]);
  };
  visit(root, []);
  // Leaves that take paths (docs upload, sync, replace) complete files.
  lines.push(`complete -c docsift -n ${fishQuote(condition(['docs']))} -F`);
  return `${lines.join('\n')}\n`;
}

export function completionScript(shell: Shell, program: Command): string {
  const tree = commandTree(program);
  return shell === 'bash' ? bashScript(tree) : shell === 'zsh' ? zshScript(tree) : fishScript(tree);
}
