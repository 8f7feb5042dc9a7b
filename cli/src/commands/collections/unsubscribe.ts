import { defineCommand } from '../../command.js';

export default defineCommand<{ slug: string }>({
  name: 'unsubscribe <slug>',
  summary: 'Stop subscribing to a public collection',
  help: `Examples:
  docsift collections unsubscribe public-handbook`,
  parse: ([slug]) => ({ slug: slug! }),
  async run(ctx, { slug }) {
    const r = await (await ctx.client()).collections.unsubscribe(slug);
    ctx.out.result(r, () => ctx.out.line(`Unsubscribed from ${r.collection}.`));
  },
});
