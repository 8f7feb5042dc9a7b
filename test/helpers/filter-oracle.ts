// The filter language's meaning, written independently of the SQL (daemon/src/filters/compile.ts):
// an exhaustive in-JS evaluation of a filter against one document, for property tests.
export interface OracleDoc {
  uuid: string;
  tags: string[];
  source_type: string;
  collection_slug: string;
  created_at: string;
  original_filename: string;
  metadata: Record<string, string | number | boolean | string[]>;
}

const BUILTIN = new Set(['tags', 'source_type', 'collection', 'document', 'created_at', 'original_filename']);

/** Code point order (PostgreSQL collation "C" on UTF-8), not JavaScript's UTF-16 order. */
function cmpStrings(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

function rangeOk(op: string, c: number): boolean {
  return op === 'gt' ? c > 0 : op === 'gte' ? c >= 0 : op === 'lt' ? c < 0 : c <= 0;
}

function metaOp(v: unknown, op: string, x: any): boolean {
  const eq = (y: any) => (Array.isArray(v) ? typeof y === 'string' && v.includes(y) : v !== undefined && v === y);
  switch (op) {
    case 'eq':
      return eq(x);
    case 'ne':
      return !eq(x);
    case 'in':
      return x.some(eq);
    case 'nin':
      return !x.some(eq);
    case 'exists':
      return (v !== undefined) === x;
    default: {
      if (typeof x === 'number') return typeof v === 'number' && rangeOk(op, v - x);
      if (typeof v === 'string') return rangeOk(op, cmpStrings(v, x));
      if (Array.isArray(v)) return v.some((e) => rangeOk(op, cmpStrings(e, x)));
      return false;
    }
  }
}

function columnOp(v: string, op: string, x: any, cmp: (a: string, b: string) => number): boolean {
  switch (op) {
    case 'eq':
      return cmp(v, x) === 0;
    case 'ne':
      return cmp(v, x) !== 0;
    case 'in':
      return x.some((y: string) => cmp(v, y) === 0);
    case 'nin':
      return !x.some((y: string) => cmp(v, y) === 0);
    case 'prefix':
      return v.startsWith(x);
    default:
      return rangeOk(op, cmp(v, x));
  }
}

function leaf(doc: OracleDoc, field: string, op: string, x: any): boolean {
  switch (field) {
    case 'tags': {
      const lower = doc.tags.map((t) => t.toLowerCase());
      const has = (y: string) => lower.includes(y.toLowerCase());
      if (op === 'exists') return lower.length > 0 === x;
      if (op === 'eq') return has(x);
      if (op === 'ne') return !has(x);
      if (op === 'in') return x.some(has);
      return !x.some(has);
    }
    case 'source_type':
      return columnOp(doc.source_type, op, x, cmpStrings);
    case 'collection':
      return columnOp(doc.collection_slug, op, x, cmpStrings);
    case 'original_filename':
      return columnOp(doc.original_filename, op, x, cmpStrings);
    case 'document':
      return columnOp(doc.uuid, op, x, (a, b) => (a.toLowerCase() === b.toLowerCase() ? 0 : 1));
    case 'created_at':
      return columnOp(doc.created_at, op, x, (a, b) => Date.parse(a) - Date.parse(b));
    default: {
      const key = field.startsWith('metadata.') ? field.slice(9) : field;
      return metaOp(doc.metadata[key], op, x);
    }
  }
}

/** Whether `doc` passes `filter` (the JSON form the API takes). */
export function matches(doc: OracleDoc, filter: any): boolean {
  return Object.entries(filter).every(([k, v]: [string, any]) => {
    if (k === 'and') return v.every((f: any) => matches(doc, f));
    if (k === 'or') return v.some((f: any) => matches(doc, f));
    if (k === 'not') return !matches(doc, v);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return leaf(doc, k, 'eq', v);
    return Object.entries(v).every(([op, x]) => leaf(doc, k, op, x));
  });
}

export const isBuiltin = (f: string) => BUILTIN.has(f);
