// `node --import ./trace-modules.mjs …`: appends the URL of every ES module the process resolves to
// the file named by DOCSIFT_TRACE_MODULES, one per line, so a test can see what a command loaded.
import { register } from 'node:module';

if (process.env.DOCSIFT_TRACE_MODULES)
  register(
    `data:text/javascript,${encodeURIComponent(`
      import { appendFileSync } from 'node:fs';
      export async function resolve(specifier, context, next) {
        const r = await next(specifier, context);
        appendFileSync(${JSON.stringify(process.env.DOCSIFT_TRACE_MODULES)}, r.url + '\\n');
        return r;
      }`)}`,
  );
