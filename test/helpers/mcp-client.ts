// An MCP client of a test daemon, over Streamable HTTP with a key, as agents connect.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** What `callTool` answers: the text, the structured content, and isError for a failed call. */
export type ToolResult = { content: { type: string; text: string }[]; structuredContent?: any; isError?: boolean };

export async function connectMcp(baseUrl: string, key: string): Promise<Client> {
  const client = new Client({ name: 'docsift-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  return client;
}
