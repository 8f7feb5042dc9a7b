import type { Hono } from 'hono';
import { correctionLine, noRelevantResults } from '../search/zero-answer.js';
import type { FC } from 'hono/jsx';
import type { Session } from '../auth/sessions.js';
import { queryVisibleCollections, type CollectionRow } from '../collections/queries.js';
import { AppError, fieldsFromIssues } from '../errors.js';
import { SearchRequestSchema } from '../routes/search.js';
import type { SearchMode } from '../search/service.js';
import type { AppDeps } from '../types.js';
import { page, type WebEnv } from './context.js';
import { qs, Tags } from './documents-table.js';
import { ErrorSummary, errorsFromFields, hasErrors, type FormErrors } from './forms.js';
import { DateFields, dateFilter } from './search-dates.js';
import { highlightPassages, type Segment } from './highlight.js';
import { FieldError, Layout, Notice, PageHead } from './layout.js';
import { meteredSearch, type SearchOutcome } from './metering.js';
import { visibleTags } from './queries.js';

const MODES: { id: SearchMode; label: string; hint: string }[] = [
  { id: 'hybrid', label: 'Hybrid', hint: 'words and meaning' },
  { id: 'text', label: 'Text', hint: 'exact words (BM25)' },
  { id: 'vector', label: 'Vector', hint: 'meaning only' },
];
const RESULT_LIMIT = 10;
const FIELD_IDS = {
  query: 'q',
  collection: 'search-collection',
  collection_id: 'search-collection',
  mode: 'mode-hybrid',
  tags: 'search-tags',
};

export interface SearchState {
  q: string;
  collection: string;
  mode: SearchMode;
  tags: string;
  /** Added from / until (YYYY-MM-DD, inclusive): a created_at filter. */
  from?: string;
  to?: string;
}

