import { defineCommand } from '../../command.js';

export default defineCommand<{ slug: string }>({
  name: 'subscribe <slug>',
  summary: "Subscribe to another user's public collection (it then shows up in lists and searches)",
  help: `Examples:
  docsift collections subscribe public-handbook`,
  parse: ([slug]) => ({ slug: slug! }),
  async run(ctx, { slug }) {
    const r = await (await ctx.client()).collections.subscribe(slug);
    ctx.out.result(r, () => ctx.out.line(`Subscribed to ${r.collection}.`));
  },
});
