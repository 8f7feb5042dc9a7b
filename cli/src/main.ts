// Entry point. Two things happen before any command code loads:
// - a reader that stops early (`docsift search x | head -1`) closes our stdout; the next write
//   fails with EPIPE, which ends the run quietly with exit 0, as `head` intends (no stack trace);
// - `--version` answers from the version string alone, without loading the command tree.
import { VERSION } from './version.js';

process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});
// Nowhere left to report a closed stderr; the result on stdout still matters.
process.stderr.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
});

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) process.stdout.write(`${VERSION}\n`);
else await import('./run.js');
