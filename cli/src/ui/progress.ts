// Progress reporting that fits where output goes: a live ink view on an interactive stderr, a line
// every few seconds in logs (CI), and nothing at all with --quiet.
import type { Context } from '../context.js';
import { formatBytes } from '../output.js';
import { formatRetryWait, type RetryWait } from '../retry-notice.js';
import type { UploadView, WaitView } from './progress-view.js';

export interface ProgressSink<S> {
  update(state: Omit<S, 'elapsedMs'>): void;
  /** Renders the final state and releases the terminal. */
  done(): Promise<void>;
}

type Kind = 'upload' | 'wait';
type StateOf<K extends Kind> = K extends 'upload' ? UploadView : WaitView;

function describe(kind: Kind, s: UploadView | WaitView): string {
  if (kind === 'upload') {
    const u = s as UploadView;
    return `upload: ${u.filesDone}/${u.filesTotal} files, ${formatBytes(u.bytesDone)}/${formatBytes(u.bytesTotal)} (${u.uploaded} uploaded, ${u.replaced !== undefined ? `${u.replaced} replaced, ` : ''}${u.skipped} skipped, ${u.failed} failed)`;
  }
  const w = s as WaitView;
  return `indexing: ${w.pending} pending, ${w.indexed} indexed, ${w.failed} failed (of ${w.total})`;
}

export async function createProgress<K extends Kind>(
  ctx: Context,
  kind: K,
  opts: { quiet?: boolean } = {},
): Promise<ProgressSink<StateOf<K>>> {
  const started = Date.now();
  if (opts.quiet) return { update: () => {}, done: async () => {} };

  if (ctx.liveProgress) {
    const [{ render }, { createElement }, views] = await Promise.all([import('ink'), import('react'), import('./progress-view.js')]);
    const view = (kind === 'upload' ? views.UploadProgressView : views.WaitProgressView) as (
      p: StateOf<K>,
    ) => ReturnType<typeof views.UploadProgressView>;
    let last: StateOf<K> | undefined;
    // A wait before a retry shows as one line of the view, counting down, until it is over.
    let waiting: RetryWait | undefined;
    const element = (s: StateOf<K>) => {
      const now = Date.now();
      const notice = waiting && waiting.untilMs > now ? formatRetryWait(waiting, now) : undefined;
      const props: StateOf<K> = { ...s, elapsedMs: now - started, notice };
      return createElement(view as (p: object) => import('react').ReactElement, props);
    };
    let instance: ReturnType<typeof render> | undefined;
    // Redraw the elapsed time (and a wait's countdown) even when no request completes for a while.
    const ticker = setInterval(() => last && instance?.rerender(element(last)), 250);
    ctx.onRetryWait((w) => {
      waiting = w;
      if (last && instance) instance.rerender(element(last));
      else ctx.out.note(ctx.out.dim(formatRetryWait(w)));
    });
    return {
      update(state) {
        last = { ...state, elapsedMs: 0 } as StateOf<K>;
        if (!instance)
          instance = render(element(last), { stdout: process.stderr as NodeJS.WriteStream, patchConsole: false, exitOnCtrlC: true });
        else instance.rerender(element(last));
      },
      async done() {
        clearInterval(ticker);
        ctx.onRetryWait(undefined);
        waiting = undefined;
        if (instance && last) instance.rerender(element(last));
        instance?.unmount();
        await instance?.waitUntilExit();
      },
    };
  }

  // Logs: at most one line every 2 s, plus the final state.
  let lastLine = 0;
  let lastState: StateOf<K> | undefined;
  let printed = '';
  return {
    update(state) {
      lastState = { ...state, elapsedMs: Date.now() - started } as StateOf<K>;
      if (Date.now() - lastLine >= 2000) {
        lastLine = Date.now();
        printed = describe(kind, lastState);
        ctx.out.note(printed);
      }
    },
    async done() {
      if (lastState && describe(kind, lastState) !== printed) ctx.out.note(describe(kind, lastState));
    },
  };
}
