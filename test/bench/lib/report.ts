// Output of benchmarks: aligned text tables on stdout and a JSON record under test/bench/results/
// (kept out of git) so runs can be compared later.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './env.js';

export type Cell = string | number | undefined | null;

/** Prints rows under a header with columns padded to fit; numbers are right-aligned. */
export function printTable(title: string, header: string[], rows: Cell[][], out: NodeJS.WritableStream = process.stdout): void {
  const text = (c: Cell) => (c === undefined || c === null ? '–' : String(c));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => text(r[i]).length)));
  const line = (cells: Cell[]) =>
    cells
      .map((c, i) => (typeof c === 'number' ? text(c).padStart(widths[i]!) : text(c).padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  out.write(`\n${title}\n`);
  out.write(line(header) + '\n');
  out.write(widths.map((w) => '-'.repeat(w)).join('  ') + '\n');
  for (const r of rows) out.write(line(r) + '\n');
}

/** Machine facts worth keeping next to the figures: the same benchmark differs a lot between hosts. */
export function machineInfo(): Record<string, unknown> {
  return {
    node: process.version,
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model,
    total_memory_mb: Math.round(os.totalmem() / 2 ** 20),
    load_average: os.loadavg().map((x) => Math.round(x * 100) / 100),
    hostname: os.hostname(),
  };
}

/** The commit measured, and how many files differed from it: figures belong to a code version. */
export function codeVersion(): { commit: string; dirty_files: number } {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    return { commit: git('rev-parse', '--short', 'HEAD'), dirty_files: git('status', '--porcelain').split('\n').filter(Boolean).length };
  } catch {
    return { commit: 'unknown', dirty_files: 0 };
  }
}

/** Writes test/bench/results/<name>-<timestamp>.json and returns its path. */
export function writeResults(name: string, data: unknown): string {
  const dir = path.join(repoRoot, 'test', 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = path.join(dir, `${name}-${stamp}.json`);
  writeFileSync(file, JSON.stringify(data, null, 2) + '\n');
  return file;
}
