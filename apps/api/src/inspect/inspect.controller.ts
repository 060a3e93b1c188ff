/**
 * POST /api/v1/inspect-template: what a template expects, without data (its variables and how
 * each is used, loops, conditions, images), with a `template_data` skeleton and a JSON Schema.
 */
import { Controller, HttpCode, Post, Req, Res, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiBody, ApiConsumes, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { InvalidRequestError, inspectTemplate, type TemplateInspection } from '@app/engine';
import { InspectFormSchema, MissingFileError, toOpenApi } from '@app/contracts';
import { ERROR_BODY_REF } from '../docs/answer-schemas';
import { errorExamples } from '../docs/examples';
import { templateSourceOf } from '@app/contracts';
import { AcceptsKey } from '../store/api-key.guard';
import { StoredTemplates } from '../store/stored-templates';

@ApiTags('template tools')
@Controller('api/v1')
export class InspectController {
  constructor(private readonly storedTemplates: StoredTemplates) {}

  @Post('inspect-template')
  @ApiOperation({
    summary:
      'What a template expects: variables, loops, conditions, images, a data skeleton and a JSON Schema',
    description:
      'Variables come with their paths (`items[].price` for a field of each element of `items`) and usages: ' +
      '`printed`, `looped`, `tested`, `image`, `rich`, `computed`. `skeleton` is a request to start from; ' +
      '`json_schema` (2020-12) describes `template_data`. A workbook (.xlsx) is inspected too, its locations naming `sheet`, `cell` and `row`; a deck (.pptx) names `slide` and `shape`.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: toOpenApi(InspectFormSchema) })
  @ApiResponse({
    status: 200,
    description: 'The inspection',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/TemplateInspection' } } },
  })
  @ApiResponse({
    status: 400,
    description: 'No file, or not a .docx, .xlsx or .pptx',
    content: { 'application/json': { schema: ERROR_BODY_REF, examples: errorExamples(400) } },
  })
  @HttpCode(200)
  @AcceptsKey()
  @UseInterceptors(FileInterceptor('file'))
  async inspect(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @UploadedFile() upload: { buffer: Buffer } | undefined,
  ): Promise<TemplateInspection> {
    if (!req.is('multipart/form-data'))
      throw new InvalidRequestError('The request must be multipart/form-data with the field file', {
        content_type: req.headers['content-type'] ?? null,
      });
    // The upload, or a stored template by template_id (docs/templates.md).
    const source = templateSourceOf(req.body as Record<string, unknown> | undefined, upload !== undefined);
    if (source.kind === 'stored') {
      const stored = await this.storedTemplates.resolve(req, source, res);
      return inspectTemplate(await stored.load());
    }
    if (!upload) throw new MissingFileError();
    return inspectTemplate(upload.buffer);
  }
}
