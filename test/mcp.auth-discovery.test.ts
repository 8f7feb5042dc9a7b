// MCP authorization discovery for a bearer-only server (MCP authorization specification, RFC 9728,
// RFC 6750): a refused /mcp request names the protected-resource metadata in WWW-Authenticate, the
// metadata is served at both well-known paths, and a real MCP bridge (mcp-remote, what Claude
// Desktop runs) shows a wrong key as an invalid key instead of "Connection closed".
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createTenant, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MCP_REMOTE_CLIENT = path.join(root, 'node_modules/mcp-remote/dist/client.js');
/** What an MCP host (Claude Desktop) runs: a stdio MCP server that proxies to /mcp. */
const MCP_REMOTE_PROXY = path.join(root, 'node_modules/mcp-remote/dist/proxy.js');

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

function postMcp(url: string, authorization?: string): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify(INITIALIZE),
  });
}

/**
 * Runs mcp-remote's client (connect, list tools, exit), or its proxy, against `url` with one extra
 * header; resolves with its output once it exits, or once the output matches `until` (then it is ended).
 */
function mcpRemote(
  url: string,
  header: string,
  configDir: string,
  until?: RegExp,
  script = MCP_REMOTE_CLIENT,
): Promise<{ code: number | null; output: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, url, '--header', header, '--transport', 'http-only'], {
      env: { PATH: process.env.PATH ?? '', HOME: configDir, MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: 'true' },
      // stdin stays open: mcp-remote shuts down when it ends (its host closed the pipe).
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      output += s;
      stdout += s;
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      output += s;
      if (until?.test(output)) child.kill('SIGKILL');
    });
    // A client that went on to a browser sign-in would wait for its callback: end it after 30 s.
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, stdout });
    });
  });
}

describe('MCP authorization discovery', () => {
  let d: TestDaemon;
  let a: Tenant;
  let configDir: string;
  before(async () => {
    d = await startTestDaemon({ label: 'mcp_auth' });
    a = await createTenant(d, 'mauth');
    configDir = await mkdtemp(path.join(os.tmpdir(), 'docsift-mcp-remote-'));
  });
  after(async () => {
    await d?.close();
    if (configDir) await rm(configDir, { recursive: true, force: true });
  });

  it('a 401 without a key names the protected-resource metadata; a wrong key adds error="invalid_token"', async () => {
    const metadataUrl = `${d.url}/.well-known/oauth-protected-resource/mcp`;
    const none = await postMcp(d.url);
    assert.equal(none.status, 401);
    assert.equal((await none.json()).code, 'AUTHENTICATION_REQUIRED');
    assert.equal(none.headers.get('www-authenticate'), `Bearer resource_metadata="${metadataUrl}"`);

    const wrong = await postMcp(d.url, `Bearer svc_${'Z'.repeat(40)}`);
    assert.equal(wrong.status, 401);
    assert.equal((await wrong.json()).code, 'INVALID_API_KEY');
    assert.equal(
      wrong.headers.get('www-authenticate'),
      `Bearer resource_metadata="${metadataUrl}", error="invalid_token", error_description="Invalid API key."`,
    );
    // The REST API's own 401 envelope is unchanged.
    const ok = await postMcp(d.url, `Bearer ${a.key}`);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('www-authenticate'), null);
  });

  it('serves RFC 9728 metadata at the root and the /mcp-suffixed well-known paths, without a key', async () => {
    for (const [p, resource] of [
      ['/.well-known/oauth-protected-resource', d.url],
      ['/.well-known/oauth-protected-resource/mcp', `${d.url}/mcp`],
    ] as const) {
      const r = await fetch(d.url + p);
      assert.equal(r.status, 200, p);
      assert.match(r.headers.get('content-type') ?? '', /application\/json/);
      const body = (await r.json()) as Record<string, unknown>;
      assert.equal(body.resource, resource, p);
      assert.deepEqual(body.bearer_methods_supported, ['header'], p);
      assert.deepEqual(body.authorization_servers, [], p);
    }
  });

  it('mcp-remote shows a wrong key as an invalid API key, and connects with the right one', async () => {
    const wrong = await mcpRemote(`${d.url}/mcp`, `Authorization:Bearer svc_${'Z'.repeat(40)}`, configDir);
    assert.match(wrong.output, /invalid api key/i, wrong.output);
    assert.doesNotMatch(wrong.output, /Please authorize this client|Connection closed/);
    // What the README's MCP section tells the user: the proxy a host runs connects before it
    // answers the host, so the refusal reaches only its standard error (the host's log); the host
    // gets no JSON-RPC answer to show and sees the process end, which hosts report as a closed connection.
    const hosted = await mcpRemote(`${d.url}/mcp`, `Authorization:Bearer svc_${'Z'.repeat(40)}`, configDir, undefined, MCP_REMOTE_PROXY);
    assert.match(hosted.output, /Fatal error: InvalidTokenError: Invalid API key: .*refused the key sent/, hosted.output);
    assert.equal(hosted.stdout, '', 'nothing on the channel to the host');
    assert.equal(hosted.code, 1);
    const right = await mcpRemote(`${d.url}/mcp`, `Authorization:Bearer ${a.key}`, configDir, /"name": "search_documents"/);
    assert.match(right.output, /"name": "search_documents"/, right.output);
  });
});