export const SearchForm: FC<{
  s: SearchState;
  collections: CollectionRow[];
  tagOptions: string[];
  errors: FormErrors;
  compact?: boolean;
}> = ({ s, collections, tagOptions, errors, compact }) => (
  // biome-ignore lint/a11y/useSemanticElements: <search> is not yet styled or announced everywhere; the role is equivalent
  <form class="card search-form" method="get" action="/app/search" role="search" aria-label="Search documents" novalidate>
    <div class="form-row">
      <div class="field grow">
        <label for="q">Search</label>
        <input
          id="q"
          name="q"
          type="search"
          value={s.q}
          placeholder="Ask your documents…"
          autocomplete="off"
          maxlength={1000}
          aria-invalid={errors.q ? 'true' : undefined}
          aria-describedby={errors.q ? 'q-error' : undefined}
        />
        <FieldError id="q-error" message={errors.q} />
      </div>
      <div class="field">
        <label for="search-collection">In collection</label>
        <select
          id="search-collection"
          name="collection"
          aria-invalid={errors['search-collection'] ? 'true' : undefined}
          aria-describedby={errors['search-collection'] ? 'search-collection-error' : undefined}
        >
          <option value="">All collections</option>
          {collections.map((c) => (
            <option value={c.slug} selected={c.slug === s.collection}>
              {c.name}
            </option>
          ))}
        </select>
        <FieldError id="search-collection-error" message={errors['search-collection']} />
      </div>
      {compact ? null : <DateFields from={s.from ?? ''} to={s.to ?? ''} errors={errors} />}
      {compact ? null : (
        <div class="field">
          <label for="search-tags">Tags</label>
          <input
            id="search-tags"
            name="tags"
            type="text"
            value={s.tags}
            list="search-tag-options"
            placeholder="any of, comma-separated"
            autocomplete="off"
            aria-invalid={errors['search-tags'] ? 'true' : undefined}
            aria-describedby={errors['search-tags'] ? 'search-tags-error' : undefined}
          />
          <datalist id="search-tag-options">
            {tagOptions.map((t) => (
              <option value={t} />
            ))}
          </datalist>
          {errors['search-tags'] ? (
            <span class="field-error" id="search-tags-error">
              {errors['search-tags']}
            </span>
          ) : null}
        </div>
      )}
      <button type="submit" class="btn primary">
        Search
      </button>
    </div>
    {compact ? null : (
      <fieldset class="modes">
        <legend>Mode</legend>
        <div class="segmented-radio">
          {MODES.map((m) => (
            <label class={s.mode === m.id ? 'on' : undefined}>
              <input type="radio" name="mode" value={m.id} id={`mode-${m.id}`} checked={s.mode === m.id} />
              <span>
                {m.label} <span class="muted hint-inline">· {m.hint}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
    )}
  </form>
);

const Passage: FC<{ segments: Segment[] }> = ({ segments }) => (
  <p class="snippet">{segments.map((s) => (s.mark ? <mark>{s.text}</mark> : s.text))}</p>
);

const Results: FC<{ r: SearchOutcome; passages: Map<string, Segment[]>; s: SearchState }> = ({ r, passages, s }) => (
  <section class="card section" aria-labelledby="results-title" aria-live="polite">
    <div class="section-head">
      <h2 id="results-title">Results for “{r.query}”</h2>
      <span class="muted">
        {r.count} ranked {r.count === 1 ? 'result' : 'results'} · {r.mode}
        {r.fallback ? ' (text only: embeddings unavailable)' : ''}
      </span>
    </div>
    {r.correction ? <p class="correction">{correctionLine(r)}</p> : null}
    {r.count === 0 ? (
      <p class="empty">Nothing matched. {noRelevantResults(r, { collection: s.collection, tags: s.tags ? [s.tags] : [] })}</p>
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
          {x.tags.length ? (
            <div class="result-tags">
              <Tags tags={x.tags} href={(t) => `/app/search${qs({ q: s.q, collection: s.collection, mode: s.mode, tags: t })}`} />
            </div>
          ) : null}
        </li>
      ))}
    </ol>
  </section>
);

const SearchPage: FC<{
  session: Session;
  s: SearchState;
  collections: CollectionRow[];
  tagOptions: string[];
  errors: FormErrors;
  r?: SearchOutcome;
  passages: Map<string, Segment[]>;
  notice?: string;
}> = (p) => (
  <Layout title={p.s.q ? `Search: ${p.s.q}` : 'Search'} session={p.session} active="search">
    <ErrorSummary
      errors={p.errors}
      labels={{
        q: 'Search',
        'search-collection': 'Collection',
        'search-tags': 'Tags',
        'search-from': 'Added from',
        'search-to': 'Added until',
      }}
    />
    <PageHead
      title="Search"
      lead="Searches here count toward your plan's quota and rate limit, like API searches, and appear in the usage log."
    />
    {p.notice ? <Notice tone="info">{p.notice}</Notice> : null}
    <SearchForm s={p.s} collections={p.collections} tagOptions={p.tagOptions} errors={p.errors} />
    {p.r ? <Results r={p.r} passages={p.passages} s={p.s} /> : null}
  </Layout>
);

export function registerSearchPage(web: Hono<WebEnv>, deps: AppDeps): void {
  web.get('/search', async (c) => {
    const caller = c.get('webCaller');
    const modeQ = c.req.query('mode');
    const s: SearchState = {
      q: c.req.query('q') ?? '',
      collection: c.req.query('collection') ?? '',
      mode: MODES.some((m) => m.id === modeQ) ? (modeQ as SearchMode) : 'hybrid',
      tags: c.req.query('tags') ?? '',
      from: c.req.query('from') ?? '',
      to: c.req.query('to') ?? '',
    };
    const [collections, tagOptions] = await Promise.all([queryVisibleCollections(deps.sql, caller), visibleTags(deps, caller)]);
    let errors: FormErrors = {};
    let r: SearchOutcome | undefined;
    let passages = new Map<string, Segment[]>();
    let notice: string | undefined;
    let status = 200;
    const submitted = c.req.query('q') !== undefined;
    if (submitted) {
      const tags = s.tags
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
      const parsed = SearchRequestSchema.safeParse({
        query: s.q,
        collection: s.collection || undefined,
        mode: s.mode,
        tags: tags.length ? tags : undefined,
        limit: RESULT_LIMIT,
      });
      const dates = dateFilter(s.from ?? '', s.to ?? '');
      if (hasErrors(dates.errors)) {
        errors = dates.errors;
        status = 400;
      } else if (!parsed.success) {
        errors = errorsFromFields('The search could not run.', fieldsFromIssues(parsed.error.issues as never), FIELD_IDS);
        status = 400;
      } else if (c.req.header('sec-fetch-site') === 'cross-site') {
        // A search costs quota: one started by another site's link waits for the person to confirm it.
        notice = 'This search was opened from another site. Press Search to run it.';
      } else {
        try {
          r = await meteredSearch(deps, caller, {
            query: parsed.data.query,
            collection: parsed.data.collection,
            limit: RESULT_LIMIT,
            mode: parsed.data.mode ?? 'hybrid',
            tags: parsed.data.tags,
            filter: dates.filter,
          });
          passages = await highlightPassages(deps, r.query, r.results);
        } catch (err) {
          // Refusals (quota, rate limit, unknown collection, search down) show on the page, with the form kept.
          if (!(err instanceof AppError)) throw err;
          for (const [k, v] of Object.entries(err.headers ?? {})) c.header(k, v);
          errors = errorsFromFields(err.message, err.fields, FIELD_IDS);
          if (err.code === 'COLLECTION_NOT_FOUND') errors = { 'search-collection': err.message };
          status = err.status;
        }
      }
    }
    return page(
      c,
      <SearchPage
        session={c.get('session')!}
        s={s}
        collections={collections}
        tagOptions={tagOptions}
        errors={hasErrors(errors) ? errors : {}}
        r={r}
        passages={passages}
        notice={notice}
      />,
      status,
    );
  });
}
