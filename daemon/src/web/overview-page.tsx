import type { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import type { Session } from '../auth/sessions.js';
import { queryVisibleCollections, type CollectionRow } from '../collections/queries.js';
import type { DocumentRow, DocumentStatus } from '../documents/queries.js';
import { listDocuments } from '../documents/read.js';
import type { AppDeps, Caller } from '../types.js';
import { page, type WebEnv } from './context.js';
import { DocumentFilters, DocumentsTable, qs, STATUSES } from './documents-table.js';
import { count, noun, truncate } from './format.js';
import { Badge, Layout, Notice, PageHead } from './layout.js';
import { NO_COUNTS, statusCounts, visibleTags, type StatusCounts } from './queries.js';
import { SearchForm } from './search-page.js';

const PAGE_SIZE = 25;

/** Indexed / pending / failed as one thin stacked bar (SVG, so it needs no inline style). */
const StatusBar: FC<{ counts: StatusCounts }> = ({ counts }) => {
  const total = counts.indexed + counts.pending + counts.failed;
  if (!total) return null;
  let x = 0;
  const segs = (['indexed', 'pending', 'failed'] as const).map((s) => {
    const w = (counts[s] / total) * 100;
    const r = <rect x={x} y={0} width={w} height={6} class={s === 'indexed' ? 'seg-ok' : s === 'pending' ? 'seg-warn' : 'seg-danger'} />;
    x += w;
    return r;
  });
  return (
    <svg class="bar" viewBox="0 0 100 6" preserveAspectRatio="none" width="100%" height="6" aria-hidden="true">
      {segs}
    </svg>
  );
};

export const CollectionCard: FC<{ c: CollectionRow; counts: StatusCounts; userId: string }> = ({ c, counts, userId }) => (
  <article class="card collection" aria-labelledby={`col-${c.id}`}>
    <div class="section-head">
      <h3 id={`col-${c.id}`}>
        <a href={`/app/collections/${c.id}`}>{c.name}</a>
      </h3>
      {c.owner_id !== userId ? <Badge tone="accent">subscribed</Badge> : c.is_public ? <Badge tone="neutral">public</Badge> : null}
    </div>
    <div class="muted mono">{c.slug}</div>
    {c.description ? <p class="muted">{truncate(c.description, 140)}</p> : null}
    <div class="meta">
      <span>
        <b>{count(c.document_count)}</b> {noun(c.document_count, 'document')}
      </span>
      <span>
        <b>{count(c.total_chunks)}</b> {noun(c.total_chunks, 'chunk')}
      </span>
    </div>
    <div class="meta">
      <span>{count(counts.indexed)} indexed</span>
      <span class={counts.pending ? '' : 'muted'}>{count(counts.pending)} pending</span>
      <span class={counts.failed ? 'field-error' : 'muted'}>{count(counts.failed)} failed</span>
    </div>
    <StatusBar counts={counts} />
  </article>
);

interface OverviewProps {
  session: Session;
  collections: CollectionRow[];
  counts: Map<string, StatusCounts>;
  docs: DocumentRow[];
  next: string | null;
  tagOptions: string[];
  filter: { collection?: string; status?: DocumentStatus; tag?: string; cursor?: string };
  done?: string;
}

const DONE: Record<string, string> = {
  'collection-deleted': 'Collection deleted. Its documents left search at once; stored files are purged after 7 days.',
  unsubscribed: 'Unsubscribed.',
};

const Overview: FC<OverviewProps> = (p) => {
  const f = p.filter;
  const filterQs = (extra: Record<string, string | undefined>) => qs({ collection: f.collection, status: f.status, tag: f.tag, ...extra });
  return (
    <Layout title="Collections" session={p.session} active="overview">
      <PageHead title="Collections" lead="What you can search, and whether ingestion worked.">
        <a class="btn primary" href="/app/collections/new">
          New collection
        </a>
      </PageHead>
      {p.done && DONE[p.done] ? <Notice tone="info">{DONE[p.done]}</Notice> : null}
      <SearchForm
        s={{ q: '', collections: f.collection ? [f.collection] : [], mode: 'hybrid', tags: '' }}
        collections={p.collections}
        tagOptions={[]}
        errors={{}}
        compact
      />

      <section class="section" aria-labelledby="collections-title">
        <div class="section-head">
          <h2 id="collections-title">Your collections</h2>
          <span class="muted">
            {p.collections.length} visible · <a href="/app/catalogue">browse public collections</a>
          </span>
        </div>
        {p.collections.length === 0 ? (
          <div class="card empty">
            No collections yet. <a href="/app/collections/new">Create one</a>, or subscribe to one in the{' '}
            <a href="/app/catalogue">public catalogue</a>.
          </div>
        ) : null}
        <div class="collections">
          {p.collections.map((c) => (
            <CollectionCard c={c} counts={p.counts.get(c.id) ?? NO_COUNTS} userId={p.session.user.id} />
          ))}
        </div>
      </section>

      <section class="section" aria-labelledby="documents-title" id="documents">
        <div class="section-head">
          <h2 id="documents-title">Documents</h2>
          <DocumentFilters
            action="/app/#documents"
            status={f.status}
            tag={f.tag}
            collection={f.collection}
            collections={p.collections}
            tagOptions={p.tagOptions}
          />
        </div>
        <DocumentsTable docs={p.docs} tagHref={(t) => `/app/${filterQs({ tag: t })}#documents`} />
        <nav class="pager" aria-label="Documents pages">
          {f.cursor ? <a href={`/app/${filterQs({})}#documents`}>← First page</a> : <span />}
          {p.next ? <a href={`/app/${filterQs({ cursor: p.next })}#documents`}>Next page →</a> : null}
        </nav>
      </section>
    </Layout>
  );
};

export function registerOverviewPages(web: Hono<WebEnv>, deps: AppDeps): void {
  web.get('/', async (c) => {
    // Searches moved to their own page; old links keep working.
    if (c.req.query('q') !== undefined) {
      return c.redirect(`/app/search${qs({ q: c.req.query('q'), collection: c.req.query('collection') })}`, 303);
    }
    const session = c.get('session')!;
    const caller: Caller = c.get('webCaller');
    const statusQ = c.req.query('status');
    const filter = {
      collection: c.req.query('collection') || undefined,
      status: STATUSES.includes(statusQ as DocumentStatus) ? (statusQ as DocumentStatus) : undefined,
      tag: (c.req.query('tag') ?? '').trim().slice(0, 100) || undefined,
      cursor: c.req.query('cursor') || undefined,
    };
    const collections = await queryVisibleCollections(deps.sql, caller);
    if (filter.collection && !collections.some((x) => x.slug === filter.collection)) filter.collection = undefined;
    const [counts, docs, tagOptions] = await Promise.all([
      statusCounts(
        deps,
        collections.map((x) => x.id),
      ),
      listDocuments(deps, caller, { ...filter, limit: PAGE_SIZE }),
      visibleTags(deps, caller),
    ]);
    return page(
      c,
      <Overview
        session={session}
        collections={collections}
        counts={counts}
        docs={docs.page}
        next={docs.next}
        tagOptions={tagOptions}
        filter={filter}
        done={c.req.query('done')}
      />,
    );
  });
}
