// Patches postgres.js (the `postgres` package) in node_modules so a lost database connection can
// never crash the process. Run by `npm install` (postinstall) and by `npm test`; idempotent.
//
// The defect (postgres 3.4.9, the newest release; upstream porsager/postgres#1154 and #1208, open):
// a small write is flushed from a setImmediate. When the connection closes first, closed() clears
// the timer but leaves `chunk` and `nextWriteTimer` set, and nulls `socket`. A later write on that
// connection (the ROLLBACK that sql.begin() sends after its query failed, or any query the
// transaction callback still issues) then either throws "Cannot read properties of null (reading
// 'write')" from the timer, which no caller can catch, or sits in the stale buffer and is prepended
// to the next connection's startup message, so that connection never comes back.
//
// The patch: closed() drops the stale buffer and timer, and a write that finds no socket rejects
// the queries waiting for it with CONNECTION_CLOSED, as for any other query of a closed connection.
// Remove this script once a postgres release fixes the issues (the snippets below will no longer match).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MARKER = 'docsift patch (porsager/postgres#1154, #1208)';

const PATCHES = [
  {
    from: '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)\n',
    to: `  function nextWrite(fn) {\n    if (!socket) return writeAfterClose(fn) // ${MARKER}\n    const x = socket.write(chunk, fn)\n`,
  },
  {
    from: '  function connectTimedOut() {\n',
    to: `  // ${MARKER}: the bytes can never be answered, so the queries waiting for them fail like any
  // other query of a closed connection instead of a TypeError escaping from a timer.
  function writeAfterClose(fn) {
    nextWriteTimer !== null && clearImmediate(nextWriteTimer)
    chunk = nextWriteTimer = null
    const err = Errors.connection('CONNECTION_CLOSED', options)
    query && (queryError(query, err), query = null)
    while (sent.length)
      queryError(sent.shift(), err)
    typeof fn === 'function' && fn(err)
    return true
  }

  function connectTimedOut() {\n`,
  },
  {
    from: '    incomings = null\n    clearImmediate(nextWriteTimer)\n',
    to: `    incomings = null\n    clearImmediate(nextWriteTimer)\n    // ${MARKER}: nothing of the dead socket's protocol state reaches the next connection.\n    chunk = nextWriteTimer = errorResponse = null\n`,
  },
  {
    from: "    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))\n",
    to: `    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))\n    query = null // ${MARKER}: rejected above or by the socket's 'error'; end() must not wait for it\n`,
  },
];

/** Patches every copy of postgres.js' connection.js under `root`; returns what happened per file. */
export function patchPostgres(root) {
  const results = [];
  for (const pkg of [path.join(root, 'node_modules/postgres'), path.join(root, 'daemon/node_modules/postgres')]) {
    for (const sub of ['src', 'cjs/src', 'cf/src']) {
      const file = path.join(pkg, sub, 'connection.js');
      if (!existsSync(file)) continue;
      const text = readFileSync(file, 'utf8');
      if (text.includes(MARKER)) {
        results.push({ file, status: 'already patched' });
        continue;
      }
      if (!PATCHES.every((p) => text.split(p.from).length === 2)) {
        results.push({ file, status: 'not patched: the code differs from postgres 3.4.9 (check whether upstream fixed #1154/#1208)' });
        continue;
      }
      writeFileSync(
        file,
        PATCHES.reduce((t, p) => t.replace(p.from, p.to), text),
      );
      results.push({ file, status: 'patched' });
    }
  }
  return results;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  for (const r of patchPostgres(root)) {
    if (r.status !== 'already patched') process.stderr.write(`patch-postgres: ${path.relative(root, r.file)}: ${r.status}\n`);
  }
}
