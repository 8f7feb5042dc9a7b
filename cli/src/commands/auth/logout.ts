import { defineCommand } from '../../command.js';
import { readConfig, writeConfig } from '../../config.js';
import { CliError } from '../../errors.js';

export default defineCommand<Record<string, never>>({
  name: 'logout',
  summary: 'Remove a saved profile (the key itself stays valid; revoke it with `docsift keys revoke`)',
  help: `Examples:
  docsift logout                      # the default profile
  docsift logout --profile staging`,
  parse: () => ({}),
  async run(ctx) {
    const config = await readConfig(ctx.configFile);
    const name = ctx.globals.profile ?? ctx.env.DOCSIFT_PROFILE ?? config.default_profile ?? 'default';
    if (!config.profiles[name]) throw new CliError(`No profile named "${name}".`);
    delete config.profiles[name];
    if (config.default_profile === name) delete config.default_profile;
    await writeConfig(config, ctx.configFile);
    ctx.out.result({ profile: name, removed: true }, () => ctx.out.line(`Removed profile "${name}" from ${ctx.configFile}.`));
  },
});
