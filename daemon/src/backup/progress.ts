// Progress of a backup or restore: one line rewritten in place on a terminal (at most 5 times a
// second), nothing on a pipe or with --json, where only the result is printed.

export interface Progress {
  /** The current state, e.g. "database 45.2 MB · files 1,234/5,183 (12.3 MB)". */
  update(line: string): void;
  /** A finished step, kept on its own line. */
  note(line: string): void;
  done(): void;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

export function createProgress(out: NodeJS.WritableStream & { isTTY?: boolean }, enabled: boolean, label: string): Progress {
  if (!enabled || !out.isTTY) return { update() {}, note() {}, done() {} };
  let last = 0;
  let shown = '';
  const write = (line: string) => {
    out.write(`\r\x1b[2K${label}: ${line}`);
    shown = line;
  };
  return {
    update(line) {
      const now = Date.now();
      if (now - last < 200) return;
      last = now;
      write(line);
    },
    note(line) {
      out.write(`\r\x1b[2K${label}: ${line}\n`);
      if (shown) write(shown);
    },
    done() {
      if (shown) out.write('\r\x1b[2K');
    },
  };
}
