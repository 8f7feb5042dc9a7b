import { z } from '@hono/zod-openapi';
import { BUILTIN_FIELDS, FILTER_LIMITS, METADATA_LIMITS } from '../filters/parse.js';
import { FILTER_SUMMARY } from '../filters/describe.js';
import type { App } from './router.js';

const L = METADATA_LIMITS;
export const DocumentMetadata = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]))
  .openapi('DocumentMetadata', {
    description: `Structured fields of a document, filterable in search and listing (\`filter\`). A flat JSON object: values are strings, numbers, booleans or arrays of strings (no nested objects, no null). Limits: at most ${L.keys} keys; a key is 1–${L.keyLength} letters, digits, \`_\`, \`-\` or \`.\`, starting with a letter or \`_\`; strings at most ${L.stringLength} characters; arrays at most ${L.arrayLength} strings; at most ${L.bytes} bytes as JSON. A violation answers 400 VALIDATION_FAILED naming the key (\`metadata.year\`).`,
    example: { year: 2024, dept: 'legal', confidential: false, parties: ['acme', 'globex'] },
  });

export const FILTER_DESCRIPTION = `A filter on documents (JSON). A node is \`{"and": [node, …]}\`, \`{"or": [node, …]}\`, \`{"not": node}\` or \`{"<field>": {"<operator>": value}}\`; several keys in one object are and-ed, several operators on one field too, and a bare value means \`eq\` (\`{"dept": "legal"}\`).

Fields: ${BUILTIN_FIELDS.map((f) => `\`${f}\``).join(', ')}, and any other name is a metadata key (also written \`metadata.<key>\`, which reaches a key named like a built-in field).

Operators: \`eq\`, \`ne\`, \`in\`, \`nin\` (lists of 1–${FILTER_LIMITS.listValues}), \`gt\`, \`gte\`, \`lt\`, \`lte\`, \`exists\` (true/false), and \`prefix\` (original_filename only). By field: metadata takes every operator but prefix (numbers compare as numbers, strings by code point; a string-array value matches \`eq\`/\`in\`/ranges when one element does); \`tags\` eq/ne/in/nin (case-insensitive) and exists; \`source_type\`, \`collection\` (slugs) and \`document\` (uuids) eq/ne/in/nin; \`created_at\` eq/ne/gt/gte/lt/lte with an ISO 8601 timestamp; \`original_filename\` eq/ne/in/nin/prefix.

Semantics: a missing key fails every operator except \`ne\`, \`nin\` and \`exists: false\` (\`ne\` is exactly \`not eq\`). Limits: ${FILTER_LIMITS.clauses} conditions, ${FILTER_LIMITS.depth} levels. A bad filter answers 400 VALIDATION_FAILED whose \`fields\` names the bad clause's path, for example \`filter.and[1].year.gt\`.`;

const EXAMPLE = { and: [{ year: { gte: 2024 } }, { dept: 'legal' }, { not: { tags: { in: ['draft'] } } }] };

const operand = { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] };
const list = { type: 'array', items: operand, minItems: 1, maxItems: FILTER_LIMITS.listValues };
const range = { oneOf: [{ type: 'string' }, { type: 'number' }] };

/** Registers the recursive `Filter` schema (a JSON Schema component: zod cannot name a recursive type for the generator). */
export function registerFilterSchemas(app: App): void {
  app.openAPIRegistry.registerComponent('schemas', 'FilterCondition', {
    description: 'Operators on one field; a bare string, number or boolean means `eq`.',
    oneOf: [
      operand,
      {
        type: 'object',
        additionalProperties: false,
        minProperties: 1,
        properties: {
          eq: operand,
          ne: operand,
          in: list,
          nin: list,
          gt: range,
          gte: range,
          lt: range,
          lte: range,
          exists: { type: 'boolean' },
          prefix: { type: 'string' },
        },
      },
    ],
  } as never);
  app.openAPIRegistry.registerComponent('schemas', 'Filter', {
    type: 'object',
    description: FILTER_DESCRIPTION,
    minProperties: 1,
    properties: {
      and: { type: 'array', items: { $ref: '#/components/schemas/Filter' }, minItems: 1 },
      or: { type: 'array', items: { $ref: '#/components/schemas/Filter' }, minItems: 1 },
      not: { $ref: '#/components/schemas/Filter' },
    },
    additionalProperties: { $ref: '#/components/schemas/FilterCondition' },
    example: EXAMPLE,
  } as never);
}

/** A request field holding a filter: checked by filters/parse.ts (paths in errors), documented as `Filter`. */
export const FilterField = z
  // Any JSON passes here (z.unknown() would be documented as nullable); parseFilter checks it.
  .custom<unknown>(() => true)
  .optional()
  .openapi({ type: 'object', description: FILTER_SUMMARY, allOf: [{ $ref: '#/components/schemas/Filter' }], example: EXAMPLE } as never);
