/**
 * POST /api/v1/process-template-document: validates the upload, checks the template and the
 * images here (so those errors never reach a worker), then hands the work to the queue and
 * answers with the worker's PDF (or .docx) or its typed error.
 */
import {
  Controller,
  HttpCode,
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
  ApiHeader,
  ApiOperation,
  ApiProduces,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import {
  checkTemplate,
  countChartPoints,
  formatDefaultsOf,
  prepareImages,
  templateWarnings,
  warningHeader,
} from '@app/engine';
import { ApiSettings } from '../config/settings';
import {
  extensionOf,
  OUTPUT_MEDIA,
  outputExtension,
  PAGE_IMAGES_ZIP,
  MissingFileError,
  renderPayload,
  ProcessingTimeoutError,
  RenderFormSchema,
  splitPdfOptions,
  toOpenApi,
} from '@app/contracts';
import { RenderQueueService } from '../queue/render-queue.service';
import { RENDER_BODY_EXAMPLES } from '../docs/examples';
import { hangUpSignal } from '../logging/hang-up';
import { REQUEST_ID_HEADER, requestIdOf } from '../logging/request-id';
import { renderJobOptions } from '../jobs/job-options';
import {
  contentDisposition,
  InvalidRequestError,
  type LinterRequest,
  outputFilename,
  parseJobFields,
  type ParsedJobRequest,
  type RenderRequest,
} from '@app/contracts';
import { jobInput, type UploadedTemplate } from '../jobs/job-input';
import { JobsService } from '../queue/jobs.service';
import { lintFailure } from './template-validation';
import type { ValidationFailedBody } from '../docs/answer-schemas';
import { LintReportService } from '../lint/lint-report.service';
import { CheckedTemplates, DecodedImages } from '../upload/checked-templates';
import { VALIDATION_FAILED_REF } from '../docs/answer-schemas';
import { ErrorResponse } from '../docs/error-response';
import { inRequestSpan } from '../tracing/request-span';
import { AcceptsKey } from '../store/api-key.guard';
import { type StoredTemplate, StoredTemplates, uploadOf } from '../store/stored-templates';
import { templateSourceOf } from '@app/contracts';

/** Every content type the endpoint answers a document with (docs/outputs.md). */
const RESULT_MEDIA = [...Object.values(OUTPUT_MEDIA).map((m) => m.contentType), PAGE_IMAGES_ZIP.contentType];

@ApiTags('documents')
@Controller('api/v1')
export class DocumentsController {
  constructor(
    private readonly queue: RenderQueueService,
    private readonly config: ApiSettings,
    private readonly lintReports: LintReportService,
    private readonly checkedTemplates: CheckedTemplates,
    private readonly decodedImages: DecodedImages,
    private readonly jobs: JobsService,
    private readonly storedTemplates: StoredTemplates,
  ) {}

  @Post('process-template-document')
  @ApiOperation({
    summary: 'Render a Word template with data (and images) to PDF',
    description:
      'Legacy mode: `file` + `data` (a JSON object of template variables). Enhanced mode: `file` + `request_data` ' +
      '(EnhancedRequest: template_data, images of ImageData, options). Template and image errors are found before ' +
      'anything is queued; the answer comes back in the same response once a worker has rendered it.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: toOpenApi(RenderFormSchema), examples: RENDER_BODY_EXAMPLES })
  @ApiHeader({
    name: REQUEST_ID_HEADER,
    required: false,
    description: 'Correlation id (1–128 of A-Z a-z 0-9 . _ -), echoed back; otherwise one is generated',
  })
  @ApiProduces(...RESULT_MEDIA, 'application/json')
  @ApiResponse({
    status: 200,
    description:
      'The PDF, or the format options.output names (docx, odt, html, txt, png, jpeg, xlsx, ods, pptx, odp; several page images: a ZIP)',
    content: Object.fromEntries(
      RESULT_MEDIA.map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
    ),
    headers: {
      'Content-Disposition': {
        description: 'attachment; filename="<upload name>.pdf"; filename*=UTF-8\'\'…',
        schema: { type: 'string' },
      },
      [REQUEST_ID_HEADER]: { description: 'The request id', schema: { type: 'string' } },
    },
  })
  @ApiResponse({
    status: 200,
    description:
      'With linter_options and a template that fails validation: the seed system\'s report (JSON, or the PDF report with response_format "pdf")',
    content: { 'application/json': { schema: VALIDATION_FAILED_REF } },
  })
  @ErrorResponse(400, 'Request, template-file or image error')
  @ErrorResponse(413, 'Template, request field, image count or image size over the limits')
  @ErrorResponse(
    422,
    'Template error (syntax, undefined variable in strict mode, a failing expression), or an options.pdf file that cannot be used (invalid_pdf_input, invalid_einvoice)',
  )
  @ErrorResponse(500, 'Unexpected error; the cause is logged, never sent')
  @ErrorResponse(502, 'The converter failed or stayed unreachable after retries')
  @ErrorResponse(
    503,
    'Redis unreachable, no worker alive, MAX_WAITING_JOBS reached, or no LibreOffice instance could start on the worker',
  )
  @ErrorResponse(504, 'No result within JOB_TIMEOUT_MS')
  @HttpCode(200)
  @AcceptsKey()
  @UseInterceptors(FileInterceptor('file'))
  async process(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @UploadedFile() file: UploadedTemplate | undefined,
  ): Promise<StreamableFile | ValidationFailedBody> {
    return inRequestSpan(req, () => this.render(req, res, file));
  }

  private async render(
    req: Request,
    res: Response,
    file: UploadedTemplate | undefined,
  ): Promise<StreamableFile | ValidationFailedBody> {
    if (!req.is('multipart/form-data')) {
      throw new InvalidRequestError(
        'The request must be multipart/form-data with the fields file and data or request_data',
        {
          content_type: req.headers['content-type'] ?? null,
        },
      );
    }
    // The template: the upload, or a stored one by template_id (docs/templates.md).
    const source = templateSourceOf(req.body as Record<string, unknown> | undefined, file !== undefined);
    const stored =
      source.kind === 'stored' ? await this.storedTemplates.resolve(req, source, res) : undefined;
    if (!file && !stored) throw new MissingFileError();
    // The render form, and request_data.batch (docs/jobs.md), which runs as a job awaited here.
    const parsed = parseJobFields(req.body as Record<string, unknown> | undefined, {
      maxJsonDepth: this.config.limits.jsonDepth,
      maxDocuments: this.config.limits.subdocuments,
      maxPdfExtraBytes: this.config.limits.pdfExtraBytes,
      maxBatchItems: this.config.limits.batchItems,
      // Locale and zone names are the engine's knowledge: the same check as the CLI's.
      formatDefaults: formatDefaultsOf,
    });
    if (parsed.webhookUrl !== undefined) {
      throw new InvalidRequestError(
        'webhook_url is for POST /api/v1/jobs: this endpoint answers with the document',
        {
          field: 'webhook_url',
        },
      );
    }
    if (parsed.deliverTo) {
      throw new InvalidRequestError(
        'deliver_to is for POST /api/v1/jobs: this endpoint answers with the document',
        {
          field: 'deliver_to',
        },
      );
    }
    if (parsed.items) return this.batch(req, res, file ?? (await uploadOf(stored!)), parsed, stored);
    const { request, options, linter } = parsed;
    // A stored template was checked at its upload.
    const templateDigest = stored
      ? stored.queueDigest
      : this.checkedTemplates.ensure(file!.buffer, (t) =>
          checkTemplate(t, {}, { allowMacros: this.config.limits.render.allowMacros }),
        );
    prepareImages(
      request.images,
      {
        maxImages: this.config.limits.images.maxImages,
        maxImageBytes: this.config.limits.images.maxImageBytes,
        maxImagePixels: this.config.limits.images.maxImagePixels,
      },
      // A logo or signature sent with every request is decoded once per process.
      { decodedBefore: this.decodedImages },
    );
    // Chart data over MAX_CHART_POINTS: 413 before anything is queued (docs/charts.md).
    countChartPoints(request.template_data, this.config.limits.render.chartLimits);

    if (linter?.enabled) {
      const failed = await this.validate(file ?? (await uploadOf(stored!)), request, linter, req, res);
      if (failed) return failed;
    }

    const output = options.output ?? 'pdf';
    const originalName = file ? file.originalname : `${stored!.name}.${extensionOf(stored!.mediaType)}`;
    const filename = outputFilename(originalName, outputExtension(output, options.image));
    // Passwords and files of options.pdf ride in the request payload, never in the job data.
    const [pdfShape, pdfFinish] = splitPdfOptions(options.pdf);
    const result = await this.queue.render(
      {
        requestId: requestIdOf(req),
        // By id: the bytes come from PostgreSQL only when Redis lacks them.
        template: stored ? { size: stored.size, load: stored.load } : file!.buffer,
        ...(stored
          ? {
              storedTemplate: {
                templateId: stored.templateId,
                version: stored.version,
                digest: stored.digest,
              },
            }
          : {}),
        filename,
        request: renderPayload(request, pdfFinish),
        templateChecked: true,
        templateDigest,
        options: renderJobOptions(options, pdfShape, this.config.defaults),
      },
      // The caller hanging up withdraws its job if no worker has taken it yet.
      hangUpSignal(res),
    );
    // What the fill dropped from a workbook (external links, data connections), never fetched.
    const warning = warningHeader(file ? templateWarnings(file.buffer) : stored!.warnings);
    if (warning) res.setHeader('Warning', warning);
    // Named by what the worker made: page images are one image, or a ZIP when the PDF has several.
    return new StreamableFile(result.body, {
      type: result.contentType || OUTPUT_MEDIA[output].contentType,
      disposition: contentDisposition(
        result.contentType ? outputFilename(originalName, extensionOf(result.contentType)) : filename,
      ),
      length: result.body.length,
    });
  }

  /**
   * A batch sent to the synchronous endpoint: queued as a job (one child per item, so every
   * worker shares it) and awaited here within JOB_TIMEOUT_MS; on timeout or hang-up it is cancelled.
   */
  private async batch(
    req: Request,
    res: Response,
    file: UploadedTemplate,
    parsed: ParsedJobRequest,
    stored?: StoredTemplate,
  ): Promise<StreamableFile> {
    const digest = stored
      ? stored.queueDigest
      : this.checkedTemplates.ensure(file.buffer, (t) =>
          checkTemplate(t, {}, { allowMacros: this.config.limits.render.allowMacros }),
        );
    const limits = {
      maxImages: this.config.limits.images.maxImages,
      maxImageBytes: this.config.limits.images.maxImageBytes,
      maxImagePixels: this.config.limits.images.maxImagePixels,
    };
    for (const { request } of parsed.items!)
      prepareImages(request.images, limits, { decodedBefore: this.decodedImages });
    const hangUp = hangUpSignal(res);
    const jobId = await this.jobs.submit(
      jobInput(req, file, parsed, digest, '', this.config.defaults, stored),
    );
    // Answered here (or given up): the job and its result are kept for nobody else.
    const result = await this.jobs
      .waitForResult(jobId, this.config.queue.jobTimeoutMs, hangUp)
      .finally(() => void this.jobs.cancel(jobId).catch(() => undefined));
    if (!result) {
      throw new ProcessingTimeoutError(
        `The batch was not processed within ${this.config.queue.jobTimeoutMs} ms`,
        {
          timeout_ms: this.config.queue.jobTimeoutMs,
          hint: 'POST /api/v1/jobs takes a batch and answers at once',
        },
      );
    }
    return new StreamableFile(result.body, {
      type: result.contentType,
      disposition: contentDisposition(result.filename),
      length: result.body.length,
    });
  }

  /**
   * linter_options: lint first; a template that fails answers 200 with the report, as the seed
   * system does (JSON, or the PDF report). Without linter_options, template errors stay 422.
   */
  private async validate(
    file: UploadedTemplate,
    request: RenderRequest,
    linter: LinterRequest,
    req: Request,
    res: Response,
  ): Promise<StreamableFile | ValidationFailedBody | null> {
    const failure = lintFailure(file.buffer, request, linter);
    if (!failure) return null;
    if (linter.response_format === 'json') return failure.body;
    const pdf = await this.lintReports.pdf(
      failure.report,
      file.originalname,
      requestIdOf(req),
      hangUpSignal(res),
    );
    return new StreamableFile(pdf.body, {
      type: OUTPUT_MEDIA.pdf.contentType,
      disposition: contentDisposition(pdf.filename),
      length: pdf.body.length,
    });
  }
}
