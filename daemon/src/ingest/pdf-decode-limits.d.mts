/** Thrown inside pdf.js past a limit (pdf-decode-limits.mjs). */
export class DecodeLimitError extends Error {
  readonly limit: 'stream' | 'live';
}
/** Sets the limits of the document pdf.js is about to read; `exceeded()` names the first one it passed. */
export function limitDecoding(limits: { maxStreamBytes: number; maxLiveBytes: number }): {
  exceeded(): 'stream' | 'live' | undefined;
  end(): void;
};
export function limitPdfJsDecoders(classes: Record<string, unknown>): void;
