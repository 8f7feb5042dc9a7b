// The search page's results: ranked chunks with their marked passage, tags and metadata (each a
// link that narrows the search to it), beside the slot where facet counts go.
import type { Child, FC } from 'hono/jsx';
import { correctionLine, noRelevantResults } from '../search/zero-answer.js';
import { Tags } from './documents-table.js';
import type { Segment } from './highlight.js';
import type { SearchOutcome } from './metering.js';
import { MetadataChips } from './metadata-field.js';
import type { MetaCondition } from './search-filters.js';
import type { SearchMode } from '../search/service.js';

export interface SearchState {
  q: string;
  /** Slugs; none: every visible collection. */
  collections: string[];
  mode: SearchMode;
  tags: string;
  /** Added from / until (YYYY-MM-DD, inclusive): a created_at filter. */
  from?: string;
  to?: string;
  /** Metadata conditions, all of which must hold. */
  conditions?: MetaCondition[];
}

/** The page's URL for a search state (links that change one part of it). */
export function searchHref(s: SearchState): string {
  const u = new URLSearchParams();
  if (s.q) u.set('q', s.q);
  for (const c of s.collections) u.append('collection', c);
  if (s.mode !== 'hybrid') u.set('mode', s.mode);
  if (s.tags) u.set('tags', s.tags);
  if (s.from) u.set('from', s.from);
  if (s.to) u.set('to', s.to);
  for (const c of s.conditions ?? []) {
    u.append('mk', c.key);
    u.append('mo', c.op);
    u.append('mv', c.value);
  }
  const text = u.toString();
  return `/app/search${text ? `?${text}` : ''}`;
}

/** The state plus one more condition `key = value` (a metadata chip's link). */
export const withCondition = (s: SearchState, key: string, value: string): SearchState => ({
  ...s,
  conditions: [...(s.conditions ?? []).filter((c) => !(c.key === key && c.op === 'eq')), { key, op: 'eq', value }],
});

const Passage: FC<{ segments: Segment[] }> = ({ segments }) => (
  <p class="snippet">{segments.map((s) => (s.mark ? <mark>{s.text}</mark> : s.text))}</p>
);

export const Results: FC<{ r: SearchOutcome; passages: Map<string, Segment[]>; s: SearchState; facets?: Child }> = ({
  r,
  passages,
  s,
  facets,
}) => (
  // Facet counts (value counts over the results' documents, clickable into the filter) go in the
  // aside beside the list: `facets` is rendered there when given, and the list takes the width otherwise.
  <div class={facets ? 'search-layout with-facets' : 'search-layout'}>
    <section class="card section results-card" aria-labelledby="results-title" aria-live="polite">
      <div class="section-head">
        <h2 id="results-title">Results for “{r.query}”</h2>
        <span class="muted">
          {r.count} ranked {r.count === 1 ? 'result' : 'results'} · {r.mode}
          {r.fallback ? ' (text only: embeddings unavailable)' : ''}
        </span>
      </div>
      {r.correction ? <p class="correction">{correctionLine(r)}</p> : null}
      {r.count === 0 ? (
        <p class="empty">Nothing matched. {noRelevantResults(r, { collection: s.collections.join(','), tags: s.tags ? [s.tags] : [] })}</p>
      ) : null}
      <ol class="results" aria-labelledby="results-title">
        {r.results.map((x, i) => (
          <li class="result">
            <span class="rank">#{i + 1}</span>
            <span class="result-head">
              <a href={`/app/documents/${x.document_id}`} class="doc-title">
                {x.title}
              </a>{' '}
              <span class="muted">
                · {x.collection_name}
                {x.page !== null ? ` · page ${x.page}` : ''}
              </span>
            </span>
            <span class="score" title="Relevance score (higher is better)">
              score {x.score.toFixed(4)}
            </span>
            <Passage segments={passages.get(x.chunk_id) ?? [{ text: x.content, mark: false }]} />
            {x.tags.length || Object.keys(x.metadata).length ? (
              <div class="result-tags">
                <Tags tags={x.tags} href={(t) => searchHref({ ...s, tags: t })} />
                <MetadataChips meta={x.metadata} href={(k, v) => searchHref(withCondition(s, k, v))} />
              </div>
            ) : null}
          </li>
        ))}
      </ol>
    </section>
    {facets ? (
      <aside class="card facets" aria-label="Refine the results">
        {facets}
      </aside>
    ) : null}
  </div>
);
