import type { FilterWarning } from '../filters/diagnose.js';
import type { EmptyReason } from './empty-reason.js';

/** What an answer tells a reader beyond its results (MCP, web UI; the CLI words the same fields). */
export interface AnswerNotes {
  query: string;
  mode: string;
  reason: EmptyReason | null;
  warnings: readonly FilterWarning[];
  correction: { query: string } | null;
}

/** "Showing results for …" when typo tolerance read the query differently, else nothing. */
export function correctionLine(r: Pick<AnswerNotes, 'correction'>): string | null {
  return r.correction ? `Showing results for "${r.correction.query}".` : null;
}

/**
 * What to say when a search found nothing (MCP, web UI; the CLI words it the same way): an empty
 * answer is an answer, with its reason, the filter's warnings, and the next step that could still
 * find something, which depends on the reason.
 */
export function noRelevantResults(r: AnswerNotes, scope: { collection?: string; tags?: string[] } = {}): string {
  const steps =
    r.reason?.code === 'no_documents_pass_filter'
      ? [r.warnings.length ? 'fix the filter as the warnings say' : 'loosen the filter or tags', 'or search without them']
      : r.reason?.code === 'no_documents'
        ? ['upload documents, or wait for the ones uploaded to finish processing']
        : r.reason?.code === 'below_score_threshold'
          ? ['lower score_threshold']
          : r.reason?.code === 'operators_left_nothing'
            ? ['drop or loosen the "quoted phrase" or -excluded word']
            : [
                'rephrase with words the documents would use',
                ...(scope.collection || scope.tags?.length ? ['search every collection without the collection or tag filter'] : []),
                ...(r.mode === 'text' ? ['try hybrid mode, which also matches by meaning'] : []),
                'or upload documents that cover it',
              ];
  const why = r.reason?.message ?? 'Nothing relevant was found in the searched documents.';
  const warnings = r.warnings.map((w) => ` Warning: ${w.message}`).join('');
  return `No results for "${r.query}". ${why}${warnings} Next: ${steps.join('; ')}.`;
}
