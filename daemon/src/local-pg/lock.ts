import { open, readFile, stat, unlink } from 'node:fs/promises';
import type { Log } from './run.js';

/**
 * Exclusive lock via O_EXCL create of a file holding our pid. A lock whose pid is dead (or that
 * stayed empty for 10 s, i.e. its writer died mid-create) is stale and gets removed.
 */
export async function acquireLock(lockPath: string, log: Log): Promise<() => Promise<void>> {
  const deadline = Date.now() + 15 * 60_000; // a pgvector source build by the holder can take a while
  let noted = 0;
  for (;;) {
    try {
      const fh = await open(lockPath, 'wx', 0o644);
      await fh.writeFile(`${process.pid}\n`);
      await fh.close();
      return async () => {
        const owner = await readFile(lockPath, 'utf8').catch(() => '');
        if (owner.trim() === String(process.pid)) await unlink(lockPath).catch(() => {});
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const st = await stat(lockPath).catch(() => undefined);
    const pid = Number((await readFile(lockPath, 'utf8').catch(() => '')).trim());
    if (!st) continue;
    if (pid ? !isAlive(pid) : Date.now() - st.mtimeMs > 10_000) {
      // Re-check the inode right before unlinking so we never remove a lock that was just re-taken.
      if ((await stat(lockPath).catch(() => undefined))?.ino === st.ino) {
        log(`removing stale lock ${lockPath} (pid ${pid || 'unknown'} is gone)`);
        await unlink(lockPath).catch(() => {});
      }
      continue;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${lockPath} held by pid ${pid}; delete it if that process is not docsift`);
    if (Date.now() - noted > 10_000) {
      noted = Date.now();
      log(`waiting for pid ${pid} to finish setting up PostgreSQL (${lockPath})`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists but belongs to another user
  }
}
