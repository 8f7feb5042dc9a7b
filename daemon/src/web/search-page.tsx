import type { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import type { Session } from '../auth/sessions.js';
import { queryVisibleCollections, type CollectionRow } from '../collections/queries.js';
import { AppError, fieldsFromIssues } from '../errors.js';
import { SearchRequestSchema } from '../routes/search.js';
import type { SearchMode } from '../search/service.js';
import type { AppDeps } from '../types.js';
import { metadataKeys, type MetadataKey } from '../documents/metadata-keys.js';
import type { FilterNode } from '../filters/parse.js';
import { page, type WebEnv } from './context.js';
import { ErrorSummary, errorsFromFields, hasErrors, type FormErrors } from './forms.js';
import { DateFields, dateFilter } from './search-dates.js';
import { passageSegments, type Segment } from './highlight.js';
import { FieldError, Layout, Notice, PageHead } from './layout.js';
import { meteredSearch, type SearchOutcome } from './metering.js';
import { visibleTags } from './queries.js';
import { CollectionPicker, MAX_CONDITIONS, MetaConditions, metaFilter, readConditions } from './search-filters.js';
import { Results, type SearchState } from './search-results.js';
import { FacetCounts, pageFacetFields } from './search-facets.js';
import { parseTags } from '../documents/tags.js';

export type { SearchState } from './search-results.js';

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
  collections: 'search-collection',
  mode: 'mode-hybrid',
  tags: 'search-tags',
};

export const SearchForm: FC<{
  s: SearchState;
  collections: CollectionRow[];
  tagOptions: string[];
  errors: FormErrors;
  compact?: boolean;
  /** Metadata keys in the searched scope, for the conditions (the full form only). */
  metaKeys?: MetadataKey[];
}> = ({ s, collections, tagOptions, errors, compact, metaKeys = [] }) => (
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
      <CollectionPicker collections={collections} selected={s.collections} error={errors['search-collection']} />
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
    {compact ? null : <MetaConditions conditions={s.conditions ?? []} keys={metaKeys} errors={errors} />}
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

const LABELS: Record<string, string> = {
  q: 'Search',
  'search-collection': 'Collection',
  'search-tags': 'Tags',
  'search-from': 'Added from',
  'search-to': 'Added until',
  ...Object.fromEntries(
    Array.from({ length: MAX_CONDITIONS }, (_, i) => [
      [`meta-key-${i}`, `Metadata key ${i + 1}`],
      [`meta-value-${i}`, `Metadata value ${i + 1}`],
    ]).flat(),
  ),
};

const SearchPage: FC<{
  session: Session;
  s: SearchState;
  collections: CollectionRow[];
  tagOptions: string[];
  metaKeys: MetadataKey[];
  errors: FormErrors;
  r?: SearchOutcome;
  passages: Map<string, Segment[]>;
  notice?: string;
}> = (p) => (
  <Layout title={p.s.q ? `Search: ${p.s.q}` : 'Search'} session={p.session} active="search">
    <ErrorSummary errors={p.errors} labels={LABELS} />
    <PageHead
      title="Search"
      lead="Searches here count toward your plan's quota and rate limit, like API searches, and appear in the usage log."
    />
    {p.notice ? <Notice tone="info">{p.notice}</Notice> : null}
    <SearchForm s={p.s} collections={p.collections} tagOptions={p.tagOptions} errors={p.errors} metaKeys={p.metaKeys} />
    {p.r ? (
      <Results
        r={p.r}
        passages={p.passages}
        s={p.s}
        facets={p.r.count && p.r.facets ? <FacetCounts facets={p.r.facets} s={p.s} /> : undefined}
      />
    ) : null}
  </Layout>
);

/** Both filters of the form (dates, metadata), all of which must hold. */
const allOf = (...nodes: (FilterNode | undefined)[]): FilterNode | undefined => {
  const set = nodes.filter((n): n is FilterNode => n !== undefined);
  return set.length > 1 ? { and: set } : set[0];
};

export function registerSearchPage(web: Hono<WebEnv>, deps: AppDeps): void {
  web.get('/search', async (c) => {
    const caller = c.get('webCaller');
    const modeQ = c.req.query('mode');
    const s: SearchState = {
      q: c.req.query('q') ?? '',
      collections: [...new Set((c.req.queries('collection') ?? []).map((x) => x.trim()).filter(Boolean))],
      mode: MODES.some((m) => m.id === modeQ) ? (modeQ as SearchMode) : 'hybrid',
      tags: c.req.query('tags') ?? '',
      from: c.req.query('from') ?? '',
      to: c.req.query('to') ?? '',
      conditions: readConditions((name) => c.req.queries(name)),
    };
    const [collections, tagOptions, metaKeys] = await Promise.all([
      queryVisibleCollections(deps.sql, caller),
      visibleTags(deps, caller),
      metadataKeys(deps, caller, { collections: s.collections }),
    ]);
    let errors: FormErrors = {};
    let r: SearchOutcome | undefined;
    let passages = new Map<string, Segment[]>();
    let notice: string | undefined;
    let status = 200;
    const submitted = c.req.query('q') !== undefined;
    if (submitted) {
      const tags = parseTags(s.tags);
      const parsed = SearchRequestSchema.safeParse({
        query: s.q,
        collections: s.collections.length ? s.collections : undefined,
        mode: s.mode,
        tags: tags.length ? tags : undefined,
        limit: RESULT_LIMIT,
      });
      const dates = dateFilter(s.from ?? '', s.to ?? '');
      const meta = metaFilter(s.conditions ?? [], metaKeys);
      if (hasErrors(dates.errors) || hasErrors(meta.errors)) {
        errors = { ...dates.errors, ...meta.errors };
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
            collections: parsed.data.collections,
            limit: RESULT_LIMIT,
            mode: parsed.data.mode ?? 'hybrid',
            tags: parsed.data.tags,
            filter: allOf(dates.filter, meta.filter),
            facets: pageFacetFields(metaKeys),
          });
          passages = new Map(r.results.map((x) => [x.chunk_id, passageSegments(x.content, x.highlights)]));
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
        metaKeys={metaKeys}
        errors={hasErrors(errors) ? errors : {}}
        r={r}
        passages={passages}
        notice={notice}
      />,
      status,
    );
  });
}
