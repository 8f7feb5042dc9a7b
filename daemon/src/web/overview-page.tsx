import type { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import { queryVisibleCollections, type CollectionRow } from '../db/collections.js';
import type { DocumentRow, DocumentStatus } from '../db/documents.js';
import { AppError } from '../errors.js';
import { search } from '../search/service.js';
import { listDocuments } from '../services/document-ops.js';
import type { AppDeps, Caller } from '../types.js';
import { page, type WebEnv } from './context.js';
import { bytes, count, dateTime, truncate } from './format.js';
import { Badge, Layout, Notice, PageHead, StatusBadge } from './layout.js';
import type { Session } from '../auth/sessions.js';

const PAGE_SIZE = 25;
const STATUSES: DocumentStatus[] = ['indexed', 'pending', 'failed'];
type StatusCounts = Record<DocumentStatus, number>;
type SearchOutcome = Awaited<ReturnType<typeof search>>;

async function statusCounts(deps: AppDeps, ids: string[]): Promise<Map<string, StatusCounts>> {
  const out = new Map<string, StatusCounts>();
  if (!ids.length) return out;
  const rows = await deps.sql<{ collection_id: string; status: DocumentStatus; n: number }[]>`
    select collection_id, status, count(*)::int as n
      from documents where collection_id in ${deps.sql(ids)} and deleted_at is null
     group by collection_id, status`;
  for (const r of rows) {
    const c = out.get(r.collection_id) ?? { indexed: 0, pending: 0, failed: 0 };
    c[r.status] = r.n;
    out.set(r.collection_id, c);
  }
  return out;
}

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

const CollectionCard: FC<{ c: CollectionRow; counts: StatusCounts; userId: string }> = ({ c, counts, userId }) => (
  <article class="card collection" aria-labelledby={`col-${c.id}`}>
    <div class="section-head">
      <h3 id={`col-${c.id}`}>
        <a href={`/app/?collection=${encodeURIComponent(c.slug)}#documents`}>{c.name}</a>
      </h3>
      {c.owner_id !== userId ? <Badge tone="accent">subscribed</Badge> : c.is_public ? <Badge tone="neutral">public</Badge> : null}
    </div>
    <div class="muted mono">{c.slug}</div>
    {c.description ? <p class="muted">{truncate(c.description, 140)}</p> : null}
    <div class="meta">
      <span>
        <b>{count(c.document_count)}</b> documents
      </span>
      <span>
        <b>{count(c.total_chunks)}</b> chunks
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

const SearchResults: FC<{ r: SearchOutcome }> = ({ r }) => (
  <div class="card" aria-live="polite">
    <div class="section-head">
      <h2 id="results-title">Results for “{r.query}”</h2>
      <span class="muted">
        {r.count} ranked {r.count === 1 ? 'result' : 'results'} · {r.mode}
        {r.fallback ? ' (text only: embeddings unavailable)' : ''}
      </span>
    </div>
    {r.count === 0 ? <p class="empty">Nothing matched. Check that the documents are indexed, or try other words.</p> : null}
    <ol class="results" aria-labelledby="results-title">
      {r.results.map((x, i) => (
        <li class="result">
          <span class="rank">#{i + 1}</span>
          <span>
            <strong>{x.title}</strong> <span class="muted">· {x.collection_name}</span>
          </span>
          <span class="score" title="Relevance score (higher is better)">
            score {x.score.toFixed(4)}
          </span>
          <p class="snippet">{truncate(x.content.replace(/\s+/g, ' '), 320)}</p>
        </li>
      ))}
    </ol>
  </div>
);

const DocumentsTable: FC<{ docs: DocumentRow[] }> = ({ docs }) => (
  <div class="table-wrap">
    <table>
      <caption class="visually-hidden">Documents, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Document</th>
          <th scope="col">Collection</th>
          <th scope="col">Status</th>
          <th scope="col" class="num">
            Chunks
          </th>
          <th scope="col" class="num">
            Size
          </th>
          <th scope="col">Added</th>
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {docs.length === 0 ? (
          <tr>
            <td colspan={7} class="empty">
              No documents here yet.
            </td>
          </tr>
        ) : null}
        {docs.map((d) => (
          <tr>
            <td>
              <strong>{d.title}</strong>
              {d.original_filename && d.original_filename !== d.title ? <div class="muted mono">{d.original_filename}</div> : null}
              {d.status === 'failed' && d.error_message ? (
                <div class="error-detail">
                  <span class="visually-hidden">Error: </span>
                  {d.error_message}
                </div>
              ) : null}
            </td>
            <td>{d.collection_name}</td>
            <td>
              <StatusBadge status={d.status} />
            </td>
            <td class="num">{count(d.chunks_count)}</td>
            <td class="num">{d.file_size ? bytes(d.file_size) : '—'}</td>
            <td class="muted">{dateTime(d.created_at)}</td>
            <td class="actions">
              {d.blob_key ? (
                <a class="btn small" href={`/api/v1/documents/${d.id}/download/`}>
                  Download<span class="visually-hidden"> {d.title}</span>
                </a>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
);

interface OverviewProps {
  session: Session;
  collections: CollectionRow[];
  counts: Map<string, StatusCounts>;
  docs: DocumentRow[];
  next: string | null;
  filter: { collection?: string; status?: DocumentStatus; cursor?: string; q?: string };
  results?: SearchOutcome;
  searchError?: string;
}

function qs(params: Record<string, string | undefined>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) u.set(k, v);
  const s = u.toString();
  return s ? `?${s}` : '';
}

const Overview: FC<OverviewProps> = (p) => {
  const f = p.filter;
  return (
    <Layout title="Collections" session={p.session} active="overview">
      <PageHead title="Collections" lead="What you can search, and whether ingestion worked." />
      {/* biome-ignore lint/a11y/useSemanticElements: <search> is not yet styled or announced everywhere; the role is equivalent */}
      <form class="card" method="get" action="/app/" role="search" aria-label="Search documents">
        <div class="form-row">
          <div class="field">
            <label for="q">Search</label>
            <input id="q" name="q" type="search" value={f.q ?? ''} placeholder="Ask your documents…" autocomplete="off" />
          </div>
          <div class="field">
            <label for="search-collection">In collection</label>
            <select id="search-collection" name="collection">
              <option value="">All collections</option>
              {p.collections.map((c) => (
                <option value={c.slug} selected={c.slug === f.collection}>
                  {c.name}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" class="btn primary">
            Search
          </button>
        </div>
      </form>
      {p.searchError ? (
        <div class="section">
          <Notice tone="error">{p.searchError}</Notice>
        </div>
      ) : null}
      {p.results ? (
        <section class="section" aria-label="Search results">
          <SearchResults r={p.results} />
        </section>
      ) : null}

      <section class="section" aria-labelledby="collections-title">
        <div class="section-head">
          <h2 id="collections-title">Your collections</h2>
          <span class="muted">{p.collections.length} visible</span>
        </div>
        {p.collections.length === 0 ? (
          <div class="card empty">
            No collections yet. Create one with <code>POST /api/v1/collections/</code> or the CLI.
          </div>
        ) : null}
        <div class="collections">
          {p.collections.map((c) => (
            <CollectionCard c={c} counts={p.counts.get(c.id) ?? { indexed: 0, pending: 0, failed: 0 }} userId={p.session.user.id} />
          ))}
        </div>
      </section>

      <section class="section" aria-labelledby="documents-title" id="documents">
        <div class="section-head">
          <h2 id="documents-title">Documents</h2>
          <form method="get" action="/app/#documents" class="form-row" aria-label="Filter documents">
            <div class="field">
              <label for="doc-collection">Collection</label>
              <select id="doc-collection" name="collection">
                <option value="">All</option>
                {p.collections.map((c) => (
                  <option value={c.slug} selected={c.slug === f.collection}>
                    {c.name}
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="doc-status">Status</label>
              <select id="doc-status" name="status">
                <option value="">Any</option>
                {STATUSES.map((s) => (
                  <option value={s} selected={s === f.status}>
                    {s}
                  </option>
                ))}
              </select>
            </div>
            <button type="submit" class="btn">
              Filter
            </button>
          </form>
        </div>
        <DocumentsTable docs={p.docs} />
        <nav class="pager" aria-label="Documents pages">
          {f.cursor ? <a href={`/app/${qs({ collection: f.collection, status: f.status })}#documents`}>← First page</a> : <span />}
          {p.next ? <a href={`/app/${qs({ collection: f.collection, status: f.status, cursor: p.next })}#documents`}>Next page →</a> : null}
        </nav>
      </section>
    </Layout>
  );
};

export function registerOverviewPages(web: Hono<WebEnv>, deps: AppDeps): void {
  // Searches from the UI are a person checking ingestion, not API traffic: they are neither
  // counted against the plan quota nor written to the request log (which has no key to file them under).
  const unmetered: AppDeps = { ...deps, config: { ...deps.config, METERING_ENABLED: false } };

  web.get('/', async (c) => {
    const session = c.get('session')!;
    const caller: Caller = c.get('webCaller');
    const statusQ = c.req.query('status');
    const filter = {
      collection: c.req.query('collection') || undefined,
      status: STATUSES.includes(statusQ as DocumentStatus) ? (statusQ as DocumentStatus) : undefined,
      cursor: c.req.query('cursor') || undefined,
      q: (c.req.query('q') ?? '').trim().slice(0, 1000) || undefined,
    };
    const collections = await queryVisibleCollections(deps.sql, caller);
    if (filter.collection && !collections.some((x) => x.slug === filter.collection)) filter.collection = undefined;
    const [counts, docs] = await Promise.all([
      statusCounts(
        deps,
        collections.map((x) => x.id),
      ),
      listDocuments(deps, caller, { collection: filter.collection, status: filter.status, limit: PAGE_SIZE, cursor: filter.cursor }),
    ]);
    let results: SearchOutcome | undefined;
    let searchError: string | undefined;
    if (filter.q) {
      try {
        results = await search(unmetered, caller, { query: filter.q, collection: filter.collection, limit: 10, mode: 'hybrid' });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        searchError = err.message;
      }
    }
    return page(
      c,
      <Overview
        session={session}
        collections={collections}
        counts={counts}
        docs={docs.page}
        next={docs.next}
        filter={filter}
        results={results}
        searchError={searchError}
      />,
    );
  });
}
