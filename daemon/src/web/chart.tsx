import type { FC } from 'hono/jsx';
import { compact, count } from './format.js';
import { ColumnHeads } from './layout.js';

export interface DailyPoint {
  date: string;
  requests: number;
  errors: number;
}

const W = 960;
const H = 280;
const M = { top: 14, right: 10, bottom: 30, left: 52 };
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * Axis scale: a whole-number tick step of 1, 2 or 5 × 10^k giving at most four steps above zero,
 * so grid labels are round numbers (0, 50, 100, 150, 200 rather than 62.5 or 187.5).
 */
export function niceScale(n: number): { max: number; step: number } {
  if (n <= 4) return { max: 4, step: 1 };
  const raw = n / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((f) => f * mag).find((s) => s >= raw && Number.isInteger(s)) ?? Math.ceil(raw);
  return { max: Math.ceil(n / step) * step, step };
}

const dayLabel = (iso: string) => `${MONTHS[Number(iso.slice(5, 7)) - 1]} ${Number(iso.slice(8, 10))}`;

/**
 * Daily requests with their errors overlaid, as inline SVG. Colours come from CSS classes, so the
 * chart follows the light/dark scheme; each day is a focusable group (roving tabindex, arrow keys
 * with the page script) whose label states its figures for screen readers and the readout line.
 */
export const VolumeChart: FC<{ daily: DailyPoint[]; id: string }> = ({ daily, id }) => {
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const { max, step } = niceScale(Math.max(0, ...daily.map((d) => d.requests)));
  const y = (v: number) => M.top + plotH - (v / max) * plotH;
  const band = plotW / Math.max(1, daily.length);
  const barW = Math.max(1, Math.min(28, band * 0.7));
  const labelEvery = Math.max(1, Math.ceil(daily.length / 8));
  const narrow = band < 60;
  const ticks = Array.from({ length: max / step + 1 }, (_, i) => i * step);
  return (
    // biome-ignore lint/a11y/useSemanticElements: an SVG chart is grouped with its title via role=group (no fieldset inside SVG)
    <svg
      class="chart"
      viewBox={`0 0 ${W} ${H}`}
      role="group"
      aria-labelledby={`${id}-title`}
      data-chart
      data-readout={`${id}-readout`}
      id={id}
    >
      <title id={`${id}-title`}>
        Daily requests and errors, {daily[0]?.date} to {daily.at(-1)?.date}
      </title>
      {ticks.map((t) => (
        <g>
          <line class="grid-line" x1={M.left} x2={W - M.right} y1={y(t)} y2={y(t)} />
          <text class="axis-label" x={M.left - 8} y={y(t) + 4} text-anchor="end">
            {compact(t)}
          </text>
        </g>
      ))}
      {daily.map((d, i) => {
        const x = M.left + i * band + (band - barW) / 2;
        const label = `${d.date}: ${count(d.requests)} requests, ${count(d.errors)} errors`;
        return (
          <g
            class="col"
            tabindex={i === daily.length - 1 ? 0 : -1}
            aria-label={label}
            data-date={d.date}
            data-requests={d.requests}
            data-errors={d.errors}
          >
            <title>{label}</title>
            <rect class="hit" x={M.left + i * band} y={M.top} width={band} height={plotH} />
            {d.requests > 0 ? (
              <rect
                class="bar-requests"
                x={x}
                y={y(d.requests)}
                width={barW}
                height={Math.max(1, y(0) - y(d.requests))}
                rx={barW > 6 ? 2 : 0}
              />
            ) : null}
            {d.errors > 0 ? (
              <rect class="bar-errors" x={x} y={y(d.errors)} width={barW} height={Math.max(1, y(0) - y(d.errors))} rx={barW > 6 ? 2 : 0} />
            ) : null}
            {(i % labelEvery === 0 && daily.length - 1 - i >= labelEvery / 2) || i === daily.length - 1 ? (
              // With narrow days, the outermost labels hug the plot's edges instead of spilling over them.
              <text
                class="axis-label"
                x={narrow && i === 0 ? M.left : narrow && i === daily.length - 1 ? W - M.right : M.left + i * band + band / 2}
                y={H - 10}
                text-anchor={narrow && i === 0 ? 'start' : narrow && i === daily.length - 1 ? 'end' : 'middle'}
              >
                {dayLabel(d.date)}
              </text>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
};

/** The chart's figures as a table, for anyone who prefers numbers (or cannot see the bars). */
export const ChartTable: FC<{ daily: DailyPoint[] }> = ({ daily }) => (
  <details class="section">
    <summary>Show the daily figures as a table</summary>
    <div class="table-wrap section">
      <table>
        <ColumnHeads cols={['Day (UTC)', ['Requests', 'num'], ['Errors', 'num']]} />
        <tbody>
          {[...daily].reverse().map((d) => (
            <tr>
              <td>{d.date}</td>
              <td class="num">{count(d.requests)}</td>
              <td class="num">{count(d.errors)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  </details>
);
