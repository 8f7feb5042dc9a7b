// Expands the paths, directories and glob patterns given to `docs upload` into a file list.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { filesInDirectory } from '@docsift/sdk/node';

export interface Expanded {
  files: string[];
  /** Arguments that produced nothing, with the reason. */
  missing: { path: string; reason: string }[];
}

const GLOB_CHARS = /[*?[\]{}]/;

export async function expandInputs(inputs: string[]): Promise<Expanded> {
  const seen = new Set<string>();
  const files: string[] = [];
  const missing: Expanded['missing'] = [];
  const add = (f: string) => {
    const abs = path.resolve(f);
    if (!seen.has(abs)) {
      seen.add(abs);
      files.push(f);
    }
  };
  for (const input of inputs) {
    const info = await stat(input).catch(() => undefined);
    if (info?.isDirectory()) {
      const found = await filesInDirectory(input);
      if (!found.length) missing.push({ path: input, reason: 'directory has no files' });
      found.forEach(add);
    } else if (info?.isFile()) add(input);
    else if (GLOB_CHARS.test(input)) {
      // Quoted patterns (shells expand unquoted ones); `**` recurses. Dot-files are left out like in directories.
      const { glob } = await import('tinyglobby');
      const found = (await glob(input, { onlyFiles: true, dot: false, expandDirectories: false })).sort();
      if (!found.length) missing.push({ path: input, reason: 'no files match this pattern' });
      found.forEach(add);
    } else missing.push({ path: input, reason: info ? 'not a regular file' : 'no such file or directory' });
  }
  return { files, missing };
}
