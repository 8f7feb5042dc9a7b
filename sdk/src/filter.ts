// The filter language of search and the document list (OpenAPI schema `Filter`), as TypeScript
// types. The generated `Filter` is an intersection an object literal cannot satisfy (its `and`
// must also be a condition), so the SDK names these instead and the request types use them.

/** A value a field is compared with. */
export type FilterValue = string | number | boolean;

/** Operators on one field; a bare value means `eq`. */
export type FilterCondition =
  | FilterValue
  | {
      eq?: FilterValue;
      ne?: FilterValue;
      in?: FilterValue[];
      nin?: FilterValue[];
      gt?: string | number;
      gte?: string | number;
      lt?: string | number;
      lte?: string | number;
      exists?: boolean;
      /** original_filename only. */
      prefix?: string;
    };

/** Built-in document fields; any other name is a metadata key (or write `metadata.<key>`). */
export type FilterField = 'tags' | 'source_type' | 'collection' | 'document' | 'created_at' | 'original_filename';

export type AndFilter = { and: Filter[] };
export type OrFilter = { or: Filter[] };
export type NotFilter = { not: Filter };
/** `{ year: { gte: 2024 }, dept: 'legal' }`: several fields are and-ed. */
export type FieldFilter = { [field: string]: FilterCondition } & { and?: never; or?: never; not?: never };

/**
 * `{ and: [{ year: { gte: 2024 } }, { dept: 'legal' }] }`, `{ document: uuid }`,
 * `{ not: { tags: { in: ['draft'] } } }`. A bad filter is a ValidationError whose `fields` names
 * the clause (`filter.and[1].year.gte`).
 */
export type Filter = AndFilter | OrFilter | NotFilter | FieldFilter;

/** A document's metadata: strings, numbers, booleans and arrays of strings (limits: OpenAPI `DocumentMetadata`). */
export type DocumentMetadata = Record<string, string | number | boolean | string[]>;
