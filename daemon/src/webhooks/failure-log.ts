// What the log says about failing webhook deliveries. A receiver that went away fails every attempt
// of every event (up to 6 attempts each), which was one log line per attempt: 1,400 lines in 4.5
// minutes for one local receiver. Per webhook endpoint, the first failure after a quiet spell is
// logged at once; later failures within the window (60 s) are counted and reported in one line when
// the window ends, with how many will be retried and how many were given up (those need a redeliver).
// A success, or stopping the daemon, reports a window's count at once. The delivery log
// (GET /api/v1/webhooks/deliveries/) keeps every attempt.
import type { Logger } from '../logger.js';

export const FAILURE_LOG_WINDOW_MS = 60_000;

export interface DeliveryFailure {
  webhookId: string;
  url: string;
  eventId: string;
  attempt: number;
  error: string | null;
  /** Another attempt is queued; false: this event was given up. */
  willRetry: boolean;
}

interface Window {
  url: string;
  started: number;
  failures: number;
  retrying: number;
  gaveUp: number;
  lastError: string | null;
  timer: NodeJS.Timeout;
}

export class WebhookFailureLog {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly logger: Logger,
    private readonly windowMs = FAILURE_LOG_WINDOW_MS,
  ) {}

  failed(f: DeliveryFailure): void {
    const w = this.windows.get(f.webhookId);
    if (w) {
      w.failures++;
      if (f.willRetry) w.retrying++;
      else w.gaveUp++;
      w.lastError = f.error;
      return;
    }
    const fields = { webhookId: f.webhookId, url: f.url, eventId: f.eventId, attempt: f.attempt, error: f.error };
    if (f.willRetry) this.logger.info(fields, 'webhook delivery failed: will retry (further failures to this URL are counted for 60 s)');
    else this.logger.warn(fields, 'webhook delivery failed: giving up (redeliver it once the receiver is back)');
    this.open(f.webhookId, f.url);
  }

  /** A delivery to this webhook succeeded: its failures so far are reported now. */
  delivered(webhookId: string): void {
    const w = this.windows.get(webhookId);
    if (!w) return;
    this.report(webhookId, w, 'then delivered again');
    this.close(webhookId, w);
  }

  /** Reports every open window (the daemon is stopping). */
  flush(): void {
    for (const [id, w] of [...this.windows]) {
      this.report(id, w, 'until shutdown');
      this.close(id, w);
    }
  }

  private open(webhookId: string, url: string): void {
    const timer = setTimeout(() => this.windowEnded(webhookId), this.windowMs);
    timer.unref();
    this.windows.set(webhookId, { url, started: Date.now(), failures: 0, retrying: 0, gaveUp: 0, lastError: null, timer });
  }

  private windowEnded(webhookId: string): void {
    const w = this.windows.get(webhookId);
    if (!w) return;
    this.windows.delete(webhookId);
    // Still failing: one line for the window, and a new window counts the next ones.
    if (w.failures > 0) {
      this.report(webhookId, w, `in ${Math.round(this.windowMs / 1000)} s`);
      this.open(webhookId, w.url);
    }
  }

  private report(webhookId: string, w: Window, span: string): void {
    if (w.failures === 0) return;
    const fields = { webhookId, url: w.url, failures: w.failures, willRetry: w.retrying, gaveUp: w.gaveUp, lastError: w.lastError };
    const msg = `webhook deliveries still failing: ${w.failures} more failure(s) to this URL ${span} (${w.retrying} will retry, ${w.gaveUp} given up)`;
    if (w.gaveUp > 0) this.logger.warn(fields, msg);
    else this.logger.info(fields, msg);
  }

  private close(webhookId: string, w: Window): void {
    clearTimeout(w.timer);
    this.windows.delete(webhookId);
  }
}
