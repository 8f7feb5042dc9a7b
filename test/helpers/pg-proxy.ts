// A TCP proxy between the daemon and PostgreSQL that reads the frontend protocol just enough to
// recognise a transaction's statements and its COMMIT. Armed, it forwards the COMMIT of a matching
// transaction to the server and then cuts the connection before the reply can come back: the
// database commits, the client only sees a lost connection. Armed with a statement, it takes the
// database away at that statement: an outage in the middle of a request.
import net from 'node:net';

export interface PgProxy {
  port: number;
  /**
   * Cut the next COMMIT of a transaction one of whose statements matches `pattern`. With
   * `thenDown`, the database also becomes unreachable at that moment: every other connection is
   * dropped and new ones are refused until `refuse(false)`.
   */
  armCommitCut(pattern: RegExp, opts?: { thenDown?: boolean }): void;
  /**
   * The database goes away the moment the next statement matching `pattern` is sent: that statement
   * never reaches the server, every connection is dropped and new ones are refused until
   * `refuse(false)`. An outage in the middle of a request, after the statements before it succeeded.
   */
  armStatementCut(pattern: RegExp): void;
  /** While on, new connections are dropped at once (the database looks unreachable). */
  refuse(on: boolean): void;
  /** The database goes away: every open connection is dropped and new ones are refused until `refuse(false)`. */
  down(): void;
  /** How many COMMITs were cut so far. */
  cuts: number;
  close(): Promise<void>;
}

export async function startPgProxy(target: { host: string; port: number }): Promise<PgProxy> {
  let armed: RegExp | null = null;
  let armedStatement: RegExp | null = null;
  let downAfterCut = false;
  let refusing = false;
  const sockets = new Set<net.Socket>();
  const state = { cuts: 0 };

  const down = () => {
    refusing = true;
    for (const s of sockets) s.destroy();
  };

  const server = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    sockets.add(client).add(upstream);
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.end());
    upstream.on('close', () => client.destroy());
    upstream.on('data', (chunk) => {
      if (!client.destroyed) client.write(chunk);
    });

    let buf = Buffer.alloc(0);
    let startup = true;
    const named = new Map<string, string>();
    let txStatements: string[] = [];

    const cstr = (b: Buffer, at: number): [string, number] => {
      const end = b.indexOf(0, at);
      return [b.toString('utf8', at, end), end + 1];
    };
    /** The SQL text a message runs, if any. */
    const statementOf = (type: string, body: Buffer): string | undefined => {
      if (type === 'Q') return cstr(body, 0)[0];
      if (type === 'P') {
        const [name, at] = cstr(body, 0);
        const [query] = cstr(body, at);
        if (name) named.set(name, query);
        return name ? undefined : query;
      }
      if (type === 'B') {
        const [, at] = cstr(body, 0);
        const [stmt] = cstr(body, at);
        return named.get(stmt);
      }
      return undefined;
    };

    client.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      let cut = false;
      let statementCut = false;
      for (;;) {
        if (startup) {
          if (buf.length < 4) break;
          const len = buf.readInt32BE(0);
          if (buf.length < len) break;
          buf = buf.subarray(len);
          startup = false;
          continue;
        }
        if (buf.length < 5) break;
        const type = String.fromCharCode(buf[0]!);
        const len = buf.readInt32BE(1);
        if (buf.length < 1 + len) break;
        const sqlText = statementOf(type, buf.subarray(5, 1 + len));
        buf = buf.subarray(1 + len);
        if (sqlText === undefined) continue;
        if (armedStatement?.test(sqlText)) statementCut = true;
        if (/^\s*begin\b/i.test(sqlText)) txStatements = [];
        else if (/^\s*commit\b/i.test(sqlText)) {
          if (armed && txStatements.some((s) => armed!.test(s))) cut = true;
          txStatements = [];
        } else txStatements.push(sqlText);
      }
      if (statementCut) {
        armedStatement = null;
        down();
        return;
      }
      if (!cut) {
        upstream.write(chunk);
        return;
      }
      // The COMMIT reaches the server whole (end() flushes before FIN); its reply never reaches the client.
      armed = null;
      state.cuts++;
      upstream.removeAllListeners('data');
      upstream.end(chunk);
      client.destroy();
      if (downAfterCut) {
        refusing = true;
        for (const s of sockets) if (s !== upstream) s.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as net.AddressInfo).port,
    armCommitCut(pattern, opts = {}) {
      armed = pattern;
      downAfterCut = opts.thenDown ?? false;
    },
    armStatementCut(pattern) {
      armedStatement = pattern;
    },
    refuse(on) {
      refusing = on;
    },
    down,
    get cuts() {
      return state.cuts;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
