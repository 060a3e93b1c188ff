/**
 * The MCP server's tools, one definition for both transports: `npm run mcp` (stdio, apps/mcp) and
 * Streamable HTTP at /mcp in the API. Every tool calls the REST API through the typed client
 * (clients/typescript), so an agent gets exactly what a REST caller gets: the same validation,
 * limits, API keys (the caller's credentials are forwarded) and typed errors, which come back as
 * `isError` results whose text is the service's ErrorBody JSON. See docs/mcp.md.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import {
  type DocumentServiceClient,
  type ErrorBody,
  type JobStatus,
  type RenderedFile,
  ServiceError,
  type TemplateSource,
  TemplateValidationError,
} from '@docx-pdf/client';
import { OUTPUT_FORMAT_NAMES, type OutputFormat } from '@app/contracts';
import type { McpSettings } from './settings';

export interface McpServerDeps {
  client: DocumentServiceClient;
  settings: McpSettings;
  /** Rewrites a URL the service answered with into the one the agent can reach (HTTP transport). */
  publicUrl?: (url: string) => string;
  version: string;
}

const TEMPLATE_FILE = {
  template_base64: z
    .string()
    .min(1)
    .optional()
    .describe('The template (.docx, .xlsx or .pptx, told by its content), base64-encoded.'),
  template_resource: z
    .object({
      uri: z.string(),
      mimeType: z.string().optional(),
      blob: z.string().min(1).describe('base64 of the .docx, .xlsx or .pptx'),
    })
    .optional()
    .describe(
      'The template (.docx, .xlsx or .pptx) as an MCP resource (BlobResourceContents: uri, mimeType, base64 blob).',
    ),
};

const DATA = z.record(z.string(), z.unknown());
const IMAGE = z
  .object({ data: z.string().describe('base64 PNG') })
  .catchall(z.unknown())
  .describe(
    'ImageData of the REST API: data (base64 PNG), width_mm/height_mm or width_px/height_px, alt, decorative',
  );

const json = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
});

