/**
 * POST /api/v1/lint-docx-template: every problem of a template at once, without data, as the
 * seed system's JSON report (`options.response_format = "json"`) or as a PDF report (the default),
 * which a worker renders from the engine's report template.
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
import { ApiBody, ApiConsumes, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { InvalidRequestError, lintDocxTemplate, type LintReport } from '@app/engine';
import { OUTPUT_MEDIA, LintFormSchema, MissingFileError, toOpenApi } from '@app/contracts';
import { ErrorResponse } from '../docs/error-response';
import { hangUpSignal } from '../logging/hang-up';
import { requestIdOf } from '../logging/request-id';
import { contentDisposition, parseLintOptions } from '@app/contracts';
import { LintReportService } from './lint-report.service';
import { templateSourceOf } from '@app/contracts';
import { AcceptsKey } from '../store/api-key.guard';
import { StoredTemplates, uploadOf } from '../store/stored-templates';

interface UploadedTemplate {
  buffer: Buffer;
  originalname: string;
}

@ApiTags('template tools')
@Controller('api/v1')
export class LintController {
  constructor(
    private readonly reports: LintReportService,
    private readonly storedTemplates: StoredTemplates,
  ) {}

  @Post('lint-docx-template')
  @ApiOperation({
    summary: 'Lint a template: every problem at once, without data',
    description:
      'Syntax errors, unclosed or mismatched blocks, unknown filters, tests and tags, tags never closed or split across ' +
      'table cells, blocks crossing table cells, each with its location (part, paragraph, table cell, line and column of the ' +
      'template text) and a suggestion; warnings for likely mistakes (a tag split across paragraphs renders, joined as docxtpl joins it). The report is 200 whether or not the template ' +
      'passes; `success` says which. PDF by default (rendered by a worker), JSON with `options.response_format = "json"`. ' +
      'A workbook (.xlsx, told by its content types) is linted too: each cell holding text is one line, located by `sheet`, `cell` and `row`; ' +
      'so is a deck (.pptx): each paragraph of a slide or its notes is one line, located by `slide`, `shape` and `table`.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: toOpenApi(LintFormSchema) })
  @ApiProduces('application/json', OUTPUT_MEDIA.pdf.contentType)
  @ApiResponse({
    status: 200,
    description: 'The lint report',
    content: {
      'application/json': { schema: { $ref: '#/components/schemas/LintReport' } },
      [OUTPUT_MEDIA.pdf.contentType]: { schema: { type: 'string', format: 'binary' } },
    },
  })
  @ErrorResponse(400, 'No document, not a .docx, .xlsx or .pptx, or bad options')
  @ErrorResponse(503, 'PDF report only: no worker to render it')
  @HttpCode(200)
  @AcceptsKey()
  @UseInterceptors(FileInterceptor('document'))
  async lint(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @UploadedFile() upload: UploadedTemplate | undefined,
  ): Promise<LintReport | StreamableFile> {
    if (!req.is('multipart/form-data'))
      throw new InvalidRequestError('The request must be multipart/form-data with the field document', {
        content_type: req.headers['content-type'] ?? null,
      });
    // The upload, or a stored template by template_id (docs/templates.md).
    const source = templateSourceOf(
      req.body as Record<string, unknown> | undefined,
      upload !== undefined,
      'document',
    );
    const document =
      source.kind === 'stored'
        ? await uploadOf(await this.storedTemplates.resolve(req, source, res))
        : upload;
    if (!document)
      throw new MissingFileError("The form field 'document' (the .docx, .xlsx or .pptx template) is missing");
    const options = parseLintOptions((req.body as Record<string, unknown> | undefined)?.options);
    const report = lintDocxTemplate(document.buffer, {
      verbose: options.verbose,
      failOnWarnings: options.fail_on_warnings,
      maxLineLength: options.max_line_length,
    });
    if (options.response_format === 'json') return report;
    const pdf = await this.reports.pdf(report, document.originalname, requestIdOf(req), hangUpSignal(res));
    return new StreamableFile(pdf.body, {
      type: OUTPUT_MEDIA.pdf.contentType,
      disposition: contentDisposition(pdf.filename),
      length: pdf.body.length,
    });
  }
}
