/**
 * Asynchronous jobs (docs/jobs.md): POST /api/v1/jobs takes the form of
 * /api/v1/process-template-document, checks it as that endpoint does (so a bad template or image is
 * a 4xx now, not a failed job later), and answers 202 at once; GET reads the status or the
 * result, DELETE cancels. Batches (request_data.batch), webhooks (webhook_url) and result deliveries
 * (request_data.deliver_to) are parsed by @app/contracts' request/job-fields.ts; the URLs of a
 * webhook and of deliveries are checked here against server-side request forgery.
 */
import {
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Req,
  Res,
  StreamableFile,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import {
  ApiBody,
  ApiConsumes,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import {
  checkTemplate,
  countChartPoints,
  digestOf,
  formatDefaultsOf,
  prepareImages,
  warningHeader,
} from '@app/engine';
import { templateSourceOf } from '@app/contracts';
import { AcceptsKey } from '../store/api-key.guard';
import { StoredTemplates, uploadOf } from '../store/stored-templates';
import { ApiSettings } from '../config/settings';
import { publicBaseUrl } from './public-base-url';
import {
  checkDeliveryUrls,
  checkWebhookUrl,
  InvalidWebhookUrlError,
  jobPaths,
  MissingFileError,
  OUTPUT_MEDIA,
  parseAllowedHosts,
} from '@app/contracts';
import { ErrorResponse } from '../docs/error-response';
import { CheckedTemplates, DecodedImages } from '../upload/checked-templates';
import {
  contentDisposition,
  InvalidRequestError,
  type JobView,
  parseJobFields,
  type ParsedJobRequest,
} from '@app/contracts';
import { jobInput, type UploadedTemplate } from './job-input';
import { JobsService } from '../queue/jobs.service';
import {
  JOB_ACCEPTED_SCHEMA,
  JOB_BODY_SCHEMA,
  JOB_STATUS_SCHEMA,
  type JobAccepted,
} from '../docs/jobs.openapi';
import { inRequestSpan } from '../tracing/request-span';

const JOB_ID_PARAM = ApiParam({ name: 'id', description: 'The job_id of the 202 answer (128 random bits)' });

@ApiTags('jobs')
@Controller('api/v1/jobs')
export class JobsController {
  private readonly allowedHosts: ReadonlySet<string>;
  private readonly deliveryAllowedHosts: ReadonlySet<string>;

  constructor(
    private readonly jobs: JobsService,
    private readonly config: ApiSettings,
    private readonly checkedTemplates: CheckedTemplates,
    private readonly decodedImages: DecodedImages,
    private readonly storedTemplates: StoredTemplates,
  ) {
    this.allowedHosts = parseAllowedHosts(config.jobs.webhookAllowedHosts);
    this.deliveryAllowedHosts = parseAllowedHosts(config.jobs.deliveryAllowedHosts);
  }

  @Post()
  @ApiOperation({
    summary: 'Submit a document or a batch; come back for the result (or get a webhook)',
    description:
      'The form of /api/v1/process-template-document (legacy `data`, enhanced `request_data`, v1.6 fields), plus ' +
      '`webhook_url` (form field or request_data key), `request_data.batch` (items of template_data, images, ' +
      'filename), `request_data.output` ("zip" or "merged") and `request_data.deliver_to` (pre-signed PUT URLs the ' +
      'result is uploaded to). Template, image, batch, webhook URL and deliver_to errors ' +
      "answer now; everything else becomes the job's typed error. See docs/jobs.md.",
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: JOB_BODY_SCHEMA })
  @ApiResponse({
    status: 202,
    description: 'Accepted; `Location` is the status URL',
    content: { 'application/json': { schema: JOB_ACCEPTED_SCHEMA } },
    headers: { Location: { description: 'The status URL', schema: { type: 'string' } } },
  })
  @ErrorResponse(
    400,
    'Request, template-file, image, batch item, webhook_url (invalid_webhook_url) or deliver_to (invalid_deliver_to) error',
  )
  @ErrorResponse(413, 'Template, field, image, or more than MAX_BATCH_ITEMS items')
  @ErrorResponse(503, 'Redis unreachable')
  @HttpCode(202)
  @AcceptsKey()
  @UseInterceptors(FileInterceptor('file'))
  async submit(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @UploadedFile() upload: UploadedTemplate | undefined,
  ): Promise<JobAccepted> {
    return inRequestSpan(req, () => this.accept(req, res, upload));
  }

  private async accept(
    req: Request,
    res: Response,
    upload: UploadedTemplate | undefined,
  ): Promise<JobAccepted> {
    // The template: the upload, or a stored one by template_id (docs/templates.md). A job keeps its
    // template's bytes with its record (it may wait for hours), so a stored one is read here once.
    const source = templateSourceOf(req.body as Record<string, unknown> | undefined, upload !== undefined);
    const stored =
      source.kind === 'stored' ? await this.storedTemplates.resolve(req, source, res) : undefined;
    const file = stored ? await uploadOf(stored) : upload;
    const { parsed, digest } = this.check(req, file, stored !== undefined);
    if (parsed.webhookUrl !== undefined) await this.checkWebhook(parsed.webhookUrl);
    if (parsed.deliverTo) await checkDeliveryUrls(parsed.deliverTo, this.deliveryAllowedHosts);
    const baseUrl = this.baseUrl(req);
    const jobId = await this.jobs.submit(
      jobInput(req, file!, parsed, digest, baseUrl, this.config.defaults, stored),
    );
    const paths = jobPaths(jobId);
    res.setHeader('Location', `${baseUrl}${paths.status}`);
    return {
      job_id: jobId,
      status: 'queued',
      status_url: `${baseUrl}${paths.status}`,
      result_url: `${baseUrl}${paths.result}`,
    };
  }

  @Get(':id')
  @ApiOperation({ summary: "A job's status, progress and (when failed) its typed error" })
  @JOB_ID_PARAM
  @ApiResponse({
    status: 200,
    description: 'The job',
    content: { 'application/json': { schema: JOB_STATUS_SCHEMA } },
  })
  @ErrorResponse(404, 'Unknown or expired job (job_not_found)')
  @ErrorResponse(503, 'Redis unreachable')
  async status(@Req() req: Request, @Param('id') id: string): Promise<JobView> {
    return this.jobs.status(id, this.baseUrl(req));
  }

  @Get(':id/result')
  @ApiOperation({
    summary: "The job's PDF (a batch: its ZIP or merged PDF)",
    description:
      '409 job_not_finished while queued or active; a failed job answers with its own typed error and status.',
  })
  @JOB_ID_PARAM
  @ApiProduces(OUTPUT_MEDIA.pdf.contentType, 'application/zip', 'application/json')
  @ApiResponse({
    status: 200,
    description:
      "The result, with a Content-Disposition file name; a `Warning` header names what the fill dropped from a workbook (external links, data connections), as the synchronous answer's",
    headers: {
      Warning: {
        description:
          'Present when the fill dropped something: `299 - "dropped external link (externalLink1.xml)"`',
        schema: { type: 'string' },
      },
    },
    content: {
      [OUTPUT_MEDIA.pdf.contentType]: { schema: { type: 'string', format: 'binary' } },
      'application/zip': { schema: { type: 'string', format: 'binary' } },
    },
  })
  @ErrorResponse(404, 'Unknown or expired job (job_not_found)')
  @ErrorResponse(409, 'Queued or active (job_not_finished)')
  @ErrorResponse(422, 'A failed job: its own error (any 4xx/5xx of the synchronous endpoint)')
  async result(@Param('id') id: string, @Res({ passthrough: true }) res: Response): Promise<StreamableFile> {
    const result = await this.jobs.result(id);
    // As the synchronous answer: what the fill dropped from a workbook (external links, data connections).
    const warning = warningHeader(result.warnings ?? []);
    if (warning) res.setHeader('Warning', warning);
    return new StreamableFile(result.body, {
      type: result.contentType,
      disposition: contentDisposition(result.filename),
      length: result.body.length,
    });
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Cancel a queued job, or drop a finished job and its result' })
  @JOB_ID_PARAM
  @ApiResponse({ status: 204, description: 'Cancelled or dropped' })
  @ErrorResponse(404, 'Unknown or expired job (job_not_found)')
  @HttpCode(204)
  async cancel(@Param('id') id: string): Promise<void> {
    await this.jobs.cancel(id);
  }

  /** The checks the synchronous endpoint makes, before anything is stored. */
  check(
    req: Request,
    file: UploadedTemplate | undefined,
    storedBefore = false,
  ): { parsed: ParsedJobRequest; digest: string } {
    if (!req.is('multipart/form-data')) {
      throw new InvalidRequestError(
        'The request must be multipart/form-data with the fields file and data or request_data',
        { content_type: req.headers['content-type'] ?? null },
      );
    }
    if (!file) throw new MissingFileError();
    const parsed = parseJobFields(req.body as Record<string, unknown> | undefined, {
      maxJsonDepth: this.config.limits.jsonDepth,
      maxDocuments: this.config.limits.subdocuments,
      maxPdfExtraBytes: this.config.limits.pdfExtraBytes,
      maxBatchItems: this.config.limits.batchItems,
      // Locale and zone names are the engine's knowledge: the same check as the CLI's.
      formatDefaults: formatDefaultsOf,
    });
    // A stored template was checked at its upload.
    const digest = storedBefore
      ? digestOf(file.buffer)
      : this.checkedTemplates.ensure(file.buffer, (t) =>
          checkTemplate(t, {}, { allowMacros: this.config.limits.render.allowMacros }),
        );
    const limits = {
      maxImages: this.config.limits.images.maxImages,
      maxImageBytes: this.config.limits.images.maxImageBytes,
      maxImagePixels: this.config.limits.images.maxImagePixels,
    };
    // Shared images are decoded once (decodedBefore); each item's set is checked whole.
    for (const { request } of parsed.items ?? [{ request: parsed.request }]) {
      prepareImages(request.images, limits, { decodedBefore: this.decodedImages });
      // Chart data over MAX_CHART_POINTS: 413 before anything is queued (docs/charts.md).
      countChartPoints(request.template_data, this.config.limits.render.chartLimits);
    }
    return { parsed, digest };
  }

  private async checkWebhook(url: string): Promise<void> {
    // The URL first: what is wrong with it is the caller's to fix, whatever the configuration.
    await checkWebhookUrl(url, this.allowedHosts);
    if (!this.config.jobs.webhookSecret) {
      throw new InvalidWebhookUrlError('This service sends no webhooks: WEBHOOK_SECRET is not set', {
        reason: 'webhooks_disabled',
      });
    }
  }

  /** PUBLIC_BASE_URL, else the request's own scheme and Host. */
  baseUrl(req: Request): string {
    return publicBaseUrl(req, this.config);
  }
}
