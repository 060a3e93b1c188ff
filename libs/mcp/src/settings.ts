/** The MCP server's settings: how results come back to an agent (both transports). */
import { defineSettings, Setting } from '@app/config';

export const mcpSettings = defineSettings({
  variables: {
    /**
     * Results up to this size come back inside the tool result (a base64 resource) as well as by
     * URL; bigger ones only by their URL (the job's result_url, readable for RESULT_TTL_S).
     */
    MCP_INLINE_MAX_BYTES: Setting.integer({
      minimum: 0,
      maximum: 50 * 1024 * 1024,
      default: 4 * 1024 * 1024,
    }),
    /** How long render_document waits for its job before answering with the job id (get_job follows it). */
    MCP_RENDER_WAIT_MS: Setting.integer({ minimum: 0, maximum: 600_000, default: 60_000 }),
  },
  slice: (v) => ({ inlineMaxBytes: v.MCP_INLINE_MAX_BYTES, renderWaitMs: v.MCP_RENDER_WAIT_MS }),
});

export type McpSettings = ReturnType<typeof mcpSettings.slice>;

/** `npm run mcp` (stdio) only: the service it calls. */
export const mcpStdioSettings = defineSettings({
  variables: {
    /** The REST API the stdio MCP server calls (through the typed client). */
    SERVICE_URL: Setting.string({
      default: 'http://localhost:8000',
      pattern: /^https?:\/\/.+/,
      message: 'SERVICE_URL must be an http:// or https:// URL',
    }),
    /**
     * The API key the stdio server sends (`Authorization: Bearer`) when the service asks for keys
     * (stored templates always do; the render routes with REQUIRE_API_KEY=true). Never logged.
     */
    SERVICE_API_KEY: Setting.optional(
      Setting.string({
        pattern: /^[\x21-\x7e]+$/,
        message: 'SERVICE_API_KEY must be printable ASCII without spaces',
      }),
    ),
  },
  slice: (v) => ({ serviceUrl: v.SERVICE_URL, apiKey: v.SERVICE_API_KEY }),
});
