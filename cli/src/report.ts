import type { Context } from './context.js';
import { describeError } from './errors.js';

/** Prints an error to stderr (JSON with --json) and returns the exit code it implies. */
export async function reportError(ctx: Context, err: unknown): Promise<number> {
  let baseUrl: string | undefined;
  let apiKey: string | undefined;
  try {
    ({ url: baseUrl, apiKey } = await ctx.credentials());
  } catch {
    baseUrl = undefined;
  }
  const { exitCode, ...report } = describeError(err, baseUrl, apiKey);
  const out = ctx.out;
  if (ctx.json) {
    out.stderr.write(JSON.stringify({ error: report }, null, 2) + '\n');
    return exitCode;
  }
  const paint = (s: string) => (out.stderr.isTTY && out.color ? out.red(s) : s);
  out.note(`${paint('error:')} ${report.message}${report.code ? ` (${report.code})` : ''}`);
  for (const [field, messages] of Object.entries(report.fields ?? {})) out.note(`  ${field}: ${messages.join('; ')}`);
  if (report.hint) out.note(`hint: ${report.hint}`);
  if (report.request_id) out.note(`request id: ${report.request_id}`);
  return exitCode;
}
