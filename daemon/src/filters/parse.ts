// The filter language of search (REST, MCP, web UI) and the document list: a JSON tree checked
// here into a typed tree (compile.ts turns it into SQL). Every refusal is 400 VALIDATION_FAILED
// naming the path of the bad clause (`filter.and[1].year.gt`); nothing is dropped silently.
import { AppError } from '../errors.js';
import { isUuid } from '../ids.js';
import { METADATA_KEY, METADATA_LIMITS, unstorableText } from '../metadata.js';

export type Scalar = string | number | boolean;
export type Op = 'eq' | 'ne' | 'in' | 'nin' | 'gt' | 'gte' | 'lt' | 'lte' | 'exists' | 'prefix';
export const OPS: readonly Op[] = ['eq', 'ne', 'in', 'nin', 'gt', 'gte', 'lt', 'lte', 'exists', 'prefix'];
export const BUILTIN_FIELDS = ['tags', 'source_type', 'collection', 'document', 'created_at', 'original_filename'] as const;
export type BuiltinField = (typeof BUILTIN_FIELDS)[number];

export type Field = { kind: 'metadata'; key: string } | { kind: BuiltinField };
export type Leaf =
  | { field: Field; op: 'eq' | 'ne'; value: Scalar }
  | { field: Field; op: 'in' | 'nin'; value: Scalar[] }
  | { field: Field; op: 'gt' | 'gte' | 'lt' | 'lte'; value: string | number }
  | { field: Field; op: 'exists'; value: boolean }
  | { field: Field; op: 'prefix'; value: string };
export type FilterNode = { and: FilterNode[] } | { or: FilterNode[] } | { not: FilterNode } | Leaf;

/**
 * A filter's cost budget, checked while it is parsed, before any other work: conditions (leaves),
 * values in all (each operand and each element of an `in`/`nin` list counts one), characters of
 * its strings in all, nesting depth, and each list's and string's length. A filter travels with
 * each statement that tests it (up to four per search) and is tested on every document a statement
 * reads, so its cost grows with its values and their bytes: 100 conditions of 100 values each
 * (about 100 KB) cost 1.7-4 s of API CPU. The largest filter within this budget is measured by
 * npm run bench:filters. 500 uuids (a search inside 500 documents) take 18,000 characters.
 */
export const FILTER_LIMITS = { clauses: 100, values: 500, characters: 65_536, depth: 10, listValues: 100, stringLength: 1000 } as const;

/** Which operators each field takes, and what kind of value. */
const ALLOWED: Record<BuiltinField | 'metadata', readonly Op[]> = {
  metadata: ['eq', 'ne', 'in', 'nin', 'gt', 'gte', 'lt', 'lte', 'exists'],
  tags: ['eq', 'ne', 'in', 'nin', 'exists'],
  source_type: ['eq', 'ne', 'in', 'nin'],
  collection: ['eq', 'ne', 'in', 'nin'],
  document: ['eq', 'ne', 'in', 'nin'],
  created_at: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'],
  original_filename: ['eq', 'ne', 'in', 'nin', 'prefix'],
};

class Bad extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

function resolveField(name: string, path: string): Field {
  if ((BUILTIN_FIELDS as readonly string[]).includes(name)) return { kind: name as BuiltinField };
  const key = name.startsWith('metadata.') ? name.slice('metadata.'.length) : name;
  if (key.length > METADATA_LIMITS.keyLength || !METADATA_KEY.test(key))
    throw new Bad(path, `Unknown field "${name}": use ${BUILTIN_FIELDS.join(', ')}, or a metadata key (bare or as metadata.<key>).`);
  return { kind: 'metadata', key };
}

function checkString(v: string, path: string): string {
  if (v.length > FILTER_LIMITS.stringLength) throw new Bad(path, `Strings are at most ${FILTER_LIMITS.stringLength} characters.`);
  const problem = unstorableText(v);
  if (problem) throw new Bad(path, problem);
  return v;
}

/** The instants a timestamptz parameter can carry: years 1 to 9999 in UTC (year 0 and "+010000" do not parse). */
const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

function checkTimestamp(v: unknown): boolean {
  if (typeof v !== 'string' || !TIMESTAMP.test(v)) return false;
  const t = Date.parse(v);
  return t >= FIRST_INSTANT && t <= LAST_INSTANT;
}

/** One operand, checked against what the field holds. */
function operand(field: Field, op: Op, v: unknown, path: string): Scalar {
  const want = (ok: boolean, what: string) => {
    if (!ok) throw new Bad(path, `"${op}" on ${field.kind === 'metadata' ? `metadata key "${field.key}"` : field.kind} needs ${what}.`);
  };
  switch (field.kind) {
    case 'metadata':
      if (op === 'gt' || op === 'gte' || op === 'lt' || op === 'lte')
        want((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'string', 'a number or a string');
      else
        want(
          typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)),
          'a string, number or boolean',
        );
      return typeof v === 'string' ? checkString(v, path) : (v as Scalar);
    case 'document':
      want(typeof v === 'string' && isUuid(v), 'a document uuid');
      return (v as string).toLowerCase();
    case 'created_at':
      want(checkTimestamp(v), 'an ISO 8601 timestamp between years 1 and 9999 in UTC, such as 2024-01-31T00:00:00Z');
      return v as string;
    default:
      want(typeof v === 'string', 'a string');
      return checkString(v as string, path);
  }
}

