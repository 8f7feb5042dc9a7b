// Splits a user query into the part BM25 ranks (all words, OR semantics) and the operator part
// that must hold as a boolean filter: quoted phrases and -negations, in websearch_to_tsquery
// syntax. Plain words never become a filter: AND semantics collapses recall (SciFact nDCG@10
// 0.690 → 0.070).

// A quoted phrase (optionally negated, possibly unterminated) or a negated bare word. A '-'
// inside a word (covid-19, IL-6) is not an operator: it must follow start or whitespace.
const operatorPattern = /(?<=^|\s)-?"[^"]*(?:"|$)|(?<=^|\s)-[^\s"]+/g;

/** The query without its operator parts: the plain words, which rank (and which typo tolerance may correct). */
export function plainWords(query: string): string {
  return query.replace(operatorPattern, ' ');
}

export function operatorFilter(query: string): string {
  const parts = query.match(operatorPattern) ?? [];
  return parts
    .map((p) => p.trim())
    .filter((p) => /[\p{L}\p{N}]/u.test(p))
    .join(' ');
}
