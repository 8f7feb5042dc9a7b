import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

// The shape of the source tree, checked like any behaviour: no import circle (type-only imports
// included: they tie modules together for readers and the compiler just the same), and the layering
// ARCHITECTURE.md describes.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_DIRS = ['daemon/src', 'sdk/src', 'cli/src'];
const IMPORT_RE =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && e.name !== 'dist') out.push(...sourceFiles(p));
    } else if (/\.(ts|tsx|mts|mjs)$/.test(e.name) && !/\.d\.ts$/.test(e.name)) out.push(p);
  }
  return out;
}

function resolveImport(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec).replace(/\.(js|mjs|ts|tsx)$/, '');
  for (const ext of ['.ts', '.tsx', '.mts', '.mjs', '/index.ts']) if (existsSync(base + ext)) return base + ext;
  return undefined;
}

/** Relative imports of every source file, repository-relative paths. */
export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const dir of SOURCE_DIRS) {
    for (const file of sourceFiles(path.join(ROOT, dir))) {
      const text = readFileSync(file, 'utf8');
      const deps = new Set<string>();
      for (const m of text.matchAll(IMPORT_RE)) {
        const target = resolveImport(file, m[1] ?? m[2] ?? m[3] ?? '');
        if (target) deps.add(path.relative(ROOT, target));
      }
      graph.set(path.relative(ROOT, file), [...deps].sort());
    }
  }
  return graph;
}

/** Every import circle (strongly connected component of more than one file, or a self-import), Tarjan. */
export function importCircles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) circles.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return circles;
}

describe('the import graph', () => {
  const graph = importGraph();

  it('reads every source file and its imports', () => {
    assert.ok(graph.size > 150, `found ${graph.size} files`);
    assert.ok(graph.get('daemon/src/app.ts')?.includes('daemon/src/routes/documents.ts'), 'app.ts imports the routes');
  });

  it('has no circle', () => {
    assert.deepEqual(importCircles(graph), []);
  });

  it('finds a circle when there is one (the check can fail)', () => {
    const g = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
      ['e.ts', ['e.ts']],
    ]);
    assert.deepEqual(importCircles(g), [['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  });

  it('keeps the layers apart: no route imports app.ts, and only the transports (routes, web, MCP) import routes/', () => {
    const offenders: string[] = [];
    for (const [file, deps] of graph) {
      if (file.startsWith('daemon/src/routes/') && deps.includes('daemon/src/app.ts')) offenders.push(`${file} → app.ts`);
      const httpLayer = /^daemon\/src\/(routes|web|mcp)\//.test(file) || file === 'daemon/src/app.ts';
      if (!httpLayer) for (const d of deps) if (d.startsWith('daemon/src/routes/')) offenders.push(`${file} → ${d}`);
    }
    assert.deepEqual(offenders, []);
  });

  it('has no folder circle: feature folders import each other one way only (root files are the kernel and the wiring)', () => {
    const folderOf = (f: string) => /^daemon\/src\/([^/]+)\//.exec(f)?.[1];
    const folders = new Map<string, string[]>();
    for (const [file, deps] of graph) {
      const from = folderOf(file);
      if (!from) continue;
      const to = new Set([...(folders.get(from) ?? []), ...deps.map(folderOf).filter((d): d is string => !!d && d !== from)]);
      folders.set(from, [...to].sort());
    }
    assert.deepEqual(importCircles(folders), []);
  });

  it('keeps the walls: auth/ never imports limits/, and only server.ts imports the job registry', () => {
    const offenders: string[] = [];
    for (const [file, deps] of graph) {
      for (const d of deps) {
        if (file.startsWith('daemon/src/auth/') && d.startsWith('daemon/src/limits/')) offenders.push(`${file} → ${d}`);
        if (d === 'daemon/src/job-registry.ts' && file !== 'daemon/src/server.ts') offenders.push(`${file} → ${d}`);
        if (d.startsWith('daemon/src/jobs/') && d !== 'daemon/src/jobs/queue.ts') offenders.push(`${file} → ${d}`);
      }
    }
    assert.deepEqual(offenders, []);
  });

  it('has no services/ grab-bag: use cases live in their feature folders', () => {
    assert.deepEqual(
      [...graph.keys()].filter((f) => f.startsWith('daemon/src/services/')),
      [],
    );
  });
});
