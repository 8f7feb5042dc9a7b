// The filter grammar in a few lines, for tool schemas (MCP) where the OpenAPI text is too long.
import { FILTER_LIMITS } from './parse.js';

export const FILTER_SUMMARY =
  'Only chunks of documents passing this filter. JSON: {"and": [f, …]}, {"or": [f, …]}, {"not": f}, or {"<field>": {"<op>": value}} ' +
  '(several keys are and-ed; a bare value means eq). Fields: tags, source_type, collection (slug), document (uuid), created_at (ISO 8601), ' +
  'original_filename, or any metadata key (as shown in results’ `metadata`). Ops: eq, ne, in, nin (lists), gt, gte, lt, lte, exists (true/false), ' +
  `prefix (original_filename). At most ${FILTER_LIMITS.clauses} conditions and ${FILTER_LIMITS.values} values in all. ` +
  'Example: {"and": [{"year": {"gte": 2024}}, {"dept": "legal"}]}; inside one document: {"document": "<uuid>"}.';
