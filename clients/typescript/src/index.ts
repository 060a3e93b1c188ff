/**
 * The typed client of the document service: the SDK @hey-api/openapi-ts generates from the
 * service's OpenAPI document (./generated, `npm run client:generate`), and a few helpers over it
 * that take the template as a Buffer, a Blob or a file path, write the multipart form and throw
 * the service's typed error body as a ServiceError. See docs/client.md.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { createClient, type Client } from './generated/client';
import {
  inspectControllerInspect,
  jobsControllerResult,
  jobsControllerStatus,
  jobsControllerSubmit,
  documentsControllerProcess,
  lintControllerLint,
  versionControllerVersion,
} from './generated/sdk.gen';
import type {
  BatchItem,
  EnhancedRequest,
  ErrorBody,
  ImageData,
  JobRequest,
  JobStatus,
  JobsControllerSubmitResponse,
  LintOptions,
  LintReport,
  RenderOptions,
  TemplateInspection,
  TemplateValidationFailed,
  VersionInfo,
} from './generated/types.gen';

export * as api from './generated/sdk.gen';
export type * from './generated/types.gen';

/** Every `error_type` the service documents (the OpenAPI document's ErrorBody enum). */
export type ErrorType = ErrorBody['error_type'];

/** An error answer of the service: its HTTP status and its typed body. */
export class ServiceError extends Error {
  readonly error_type: ErrorType;
  readonly details: Record<string, unknown>;
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    readonly requestId: string | undefined,
  ) {
    super(`${status} ${body.error_type}: ${body.message}`);
    this.name = 'ServiceError';
    this.error_type = body.error_type;
    this.details = body.details;
  }
}

/** An answer that is neither what the operation promises nor an ErrorBody (e.g. a proxy's page). */
export class UnexpectedResponseError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`unexpected answer (HTTP ${status})`);
    this.name = 'UnexpectedResponseError';
  }
}

/** process-template-document with linter_options: the template failed validation (an HTTP 200 answer). */
export class TemplateValidationError extends Error {
  constructor(readonly report: TemplateValidationFailed) {
    super(report.message);
    this.name = 'TemplateValidationError';
  }
}

/** A .docx template: its bytes, a Blob/File, or a path to read. */
export type TemplateSource = Uint8Array | Blob | string;
/** A template stored in the service (issue 38's stored templates), sent as `template_id`. */
export interface StoredTemplate {
  id: string;
}

export interface RenderInput {
  template: TemplateSource | StoredTemplate;
  /** The template's variables (`template_data`). */
  data?: Record<string, unknown>;
  images?: Record<string, ImageData>;
  options?: RenderOptions;
}

export interface JobInput extends RenderInput {
  batch?: BatchItem[];
  output?: JobRequest['output'];
  webhook_url?: string;
}

/** A rendered file: the document, or a job's result. */
export interface RenderedFile {
  body: Buffer;
  contentType: string;
  /** From Content-Disposition, when the service names the file. */
  fileName?: string;
}

export type JobAccepted = JobsControllerSubmitResponse;

export interface ClientOptions {
  /** e.g. `http://localhost:8000` */
  baseUrl: string;
  /** Sent with every request (an API key's header, for instance). */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

function isErrorBody(value: unknown): value is ErrorBody {
  const v = value as Partial<ErrorBody> | null;
  return !!v && v.status === 'error' && typeof v.error_type === 'string' && typeof v.message === 'string';
}

function isStored(template: RenderInput['template']): template is StoredTemplate {
  return typeof template === 'object' && !(template instanceof Uint8Array) && !(template instanceof Blob);
}

async function templateFile(template: TemplateSource): Promise<Blob> {
  if (typeof template === 'string') return new File([await readFile(template)], basename(template));
  if (template instanceof Blob) return template;
  return new File([template], 'template.docx');
}

function fileNameOf(response: Response): string | undefined {
  const disposition = response.headers.get('content-disposition') ?? '';
  const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
  if (star) return decodeURIComponent(star[1]);
  return /filename="?([^";]+)"?/i.exec(disposition)?.[1];
}

type Answer<T> = { data?: T; error?: unknown; response?: Response };

export class DocumentServiceClient {
  /** The generated client, for the operations the helpers do not wrap. */
  readonly client: Client;

  constructor(options: ClientOptions) {
    this.client = createClient({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      headers: options.headers,
      fetch: options.fetch,
    });
  }

