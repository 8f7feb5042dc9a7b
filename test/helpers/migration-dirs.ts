// Migration folders of their own for migrate() tests: written to temporary directories, removed together.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export function migrationDirs() {
  const dirs: string[] = [];
  return {
    /** A folder holding exactly `files` (name → SQL). */
    async dir(files: Record<string, string>): Promise<string> {
      const d = await mkdtemp(path.join(os.tmpdir(), 'docsift-mig-'));
      dirs.push(d);
      for (const [name, text] of Object.entries(files)) await writeFile(path.join(d, name), text);
      return d;
    },
    async removeAll(): Promise<void> {
      for (const d of dirs) await rm(d, { recursive: true, force: true });
    },
  };
}
