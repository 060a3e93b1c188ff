/**
 * `npm run mcp`: the MCP server over stdio, for an agent that starts it as a subprocess. Its tools
 * (libs/mcp) call the REST API at SERVICE_URL through the typed client. stdout carries the
 * protocol, so anything else goes to stderr. See docs/mcp.md.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ConfigurationError, loadSettings } from '@app/config';
import { DocumentServiceClient } from '@docx-pdf/client';
import { createMcpServer, mcpSettings, mcpStdioSettings } from '@app/mcp';
import { version } from '../../../package.json';

async function main(): Promise<void> {
  let settings;
  try {
    settings = loadSettings({ mcp: mcpSettings, stdio: mcpStdioSettings }, process.env);
  } catch (e) {
    console.error(e instanceof ConfigurationError ? e.message : e);
    process.exit(1);
  }
  const { serviceUrl, apiKey } = settings.stdio;
  const client = new DocumentServiceClient({
    baseUrl: serviceUrl,
    ...(apiKey ? { headers: { authorization: `Bearer ${apiKey}` } } : {}),
  });
  const server = createMcpServer({ client, settings: settings.mcp, version });
  await server.connect(new StdioServerTransport());
  console.error(`MCP server on stdio, calling ${serviceUrl}${apiKey ? ' with an API key' : ''}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
