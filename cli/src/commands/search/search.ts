import type { SearchMode, SearchRequest } from '@docsift/sdk';
import { choiceFlag, collect, defineCommand, intFlag, stringFlag } from '../../command.js';
import { UsageError } from '../../errors.js';
import { facetFields, printFacets } from '../../ui/facets.js';
import { renderSnippet, snippet } from '../../ui/highlight.js';
import { filterFlags } from '../../where.js';

export default defineCommand<{ request: SearchRequest; full: boolean; notes: string[] }>({
  name: 'search <query...>',
  summary: 'Hybrid (text + vector) search over every collection this key can see',
  help: `Query syntax: "quoted phrases" (every result contains them) and -excluded words (no result
contains them), in every mode.

A word no searched document holds is read as the nearest word they do (1 edit for words of 5–8
letters, 2 for longer ones), and the answer says "Showing results for …"; --no-typo-tolerance takes
every word as written. An empty answer says why (for example: no document passes the filter).

Scores are in [0, 1], higher is better: hybrid, fused and relative to the best match of the query;
text, BM25 relative to the best match; vector, cosine similarity. --min-score drops results below
a score as printed. Results found only by meaning are kept only when they stand out from the
collections' unrelated text, so no results means nothing relevant was found.

Examples:
  docsift search how are embeddings indexed
  docsift search '"refund policy" -draft' --collection contracts --limit 10
  docsift search invoices --mode text --json | jq '.results[].title'
  docsift search termination --where 'year >= 2024 and dept = legal and not tags in (draft)'
  docsift search refund --collections contracts,handbook --filter '{"document": "<uuid>"}'
  docsift search onboarding checklist --min-score 0.5
  docsift search termination --facets tags,metadata.dept

Matched words are marked as the server found them (stemmed: "running" marks "runs"; typo-corrected
words too). --facets prints, after the results, how many of the matching documents carry each
value of the fields named (tags, collection, metadata.<key>); --json includes them.`,
  options: (cmd) =>
    cmd
      .option('-c, --collection <slug>', 'only this collection (slug)')
      .option('-n, --limit <n>', 'results, 1–50', '5')
      .option('-m, --mode <mode>', 'hybrid, text (BM25) or vector', 'hybrid')
      .option('--tag <tag>', 'only documents with this tag (repeatable)', collect)
      .option('--per-document <n>', 'at most this many results from one document')
      .option('--where <expr>', "filter, readable: 'year >= 2024 and dept = legal' (see Filtering in the README)")
      .option('--filter <json>', 'filter as JSON (the API’s `filter`); with --where, both must hold')
      .option('--collections <slugs>', 'several collections at once, comma-separated')
      .option('--min-score <score>', 'only results scoring at least this (0–1, the score printed beside each result)')
      .option('--no-typo-tolerance', 'take every query word as written (no spelling correction)')
      .option('--facets <fields>', 'value counts of these fields over the matching documents: tags,collection,metadata.<key>')
      .option('--full', 'print whole chunks instead of snippets'),
  parse: (args, flags) => {
    const words = (args[0] as unknown as string[]) ?? [];
    const query = words.join(' ').trim();
    if (!query) throw new UsageError('The query is empty.');
    const request: SearchRequest = {
      query,
      limit: intFlag(flags.limit, '--limit', { max: 50 })!,
      mode: choiceFlag<SearchMode>(flags.mode, '--mode', ['hybrid', 'text', 'vector'])!,
    };
    const collection = stringFlag(flags.collection);
    if (collection) request.collection = collection;
    if (Array.isArray(flags.tag) && flags.tag.length) request.tags = flags.tag as string[];
    const notes: string[] = [];
    const filter = filterFlags(stringFlag(flags.where), stringFlag(flags.filter), notes);
    if (filter) request.filter = filter;
    const collections = stringFlag(flags.collections)
      ?.split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    if (collections?.length) request.collections = collections;
    const per = intFlag(flags.perDocument, '--per-document', { max: 50 });
    if (per) request.max_chunks_per_document = per;
    if (flags.minScore !== undefined) {
      const min = Number(flags.minScore);
      if (typeof flags.minScore !== 'string' || !flags.minScore.trim() || !Number.isFinite(min) || min < 0 || min > 1)
        throw new UsageError('--min-score must be a number between 0 and 1.');
      request.score_threshold = min;
    }
    if (flags.typoTolerance === false) request.typo_tolerance = false;
    const facets = facetFields(flags.facets);
    if (facets) request.facets = facets;
    return { request, full: !!flags.full, notes };
  },
  async run(ctx, { request, full, notes }) {
    for (const n of notes) ctx.out.warn(n);
    const r = await (await ctx.client()).search(request);
    ctx.out.result(r, () => {
      const o = ctx.out;
      if (r.correction) o.line(`Showing results for "${r.correction.query}".`);
      if (!r.results.length) {
        o.line(`No results for "${r.query}". ${r.reason?.message ?? 'Nothing relevant was found in the searched documents.'}`);
        for (const w of r.warnings) o.line(`Warning: ${w.message}`);
        o.line(`Next: ${nextSteps(request, r.reason?.code, r.warnings.length > 0)}.`);
        return;
      }
      const mark = (t: string) => (o.color ? o.paint(['bold', 'yellow'], t) : t);
      r.results.forEach((res, i) => {
        const page = res.page ? ` · p.${res.page}` : '';
        o.line(
          `${o.bold(`${i + 1}.`)} ${o.bold(res.title)}  ${o.dim(`${res.collection_name} (${res.collection_slug})${page} · score ${res.score.toFixed(3)}`)}`,
        );
        o.line(`   ${renderSnippet(snippet(res.content, res.highlights, full ? res.content.length + 10 : 240), mark)}`);
        if (res.tags.length) o.line(`   ${o.dim(`tags: ${res.tags.join(', ')}`)}`);
        o.line(`   ${o.dim(`document ${res.document_id} · chunk ${res.chunk_index}`)}`);
        if (i < r.results.length - 1) o.line();
      });
      const note = r.fallback === 'text_only' ? ' · vector channel unavailable: text-only results' : '';
      o.note(o.dim(`${r.count} result${r.count === 1 ? '' : 's'} · ${r.mode}${note}`));
      if (r.facets) {
        o.line();
        printFacets(o, r.facets);
      }
    });
  },
});

/** What could still find something, by the reason the answer gives. */
function nextSteps(request: SearchRequest, reason: string | undefined, warned: boolean): string {
  if (reason === 'no_documents_pass_filter')
    return `${warned ? 'fix --where/--filter as the warnings say' : 'loosen --where/--filter/--tag'}; or search without them`;
  if (reason === 'no_documents') return 'upload documents (docsift docs upload), or wait for the ones uploaded to finish processing';
  if (reason === 'below_score_threshold') return 'lower --min-score';
  if (reason === 'operators_left_nothing') return 'drop or loosen the "quoted phrase" or -excluded word';
  const filtered = request.collection || request.tags?.length;
  return `rephrase with words the documents would use${filtered ? '; drop --collection/--tag to search everything' : ''}${request.mode === 'text' ? '; try --mode hybrid' : ''}${request.score_threshold !== undefined ? '; lower --min-score' : ''}; or upload documents that cover it`;
}
