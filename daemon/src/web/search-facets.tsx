// The search page's facet counts beside its results: for tags, collection and the metadata keys
// most used in scope, how many of the matching documents carry each value (the API's `facets`,
// search/facets.ts). Each value is a link that adds it to the search's filter.
import type { FC } from 'hono/jsx';
import type { MetadataKey } from '../documents/metadata-keys.js';
import type { Facets } from '../search/facets.js';
import { searchHref, type SearchState, withCondition } from './search-results.js';

/** Metadata keys counted beside tags and collection: the ones most used in scope. */
const METADATA_FACETS = 5;

export function pageFacetFields(keys: readonly MetadataKey[]): string[] {
  return ['tags', 'collection', ...keys.slice(0, METADATA_FACETS).map((k) => `metadata.${k.key}`)];
}

const LABELS: Record<string, string> = { tags: 'Tags', collection: 'Collection' };

/** The search narrowed to `value` of `field`, and whether it is narrowed so already. */
function narrowed(s: SearchState, field: string, value: string): { href: string; active: boolean } {
  if (field === 'tags') return { href: searchHref({ ...s, tags: value }), active: s.tags.toLowerCase() === value.toLowerCase() };
  if (field === 'collection')
    return { href: searchHref({ ...s, collections: [value] }), active: s.collections.length === 1 && s.collections[0] === value };
  const key = field.slice('metadata.'.length);
  const active = (s.conditions ?? []).some((c) => c.key === key && c.op === 'eq' && c.value === value);
  return { href: searchHref(withCondition(s, key, value)), active };
}

export const FacetCounts: FC<{ facets: Facets; s: SearchState }> = ({ facets, s }) => {
  const fields = Object.entries(facets).filter(([, values]) => values.length);
  return (
    <>
      <h2 class="facets-title">Refine</h2>
      <p class="muted facets-note">Documents among the matches carrying each value.</p>
      {fields.map(([field, values]) => (
        <section class="facet">
          <h3>{LABELS[field] ?? field.slice('metadata.'.length)}</h3>
          <ul>
            {values.map((v) => {
              const value = String(v.value);
              const { href, active } = narrowed(s, field, value);
              return (
                <li>
                  <a href={href} aria-current={active ? 'true' : undefined}>
                    <span class="facet-value">{value}</span> <span class="facet-count">{v.count}</span>
                  </a>
                </li>
              );
            })}
          </ul>
        </section>
      ))}
    </>
  );
};
