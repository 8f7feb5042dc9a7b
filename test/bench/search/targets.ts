// Targets of `npm run bench:search` (database size, build, latency at 100k and 1M chunks), as
// docs/performance.md's "Current figures" lists them.
import { find, ratio, target, type Target } from './report.js';
import type { Row } from './phase.js';

export interface PhaseSummary {
  size: number;
  rows: Row[];
  recall: { rows: { efSearch: number; recall10: number }[] };
  bytesPerChunk: number;
  databaseMb: number;
  /** load + folds + vacuum of every step so far, plus this step's HNSW build: a build from empty */
  buildFromEmptyS: number;
}

export function fullTargets(p: PhaseSummary, openRate: number): Target[] {
  const r = p.rows;
  const h16 = find(r, 'all', 'http', 'hybrid', 16);
  const open = find(r, 'all', 'http-open-loop', 'hybrid', 16);
  const rec = p.recall.rows.find((x) => x.efSearch === 100)?.recall10;
  const okEf = p.recall.rows.find((x) => x.recall10 >= 0.95)?.efSearch;
  const at = p.size.toLocaleString('en-US');
  return [
    target(`database bytes per chunk at ${at}`, p.bytesPerChunk, '<=', 10_240, 'B'),
    target('text-channel SQL p50, all 50 collections', find(r, 'all', 'sql', 'text-channel', 1)?.p50, '<=', 20, 'ms'),
    target('text-channel SQL p50, big collection (70%)', find(r, 'big', 'sql', 'text-channel', 1)?.p50, '<=', 20, 'ms', 'informative'),
    target('hybrid HTTP throughput at c=16', h16?.throughput, '>=', 150, '/s'),
    target('hybrid HTTP p99 at c=16', h16?.p99, '<=', 150, 'ms'),
    target('hybrid HTTP p50 at c=16', h16?.p50, '<=', 30, 'ms', 'closed loop: p50 ≈ 16 / throughput'),
    target(
      `hybrid HTTP p99, open loop offered ${openRate}/s`,
      open?.p99,
      '<=',
      100,
      'ms',
      `informative; achieved ${open?.throughput ?? '?'}/s`,
    ),
    ...(['text', 'hybrid', 'vector'] as const).map((m) =>
      target(`HTTP p50 / SQL p50, ${m}, c=1`, ratio(find(r, 'all', 'http', m, 1)?.p50, find(r, 'all', 'sql', m, 1)?.p50), '<=', 1.3, '×'),
    ),
    target(
      'idle-box capacity estimate, hybrid (2 cores / server CPU per search)',
      h16?.cpuMsPerRequest ? Math.round(2000 / h16.cpuMsPerRequest) : undefined,
      '>=',
      150,
      '/s',
      'informative: excludes the load generator',
    ),
    target(
      'HNSW recall@10 at ef_search 100',
      rec,
      '>=',
      0.95,
      '',
      okEf === undefined ? 'no swept ef_search reaches 0.95' : `lowest swept ef_search reaching 0.95: ${okEf}`,
    ),
  ];
}

export function millionTargets(p: PhaseSummary, buildCpuS?: number): Target[] {
  const r = p.rows;
  return [
    target('1M: database size', Math.round((p.databaseMb / 1024) * 10) / 10, '<=', 12, 'GiB'),
    target(
      '1M: build from empty (load, folds, vacuum, HNSW)',
      Math.round((p.buildFromEmptyS / 60) * 10) / 10,
      '<=',
      20,
      'min',
      buildCpuS === undefined ? undefined : `CPU of the loader and its PostgreSQL backends: ${Math.round(buildCpuS / 60)} min`,
    ),
    target('1M: database bytes per chunk', p.bytesPerChunk, '<=', 12_885, 'B', 'informative: 12 GiB / 1M'),
    target('1M: text-channel SQL p50, all collections', find(r, 'all', 'sql', 'text-channel', 1)?.p50, '<=', 30, 'ms'),
    target('1M: hybrid HTTP p50 at c=1, all collections', find(r, 'all', 'http', 'hybrid', 1)?.p50, '<=', 40, 'ms'),
    target('1M: HNSW recall@10 at ef_search 100', p.recall.rows.find((x) => x.efSearch === 100)?.recall10, '>=', 0.95, '', 'informative'),
  ];
}
