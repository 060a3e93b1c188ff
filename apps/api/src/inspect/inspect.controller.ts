/**
 * POST /api/v1/inspect-template: what a template expects, without data (its variables and how
 * each is used, loops, conditions, images), with a `template_data` skeleton and a JSON Schema.
 */
import { Controller, HttpCode, Post, Req, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiBody, ApiConsumes, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { InvalidRequestError, inspectTemplate, type TemplateInspection } from '@app/engine';
import { InspectFormSchema, MissingFileError, toOpenApi } from '@app/contracts';
import { ERROR_BODY_REF } from '../docs/answer-schemas';
import { errorExamples } from '../docs/examples';

@ApiTags('template tools')
@Controller('api/v1')
export class InspectController {
  @Post('inspect-template')
  @ApiOperation({
    summary:
      'What a template expects: variables, loops, conditions, images, a data skeleton and a JSON Schema',
    description:
      'Variables come with their paths (`items[].price` for a field of each element of `items`) and usages: ' +
      '`printed`, `looped`, `tested`, `image`, `rich`, `computed`. `skeleton` is a request to start from; ' +
      '`json_schema` (2020-12) describes `template_data`.',
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
    description: 'No file, or not a .docx',
    content: { 'application/json': { schema: ERROR_BODY_REF, examples: errorExamples(400) } },
  })
  @HttpCode(200)
  @UseInterceptors(FileInterceptor('file'))
  inspect(@Req() req: Request, @UploadedFile() file: { buffer: Buffer } | undefined): TemplateInspection {
    if (!req.is('multipart/form-data'))
      throw new InvalidRequestError('The request must be multipart/form-data with the field file', {
        content_type: req.headers['content-type'] ?? null,
      });
    if (!file) throw new MissingFileError();
    return inspectTemplate(file.buffer);
  }
}
