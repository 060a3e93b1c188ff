/**
 * POST /mcp: the MCP server (libs/mcp) over Streamable HTTP, stateless (a server and a transport
 * per request, no sessions; GET and DELETE answer 405). Its tools call this API's own REST routes
 * over loopback through the typed client, with the caller's credential and request-id headers, so
 * an agent meets the same validation, limits, API keys and typed errors as a REST caller.
 *
 * API keys (issue 38): a global guard covers this controller too; a per-controller guard goes into
 * MCP_GUARDS. The forwarded credentials are checked by every REST route a tool calls either way.
 */
import { type CanActivate, Controller, Post, Req, Res, type Type, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';
import getRawBody from 'raw-body';
import { DocumentServiceClient } from '@docx-pdf/client';
import { InvalidRequestError, PayloadTooLargeError } from '@app/contracts';
import { createMcpServer } from '@app/mcp';
import { ApiSettings } from '../config/settings';
import { publicBaseUrl } from '../jobs/public-base-url';
import { REQUEST_ID_HEADER, requestIdOf } from '../logging/request-id';
import { versionInfo } from '../version/version-info';

/** Headers a tool's REST call carries on for the agent: its credentials (the request id is this request's). */
const FORWARDED = ['authorization', 'x-api-key'];

/** The guards of /mcp beside any global one: the hook for the REST routes' API-key guard. */
export const MCP_GUARDS: Array<Type<CanActivate>> = [];

@ApiExcludeController()
@UseGuards(...MCP_GUARDS)
@Controller()
export class McpController {
  constructor(private readonly config: ApiSettings) {}

  @Post('mcp')
  async handle(@Req() req: Request, @Res() res: Response): Promise<void> {
    const body = await this.readJson(req);
    // One id in the logs for the MCP request and the REST calls its tools make.
    const headers: Record<string, string> = { [REQUEST_ID_HEADER]: requestIdOf(req) };
    for (const name of FORWARDED) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    // This process, at the address the agent reached it on (loopback or the pod's own address).
    const local = req.socket.localAddress ?? '127.0.0.1';
    const self = `http://${local.includes(':') ? `[${local}]` : local}:${req.socket.localPort}`;
    const base = publicBaseUrl(req, this.config);
    const server = createMcpServer({
      client: new DocumentServiceClient({ baseUrl: self, headers }),
      settings: this.config.mcp,
      // Result URLs name the loopback address the tool called: the agent gets this API's public one.
      publicUrl: (url) => (url.startsWith(self) ? `${base}${url.slice(self.length)}` : url),
      version: versionInfo(null, this.config.http.playground, this.config.defaults.undefined).version,
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  /**
   * The JSON-RPC message, bounded (the API parses no bodies globally): a template in base64 plus
   * the request's JSON.
   */
  private async readJson(req: Request): Promise<unknown> {
    const limit =
      Math.ceil((this.config.limits.templateBytes * 4) / 3) + this.config.limits.requestBytes + 64 * 1024;
    let text: string;
    try {
      text = await getRawBody(req, { limit, encoding: 'utf8' });
    } catch (e) {
      if ((e as { type?: string }).type === 'entity.too.large')
        throw new PayloadTooLargeError(`an MCP message may have at most ${limit} bytes`, { limit });
      throw e;
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new InvalidRequestError('the MCP message is not JSON');
    }
  }
}
