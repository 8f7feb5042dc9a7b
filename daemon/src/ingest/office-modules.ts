import { createRequire } from 'node:module';
import path from 'node:path';

type Loader = Record<'loadFileType' | 'loadPdfJs', (() => Promise<unknown>) | undefined>;

/**
 * officeparser loads its ESM-only dependencies (file-type for every document, pdf.js for every PDF)
 * with a dynamic import() per document (utils/moduleLoader.js: `import('url')`, then the module's
 * file URL). An import() of a loaded module returns the same instance, but it still resolves its
 * specifier, and under tsx's loader (the daemon and its extraction threads run with it) every
 * resolution is a round trip to the loader's thread with file-system checks: about 0.5 ms of CPU
 * per import, two per office document and four per PDF, more than parsing a small document costs.
 *
 * officeparser calls these loaders through their module's exports object at each call
 * (`moduleLoader_js_1.loadFileType()`), so replacing them there with memoised ones makes the
 * second and later documents reuse the first load. The same modules, loaded once; a failed load is
 * not kept (the next document tries again, as before). Returns whether the loaders were found
 * (a later officeparser that loads differently simply keeps its own behaviour).
 */
export function memoiseOfficeModuleLoaders(): boolean {
  const require = createRequire(import.meta.url);
  let loader: Partial<Loader>;
  try {
    loader = require(path.join(path.dirname(require.resolve('officeparser')), 'utils', 'moduleLoader.js')) as Partial<Loader>;
  } catch {
    return false;
  }
  const names = ['loadFileType', 'loadPdfJs'] as const;
  if (!names.every((n) => typeof loader[n] === 'function')) return false;
  for (const name of names) {
    const load = loader[name]!;
    if ((load as { memoised?: boolean }).memoised) continue;
    let loading: Promise<unknown> | undefined;
    const memoised = () =>
      (loading ??= load().catch((err: unknown) => {
        loading = undefined;
        throw err;
      }));
    loader[name] = Object.assign(memoised, { memoised: true });
  }
  return true;
}

/** The loaders officeparser calls now (for tests). */
export function officeModuleLoaders(): Partial<Loader> {
  const require = createRequire(import.meta.url);
  return require(path.join(path.dirname(require.resolve('officeparser')), 'utils', 'moduleLoader.js')) as Partial<Loader>;
}
