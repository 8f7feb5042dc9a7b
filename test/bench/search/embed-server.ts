// Stand-in for Ollama's POST /api/embed (the one service the dev guide lets us fake): answers at
// once with each input's vector from the benchmark's mixture, so the daemon's vector channel sees
// query vectors from the same space as the stored synthetic chunk vectors.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { queryVector, type Mixture } from './vectors.js';

export interface EmbedStandIn {
  url: string;
  /** texts embedded so far (a warm daemon cache sends none) */
  readonly texts: number;
  close(): Promise<void>;
}

export async function startEmbedStandIn(mixture: Mixture, model: string): Promise<EmbedStandIn> {
  let texts = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        const data = JSON.stringify(body);
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) }).end(data);
      };
      if (req.method !== 'POST' || req.url !== '/api/embed') return send(404, { error: 'not found' });
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model?: string; input?: string | string[] };
        if (body.model !== model) return send(404, { error: `model "${body.model}" not found, try pulling it first` });
        const input = typeof body.input === 'string' ? [body.input] : (body.input ?? []);
        texts += input.length;
        send(200, { model, embeddings: input.map((t) => queryVector(mixture, t)) });
      } catch (err) {
        send(400, { error: (err as Error).message });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get texts() {
      return texts;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
