/**
 * What to say when a search found nothing relevant (MCP, web UI; the CLI words it the same way):
 * an empty answer is an answer, with the next step that could still find something.
 */
export function noRelevantResults(r: { query: string; mode: string }, scope: { collection?: string; tags?: string[] } = {}): string {
  const steps = [
    'rephrase with words the documents would use',
    ...(scope.collection || scope.tags?.length ? ['search every collection without the collection or tag filter'] : []),
    ...(r.mode === 'text' ? ['try hybrid mode, which also matches by meaning'] : []),
    'or upload documents that cover it',
  ];
  return `No results for "${r.query}". Nothing relevant was found in the searched documents. Next: ${steps.join('; ')}.`;
}
