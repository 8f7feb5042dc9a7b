import { choiceFlag, defineCommand } from '../../command.js';
import { CliError } from '../../errors.js';
import { completionScript, SHELLS, type Shell } from '../../completion.js';

export default defineCommand<{ shell: Shell }>({
  name: 'completion <shell>',
  summary: 'Print a shell completion script (bash, zsh or fish) for commands, subcommands and options',
  help: `Examples:
  source <(docsift completion bash)                                  # this shell
  docsift completion bash > ~/.local/share/bash-completion/completions/docsift
  docsift completion zsh > "\${fpath[1]}/_docsift"
  docsift completion fish > ~/.config/fish/completions/docsift.fish`,
  parse: ([shell]) => ({ shell: choiceFlag<Shell>(shell, '<shell>', SHELLS)! }),
  async run(ctx, { shell }) {
    // The tree comes from the running program (importing program.ts here would be a circle).
    if (!ctx.program) throw new CliError('No command tree to describe.');
    const script = completionScript(shell, ctx.program);
    ctx.out.result({ shell, script }, () => ctx.out.stdout.write(script));
  },
});