/** What a filter has spent of its budget so far; `root` names the whole filter in errors. */
class Budget {
  private conditions = 0;
  private values = 0;
  private characters = 0;
  constructor(readonly root: string) {}

  condition(path: string): void {
    if (++this.conditions > FILTER_LIMITS.clauses) throw new Bad(path, `At most ${FILTER_LIMITS.clauses} conditions in one filter.`);
  }

  /** A leaf's operands, counted before any of them is checked. */
  spend(operands: readonly unknown[]): void {
    this.values += operands.length;
    for (const v of operands) if (typeof v === 'string') this.characters += v.length;
    if (this.values > FILTER_LIMITS.values)
      throw new Bad(
        this.root,
        `A filter holds at most ${FILTER_LIMITS.values} values in all (each operand, and each element of an in or nin list, counts one).`,
      );
    if (this.characters > FILTER_LIMITS.characters)
      throw new Bad(this.root, `A filter's strings hold at most ${FILTER_LIMITS.characters.toLocaleString('en')} characters in all.`);
  }
}

function leaf(field: Field, op: string, v: unknown, path: string, budget: Budget): Leaf {
  if (!(OPS as readonly string[]).includes(op)) throw new Bad(path, `Unknown operator "${op}": use ${OPS.join(', ')}.`);
  const o = op as Op;
  if (!ALLOWED[field.kind].includes(o))
    throw new Bad(
      path,
      `"${o}" does not apply to ${field.kind === 'metadata' ? 'metadata' : field.kind}: use ${ALLOWED[field.kind].join(', ')}.`,
    );
  if (o === 'exists') {
    if (typeof v !== 'boolean') throw new Bad(path, '"exists" needs true or false.');
    budget.spend([v]);
    return { field, op: o, value: v };
  }
  if (o === 'in' || o === 'nin') {
    if (!Array.isArray(v) || v.length < 1 || v.length > FILTER_LIMITS.listValues)
      throw new Bad(path, `"${o}" needs a list of 1 to ${FILTER_LIMITS.listValues} values.`);
    budget.spend(v);
    return { field, op: o, value: v.map((x, i) => operand(field, 'eq', x, `${path}[${i}]`)) };
  }
  budget.spend([v]);
  const value = operand(field, o, v, path);
  if (o === 'prefix') return { field, op: o, value: value as string };
  if (o === 'gt' || o === 'gte' || o === 'lt' || o === 'lte') return { field, op: o, value: value as string | number };
  return { field, op: o, value };
}

function node(raw: unknown, path: string, depth: number, budget: Budget): FilterNode {
  if (depth > FILTER_LIMITS.depth) throw new Bad(path, `Filters nest at most ${FILTER_LIMITS.depth} levels.`);
  if (!isObject(raw) || !Object.keys(raw).length)
    throw new Bad(path, 'A filter is an object: {"and": […]}, {"or": […]}, {"not": {…}} or {"<field>": {"<operator>": value}}.');
  const parts: FilterNode[] = [];
  for (const [key, v] of Object.entries(raw)) {
    const at = `${path}.${key}`;
    if (key === 'and' || key === 'or') {
      if (!Array.isArray(v) || !v.length) throw new Bad(at, `"${key}" needs a non-empty list of filters.`);
      const list = v.map((x, i) => node(x, `${at}[${i}]`, depth + 1, budget));
      parts.push(key === 'and' ? { and: list } : { or: list });
    } else if (key === 'not') {
      parts.push({ not: node(v, at, depth + 1, budget) });
    } else {
      const field = resolveField(key, at);
      // A bare value is shorthand for eq: {"dept": "legal"}.
      const ops = isObject(v) ? Object.entries(v) : [['eq', v] as const];
      if (!ops.length) throw new Bad(at, 'Give at least one operator.');
      for (const [op, operandValue] of ops) {
        budget.condition(at);
        parts.push(leaf(field, op, operandValue, isObject(v) ? `${at}.${op}` : at, budget));
      }
    }
  }
  return parts.length === 1 ? parts[0]! : { and: parts };
}

/** Checks a filter (parsed JSON); `name` is the request field it came from (`filter`). */
export function parseFilter(raw: unknown, name = 'filter'): FilterNode {
  try {
    return node(raw, name, 1, new Budget(name));
  } catch (err) {
    if (err instanceof Bad)
      throw new AppError('VALIDATION_FAILED', `Invalid filter at ${err.path}: ${err.message}`, { [err.path]: [err.message] });
    throw err;
  }
}

/** A filter sent as JSON text (a query parameter, a form field). */
export function parseFilterText(text: string, name = 'filter'): FilterNode {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new AppError('VALIDATION_FAILED', `Invalid filter: ${name} must be JSON.`, { [name]: ['Must be a JSON object.'] });
  }
  return parseFilter(raw, name);
}