  /** Synchronous render: the PDF (or the format `options.output` names). */
  async renderDocument(input: RenderInput): Promise<RenderedFile> {
    const answer = await documentsControllerProcess({
      client: this.client,
      body: (await this.form(input, {})) as never,
      parseAs: 'arrayBuffer',
    });
    const file = this.file(answer);
    if (file.contentType.startsWith('application/json')) {
      const body = JSON.parse(file.body.toString('utf8')) as TemplateValidationFailed;
      throw new TemplateValidationError(body);
    }
    return file;
  }

  /** An asynchronous job (one document, or a batch with `batch`); poll getJob or use waitForJob. */
  async submitJob(input: JobInput): Promise<JobAccepted> {
    const extra = { batch: input.batch, output: input.output, webhook_url: input.webhook_url };
    const answer = await jobsControllerSubmit({
      client: this.client,
      body: (await this.form(input, extra)) as never,
    });
    return this.data(answer);
  }

  async getJob(id: string): Promise<JobStatus> {
    return this.data(await jobsControllerStatus({ client: this.client, path: { id } }));
  }

  /**
   * Polls getJob until the job has finished (completed or failed) and resolves with its status; after
   * `timeoutMs`, with its last status (still queued or active).
   */
  async waitForJob(id: string, { intervalMs = 250, timeoutMs = 120_000 } = {}): Promise<JobStatus> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await this.getJob(id);
      if (status.status === 'completed' || status.status === 'failed' || Date.now() >= deadline)
        return status;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }

  /** A finished job's file (a batch: its ZIP or merged PDF); a failed job throws its own error. */
  async getResult(id: string): Promise<RenderedFile> {
    return this.file(
      await jobsControllerResult({ client: this.client, path: { id }, parseAs: 'arrayBuffer' }),
    );
  }

  /** The lint report (JSON) of a template. */
  async lint(
    template: TemplateSource,
    options: Omit<LintOptions, 'response_format'> = {},
  ): Promise<LintReport> {
    const answer = await lintControllerLint({
      client: this.client,
      body: {
        document: await templateFile(template),
        options: JSON.stringify({ ...options, response_format: 'json' }),
      },
    });
    return this.data(answer);
  }

  /** What a template expects: variables, loops, images, a data skeleton and a JSON Schema. */
  async inspect(template: TemplateSource): Promise<TemplateInspection> {
    return this.data(
      await inspectControllerInspect({ client: this.client, body: { file: await templateFile(template) } }),
    );
  }

  /**
   * The stored templates (GET /api/v1/templates, issue 38). Not in the OpenAPI document yet, so
   * untyped here; a service without stored templates answers 404 not_found (a ServiceError).
   */
  async listTemplates(): Promise<unknown> {
    return this.data(await this.client.get({ url: '/api/v1/templates' }));
  }

  async version(): Promise<VersionInfo> {
    return this.data(await versionControllerVersion({ client: this.client }));
  }

  /** The enhanced form: the template (or its stored id) and request_data. */
  private async form(input: RenderInput, extra: Partial<JobRequest>): Promise<Record<string, unknown>> {
    const request: EnhancedRequest & Partial<JobRequest> = { template_data: input.data ?? {} };
    if (input.images) request.images = input.images;
    if (input.options) request.options = input.options;
    for (const [key, value] of Object.entries(extra))
      if (value !== undefined) Object.assign(request, { [key]: value });
    const body: Record<string, unknown> = { request_data: JSON.stringify(request) };
    if (isStored(input.template)) body.template_id = input.template.id;
    else body.file = await templateFile(input.template);
    return body;
  }

  private data<T>(answer: Answer<T>): T {
    if (answer.error !== undefined || !answer.response?.ok) throw this.failure(answer);
    return answer.data as T;
  }

  private file(answer: Answer<unknown>): RenderedFile {
    const data = this.data(answer);
    const response = answer.response!;
    return {
      body: Buffer.from(data as ArrayBuffer),
      contentType: response.headers.get('content-type') ?? 'application/octet-stream',
      fileName: fileNameOf(response),
    };
  }

  private failure(answer: Answer<unknown>): Error {
    const status = answer.response?.status ?? 0;
    // The generated client parses an error answer as JSON whatever parseAs says.
    const body = answer.error;
    if (isErrorBody(body))
      return new ServiceError(status, body, answer.response?.headers.get('x-request-id') ?? undefined);
    return new UnexpectedResponseError(status, body);
  }
}
