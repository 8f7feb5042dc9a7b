// The command line proper: builds the command tree and runs the command named in argv.
import { CommanderError } from 'commander';
import { buildProgram } from './program.js';
import { ExitCode } from './errors.js';

const program = buildProgram();
try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // Commander has already printed its message (to stderr); help and --version are successes.
    process.exitCode = ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(err.code) ? ExitCode.OK : ExitCode.USAGE;
  } else {
    process.stderr.write(`error: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exitCode = ExitCode.ERROR;
  }
}

// The command is done. Node's fetch keeps its idle connection (and its timers) alive for a while
// after the last answer, which held every one-request command open ~0.4 s longer: exit once the
// output is flushed.
await Promise.all([process.stdout, process.stderr].map((s) => (s.writableLength ? new Promise((r) => s.once('drain', r)) : undefined)));
process.exit();
