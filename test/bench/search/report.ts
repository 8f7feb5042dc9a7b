// Tables and targets of `npm run bench:search`.
import { printTable, type Cell } from '../lib/report.js';
import type { RecallRow } from './recall.js';
import type { Row } from './phase.js';

export interface Target {
  name: string;
  value: number | undefined;
  op: '<=' | '>=';
  limit: number;
  unit: string;
  pass: boolean;
  note?: string;
}

export function target(name: string, value: number | undefined, op: '<=' | '>=', limit: number, unit: string, note?: string): Target {
  const pass = value !== undefined && (op === '<=' ? value <= limit : value >= limit);
  return { name, value, op, limit, unit, pass, ...(note ? { note } : {}) };
}

export function find(rows: Row[], scope: string, kind: Row['kind'], step: string, concurrency: number): Row | undefined {
  return rows.find((r) => r.scope === scope && r.kind === kind && r.step === step && r.concurrency === concurrency);
}

export function ratio(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || !b ? undefined : Math.round((a / b) * 100) / 100;
}

/** Latency table of one corpus size: SQL floor and HTTP side by side, and their ratio. */
export function printPhase(title: string, rows: Row[]): void {
  const out: Cell[][] = [];
  for (const scope of ['all', 'big', 'small']) {
    for (const step of ['text-channel', 'typo-step', 'vector-channel', 'hydrate']) {
      const s = find(rows, scope, 'sql', step, 1);
      if (s) out.push([scope, step, 1, s.p50, s.p99, s.throughput, s.cpuMsPerRequest, '', '', '', '', '', s.load1]);
    }
    for (const mode of ['text', 'hybrid', 'vector']) {
      for (const c of [1, 16]) {
        const s = find(rows, scope, 'sql', mode, c);
        const h = find(rows, scope, 'http', mode, c);
        if (!s && !h) continue;
        out.push([
          scope,
          mode,
          c,
          s?.p50,
          s?.p99,
          s?.throughput,
          s?.cpuMsPerRequest,
          h?.p50,
          h?.p99,
          h?.throughput,
          h?.cpuMsPerRequest,
          ratio(h?.p50, s?.p50),
          h?.load1 ?? s?.load1,
        ]);
      }
      const o = find(rows, scope, 'http-open-loop', mode, 16);
      if (o)
        out.push([
          scope,
          `${mode} @${(o as Row & { offeredRate?: number }).offeredRate}/s open`,
          16,
          '',
          '',
          '',
          '',
          o.p50,
          o.p99,
          o.throughput,
          '',
          '',
          o.load1,
        ]);
    }
  }
  printTable(
    title,
    [
      'scope',
      'step / mode',
      'c',
      'SQL p50',
      'SQL p99',
      'SQL /s',
      'SQL cpu',
      'HTTP p50',
      'HTTP p99',
      'HTTP /s',
      'HTTP cpu',
      'HTTP/SQL p50',
      'load1',
    ],
    out,
  );
}

export function printRecall(title: string, rows: RecallRow[], exactP50Ms: number): void {
  printTable(
    `${title} (exact search p50 ${exactP50Ms} ms)`,
    ['ef_search', 'recall@10', 'recall@100', 'short lists', 'p50 ms', 'p99 ms'],
    rows.map((r) => [r.efSearch, r.recall10.toFixed(4), r.recall100.toFixed(4), r.short, r.p50Ms, r.p99Ms]),
  );
}

export function printTargets(targets: Target[], title = 'Targets (query embedding excluded)'): void {
  printTable(
    title,
    ['target', 'measured', 'limit', 'result', 'note'],
    targets.map((t) => [
      t.name,
      t.value === undefined ? '–' : `${t.value} ${t.unit}`,
      `${t.op} ${t.limit} ${t.unit}`,
      t.pass ? 'PASS' : 'FAIL',
      t.note ?? '',
    ]),
  );
}
