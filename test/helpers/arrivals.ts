/**
 * Waiting on something a test helper records as it arrives (a log line, a request's response):
 * `waitFor` resolves with the first value `find` returns, checking now and after every `notify()`,
 * and rejects after `timeoutMs` naming `what`. An observable event instead of a sleep.
 */
export function arrivals() {
  const waiters = new Set<() => void>();
  return {
    /** Call after the recorded data changed. */
    notify(): void {
      for (const w of waiters) w();
    },
    waitFor<T>(find: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = find();
          if (found === undefined) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}
