// Preloaded into a benchmarked daemon (node --import): its event loop's delay, measured inside the
// process with perf_hooks monitorEventLoopDelay. On SIGUSR2 it writes the delay since the last
// signal (ms: p50, p99, max, mean) to BENCH_LOOP_DELAY_FILE as JSON, then starts over.
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.BENCH_LOOP_DELAY_FILE;
if (file) {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  let seq = 0;
  process.on('SIGUSR2', () => {
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    const stats = { seq: ++seq, p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max), mean: ms(h.mean) };
    writeFileSync(file, JSON.stringify(stats));
    h.reset();
  });
}