/** A tool's failure: the service's typed error body, as JSON text. */
function failure(body: ErrorBody | Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

function typedError(error_type: ErrorBody['error_type'], message: string): CallToolResult {
  return failure({ status: 'error', error_type, message, details: {} });
}

function errorResult(e: unknown): CallToolResult {
  if (e instanceof ServiceError) return failure(e.body);
  if (e instanceof TemplateValidationError) return failure(e.report);
  // fetch itself failed: the service is unreachable (stdio, SERVICE_URL) or answered nonsense.
  const reason = e instanceof Error ? e.message : String(e);
  return typedError('service_unavailable', `the document service could not be reached: ${reason}`);
}

/** The template from base64 or a resource; undefined when neither is given. */
function templateOf(args: {
  template_base64?: string;
  template_resource?: { blob: string };
}): TemplateSource | undefined {
  const base64 = args.template_base64 ?? args.template_resource?.blob;
  return base64 === undefined ? undefined : Buffer.from(base64, 'base64');
}

const NO_TEMPLATE = () =>
  typedError(
    'missing_file',
    'give the template as template_base64 or template_resource (render_document: or template_id)',
  );

export function createMcpServer(deps: McpServerDeps): McpServer {
  const { client, settings } = deps;
  const publicUrl = deps.publicUrl ?? ((url: string) => url);
  const server = new McpServer({ name: 'docx-pdf-service', version: deps.version });

  /** Tool results of a finished file: a link always, the bytes too when small enough. */
  const fileResult = (file: RenderedFile, status: JobStatus): CallToolResult => {
    const url = publicUrl(status.result_url ?? '');
    const name = file.fileName ?? `${status.job_id}`;
    const inline = file.body.length <= settings.inlineMaxBytes;
    return {
      content: [
        {
          type: 'text',
          text:
            `Rendered ${name} (${file.contentType}, ${file.body.length} bytes). ` +
            `${inline ? 'It is attached; it can' : 'It is too big to attach; it can'} also be downloaded from ${url} until ${status.expires_at}.`,
        },
        { type: 'resource_link', uri: url, name, mimeType: file.contentType },
        ...(inline
          ? [
              {
                type: 'resource' as const,
                resource: { uri: url, mimeType: file.contentType, blob: file.body.toString('base64') },
              },
            ]
          : []),
      ],
    };
  };

  /** A job's state as a tool result: its file once completed, its typed error once failed. */
  const jobResult = async (status: JobStatus, withFile: boolean): Promise<CallToolResult> => {
    if (status.status === 'failed')
      return failure(status.error ?? { status: 'error', error_type: 'internal_error' });
    if (status.status !== 'completed' || !withFile)
      return json({ ...status, result_url: status.result_url && publicUrl(status.result_url) });
    return fileResult(await client.getResult(status.job_id), status);
  };

  server.registerTool(
    'list_templates',
    {
      title: 'List stored templates',
      description: "The templates stored in the service (their ids are render_document's template_id).",
      annotations: { readOnlyHint: true },
    },
    async () => {
      try {
        return json(await client.listTemplates());
      } catch (e) {
        return errorResult(e);
      }
    },
  );

  server.registerTool(
    'inspect_template',
    {
      title: 'Inspect a template',
      description:
        'What a template (.docx, .xlsx or .pptx) expects: its variables (with paths such as items[].price), loops, conditions, images, ' +
        'a data skeleton to start from and a JSON Schema of template_data. Use it before render_document.',
      inputSchema: TEMPLATE_FILE,
      annotations: { readOnlyHint: true },
    },
    async (args) => {
      const template = templateOf(args);
      if (!template) return NO_TEMPLATE();
      try {
        return json(await client.inspect(template));
      } catch (e) {
        return errorResult(e);
      }
    },
  );

  server.registerTool(
    'lint_template',
    {
      title: 'Lint a template',
      description:
        'Every problem of a template (.docx, .xlsx or .pptx) at once, with locations and suggestions: syntax errors, unclosed blocks, ' +
        'unknown filters, tags split across cells. `success` says whether it passes.',
      inputSchema: {
        ...TEMPLATE_FILE,
        fail_on_warnings: z.boolean().optional(),
        max_line_length: z.number().int().positive().optional(),
      },
      annotations: { readOnlyHint: true },
    },
    async ({ fail_on_warnings, max_line_length, ...args }) => {
      const template = templateOf(args);
      if (!template) return NO_TEMPLATE();
      try {
        return json(await client.lint(template, { fail_on_warnings, max_line_length }));
      } catch (e) {
        return errorResult(e);
      }
    },
  );

  server.registerTool(
    'render_document',
    {
      title: 'Render a document',
      description:
        'Fills a template (.docx, .xlsx or .pptx; base64, a resource, or a stored template_id) with data and renders it: a PDF, or the ' +
        'format `output` names. The result comes back attached (when small) and as a URL; a render still running ' +
        'after MCP_RENDER_WAIT_MS answers with its job, for get_job.',
      inputSchema: {
        ...TEMPLATE_FILE,
        template_id: z.string().min(1).optional().describe('A stored template (list_templates).'),
        data: DATA.describe(
          'The template variables (template_data): inspect_template shows what it expects.',
        ),
        images: z.record(z.string(), IMAGE).optional().describe('Images by template variable name.'),
        output: z
          .enum(OUTPUT_FORMAT_NAMES as [OutputFormat, ...OutputFormat[]])
          .optional()
          .describe('options.output of the REST API (default pdf).'),
        options: z
          .record(z.string(), z.unknown())
          .optional()
          .describe('RenderOptions of the REST API (pdf, locale, timezone, undefined_behavior, …).'),
      },
    },
    async (args) => {
      const template = args.template_id ? { id: args.template_id } : templateOf(args);
      if (!template) return NO_TEMPLATE();
      try {
        const options = { ...args.options, ...(args.output ? { output: args.output } : {}) };
        const accepted = await client.submitJob({
          template,
          data: args.data,
          images: args.images as never,
          options: Object.keys(options).length ? (options as never) : undefined,
        });
        const status = await client.waitForJob(accepted.job_id, {
          intervalMs: 100,
          timeoutMs: settings.renderWaitMs,
        });
        return await jobResult(status, true);
      } catch (e) {
        return errorResult(e);
      }
    },
  );

  server.registerTool(
    'get_job',
    {
      title: 'A job',
      description:
        "A render job's status (queued, active, completed, failed); once completed, its result (attached when small, and as a URL), once failed its typed error.",
      inputSchema: {
        job_id: z.string().min(1),
        include_result: z.boolean().optional().describe('Attach the result once completed (default true).'),
      },
      annotations: { readOnlyHint: true },
    },
    async ({ job_id, include_result }) => {
      try {
        return await jobResult(await client.getJob(job_id), include_result ?? true);
      } catch (e) {
        return errorResult(e);
      }
    },
  );

  return server;
}
