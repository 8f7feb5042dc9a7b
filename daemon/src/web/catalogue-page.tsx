// The public catalogue: every public collection, with subscribe and unsubscribe (the API's use cases).
import type { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import type { Session } from '../auth/sessions.js';
import { listPublicCatalogue, subscribe, unsubscribe } from '../collections/service.js';
import type { AppDeps } from '../types.js';
import { field, page, type WebEnv } from './context.js';
import { count, noun, truncate } from './format.js';
import { Badge, Csrf, Layout, Notice, PageHead } from './layout.js';

type Entry = Awaited<ReturnType<typeof listPublicCatalogue>>[number];

const DONE: Record<string, string> = {
  subscribed: 'Subscribed: the collection now appears among your collections and in your searches.',
  unsubscribed: 'Unsubscribed: the collection left your collections and searches, and your keys lost their grants on it.',
};

const CataloguePage: FC<{ session: Session; entries: Entry[]; done?: string }> = ({ session, entries, done }) => (
  <Layout title="Public catalogue" session={session} active="catalogue">
    <PageHead
      title="Public catalogue"
      lead="Collections their owners made public. Subscribe to read and search one alongside your own; only its owner can change it."
    />
    {done && DONE[done] ? <Notice tone="info">{DONE[done]}</Notice> : null}
    {entries.length === 0 ? <div class="card empty">No public collections yet.</div> : null}
    <div class="collections">
      {entries.map((e) => (
        <article class="card collection" aria-labelledby={`pub-${e.id}`}>
          <div class="section-head">
            <h3 id={`pub-${e.id}`}>{e.owned || e.is_subscribed ? <a href={`/app/collections/${e.id}`}>{e.name}</a> : e.name}</h3>
            {e.owned ? <Badge tone="neutral">yours</Badge> : e.is_subscribed ? <Badge tone="accent">subscribed</Badge> : null}
          </div>
          <div class="muted mono">{e.slug}</div>
          {e.description ? <p class="muted">{truncate(e.description, 200)}</p> : null}
          <div class="meta">
            <span>
              <b>{count(e.document_count)}</b> {noun(e.document_count, 'document')}
            </span>
          </div>
          {e.owned ? null : (
            <form method="post" action={`/app/catalogue/${e.slug}/${e.is_subscribed ? 'unsubscribe' : 'subscribe'}`} class="section">
              <Csrf token={session.csrfToken} />
              <button type="submit" class={e.is_subscribed ? 'btn danger small' : 'btn primary small'}>
                {e.is_subscribed ? 'Unsubscribe' : 'Subscribe'}
                <span class="visually-hidden"> {e.name}</span>
              </button>
            </form>
          )}
        </article>
      ))}
    </div>
  </Layout>
);

export function registerCataloguePage(web: Hono<WebEnv>, deps: AppDeps): void {
  web.get('/catalogue', async (c) => {
    const entries = await listPublicCatalogue(deps, c.get('webCaller'));
    return page(c, <CataloguePage session={c.get('session')!} entries={entries} done={c.req.query('done')} />);
  });

  web.post('/catalogue/:slug/subscribe', async (c) => {
    await subscribe(deps, c.get('webCaller'), c.req.param('slug'));
    return c.redirect('/app/catalogue?done=subscribed', 303);
  });

  web.post('/catalogue/:slug/unsubscribe', async (c) => {
    await unsubscribe(deps, c.get('webCaller'), c.req.param('slug'));
    return c.redirect(field(c.get('form'), 'from') === 'collection' ? '/app/?done=unsubscribed' : '/app/catalogue?done=unsubscribed', 303);
  });
}
