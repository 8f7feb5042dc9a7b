// Facet counts as the CLI prints them: one line per field, "dept: legal (12), finance (3)".
import type { Facets } from '@docsift/sdk';
import type { Output } from '../output.js';

/** `--facets tags,metadata.dept` as the API's list. */
export function facetFields(flag: unknown): string[] | undefined {
  if (typeof flag !== 'string') return undefined;
  const fields = flag
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return fields.length ? fields : undefined;
}

export function printFacets(o: Output, facets: Facets): void {
  for (const [field, values] of Object.entries(facets)) {
    const counts = values.map((v) => `${String(v.value)} (${v.count})`).join(', ');
    o.line(`${o.bold(`${field}:`)} ${counts || o.dim('none')}`);
  }
}
