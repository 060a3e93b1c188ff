/**
 * Stored templates with versions (issue 38, docs/templates.md). Every route needs an API key and
 * works within its namespace: another namespace's template answers 404 `template_not_found`,
 * exactly as a missing one.
 */
import {
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Req,
  Res,
  StreamableFile,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiBody, ApiConsumes, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import {
  checkTemplate,
  inspectTemplate,
  InvalidRequestError,
  lintDocxTemplate,
  templateFormatOf,
  templateWarnings,
} from '@app/engine';
import {
  MissingFileError,
  OUTPUT_MEDIA,
  TemplateDetailSchema,
  TemplateFormSchema,
  TemplateListSchema,
  TemplateUploadAnswerSchema,
  TemplateVersionFormSchema,
  toOpenApi,
} from '@app/contracts';
import type { NewVersion } from '@app/store';
import { ErrorResponse } from '../docs/error-response';
import { ApiSettings } from '../config/settings';
import { requiredApiKeyOf, RequiresKey } from '../store/api-key.guard';
import { TemplateStoreProvider } from '../store/template-store.provider';
import { formText, parseBool, parseLabels, parseSampleData, parseVersionNumber } from './template-form';

interface UploadedTemplate {
  buffer: Buffer;
}

/** A stored template's own format: a Word document, a workbook or a deck (told by its content types). */
const TEMPLATE_MEDIA = [OUTPUT_MEDIA.docx, OUTPUT_MEDIA.xlsx, OUTPUT_MEDIA.pptx];

@ApiTags('stored templates')
@Controller('api/v1/templates')
export class TemplatesController {
  constructor(
    private readonly stores: TemplateStoreProvider,
    private readonly settings: ApiSettings,
  ) {}

  /**
   * Lint and inspection of an upload, as the lint and inspect endpoints give them. Any format the
   * engine fills (.docx, .xlsx, .pptx, told by the package's content types) is checked as a render
   * by upload checks it, macros refused unless the operator allows them.
   */
  private reports(file: UploadedTemplate | undefined, createdBy: string, publish: boolean): NewVersion {
    if (!file) throw new MissingFileError();
    checkTemplate(file.buffer, {}, { allowMacros: this.settings.limits.render.allowMacros });
    const lint = lintDocxTemplate(file.buffer, {});
    return {
      file: file.buffer,
      mediaType: OUTPUT_MEDIA[templateFormatOf(file.buffer)].contentType,
      // Named in a render by id's Warning header, which never reads the bytes in the API.
      warnings: templateWarnings(file.buffer),
      lint,
      inspection: inspectTemplate(file.buffer),
      createdBy,
      // A version whose lint finds errors is stored but never published by an upload.
      publish: publish && lint.errors.length === 0,
    };
  }

  @Post()
  @RequiresKey('templates:write')
  @ApiOperation({
    summary: 'Store a template: version 1, its lint report and inspection',
    description:
      'Published (current) at once unless lint finds errors (`published: false`; publish it explicitly).',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: toOpenApi(TemplateFormSchema) })
  @ApiResponse({ status: 201, schema: toOpenApi(TemplateUploadAnswerSchema) })
  @ErrorResponse(400, 'No file, not a .docx, .xlsx or .pptx, or malformed fields')
  @ErrorResponse(401, 'No API key or an unknown one')
  @ErrorResponse(403, 'The key lacks templates:write')
  @ErrorResponse(503, 'PostgreSQL is unavailable')
  @HttpCode(201)
  @UseInterceptors(FileInterceptor('file'))
  async create(@Req() req: Request, @UploadedFile() file: UploadedTemplate | undefined) {
    const key = requiredApiKeyOf(req);
    const name = formText(req.body, 'name')?.trim();
    if (!name || name.length > 200) {
      throw new InvalidRequestError("The form field 'name' is required (1 to 200 characters)", {
        field: 'name',
      });
    }
    const description = formText(req.body, 'description') ?? '';
    const labels = parseLabels(formText(req.body, 'labels'));
    const sampleData = parseSampleData(formText(req.body, 'sample_data'));
    const version = this.reports(file, key.id, true);
    const store = await this.stores.get();
    const created = await store.createTemplate(key.namespace, {
      ...version,
      name,
      description,
      labels,
      sampleData,
    });
    return {
      template_id: created.template_id,
      name,
      version: { number: 1, digest: created.version.digest, created_at: created.version.created_at },
      published: version.publish,
      lint: version.lint,
      inspection: version.inspection,
    };
  }

  @Post(':id/versions')
  @RequiresKey('templates:write')
  @ApiOperation({
    summary: 'Add a version (immutable, numbered 1, 2, 3…)',
    description: '`publish=true` (form field or query) makes it current if lint finds no errors.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: toOpenApi(TemplateVersionFormSchema) })
  @ApiResponse({ status: 201, schema: toOpenApi(TemplateUploadAnswerSchema) })
  @ErrorResponse(404, 'No such template in this key’s namespace')
  @HttpCode(201)
  @UseInterceptors(FileInterceptor('file'))
  async addVersion(
    @Req() req: Request,
    @Param('id') id: string,
    @Query('publish') publishQuery: string | undefined,
    @UploadedFile() file: UploadedTemplate | undefined,
  ) {
    const key = requiredApiKeyOf(req);
    const publish = parseBool(formText(req.body, 'publish') ?? publishQuery, 'publish');
    const version = this.reports(file, key.id, publish);
    const store = await this.stores.get();
    const added = await store.addVersion(key.namespace, id, version);
    const detail = await store.get(key.namespace, id);
    return {
      template_id: id,
      name: detail.name,
      version: { number: added.number, digest: added.digest, created_at: added.created_at },
      published: version.publish,
      lint: version.lint,
      inspection: version.inspection,
    };
  }

  @Post(':id/versions/:n/publish')
  @RequiresKey('templates:write')
  @ApiOperation({ summary: 'Make version n current (also how a version is rolled back to)' })
  @ApiResponse({ status: 200, schema: toOpenApi(TemplateDetailSchema) })
  @ErrorResponse(404, 'No such template or version in this key’s namespace')
  @HttpCode(200)
  async publish(@Req() req: Request, @Param('id') id: string, @Param('n') n: string) {
    const key = requiredApiKeyOf(req);
    const store = await this.stores.get();
    await store.publish(key.namespace, id, parseVersionNumber(n));
    return store.get(key.namespace, id);
  }

  @Get()
  @RequiresKey('templates:read')
  @ApiOperation({ summary: "List the key's namespace's templates, by name, paginated by cursor" })
  @ApiQuery({ name: 'name', required: false, description: 'Name prefix' })
  @ApiQuery({ name: 'label', required: false })
  @ApiQuery({ name: 'limit', required: false, description: '1 to 100 (default 20)' })
  @ApiQuery({ name: 'cursor', required: false, description: 'next_cursor of the previous page' })
  @ApiResponse({ status: 200, schema: toOpenApi(TemplateListSchema) })
  async list(
    @Req() req: Request,
    @Query('name') name?: string,
    @Query('label') label?: string,
    @Query('limit') limit?: string,
    @Query('cursor') cursor?: string,
  ) {
    const key = requiredApiKeyOf(req);
    const n = limit === undefined ? 20 : Number(limit);
    if (!Number.isInteger(n) || n < 1 || n > 100) {
      throw new InvalidRequestError('limit must be an integer from 1 to 100', { field: 'limit' });
    }
    const store = await this.stores.get();
    return store.list(key.namespace, {
      namePrefix: name || undefined,
      label: label || undefined,
      limit: n,
      cursor,
    });
  }

  @Get(':id')
  @RequiresKey('templates:read')
  @ApiOperation({ summary: 'Metadata, the current version and every version' })
  @ApiResponse({ status: 200, schema: toOpenApi(TemplateDetailSchema) })
  @ErrorResponse(404, 'No such template in this key’s namespace')
  async get(@Req() req: Request, @Param('id') id: string) {
    const key = requiredApiKeyOf(req);
    return (await this.stores.get()).get(key.namespace, id);
  }

  @Get(':id/versions/:n/file')
  @RequiresKey('templates:read')
  @ApiOperation({ summary: "A version's file (.docx, .xlsx or .pptx, as uploaded)" })
  @ApiResponse({
    status: 200,
    content: Object.fromEntries(
      TEMPLATE_MEDIA.map((m) => [m.contentType, { schema: { type: 'string', format: 'binary' } }]),
    ),
  })
  @ErrorResponse(404, 'No such template or version in this key’s namespace')
  async file(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Param('id') id: string,
    @Param('n') n: string,
  ): Promise<StreamableFile> {
    const key = requiredApiKeyOf(req);
    const number = parseVersionNumber(n);
    const { bytes, digest } = await (await this.stores.get()).versionFile(key.namespace, id, number);
    res.setHeader('X-Template-Version', String(number));
    res.setHeader('ETag', `"${digest}"`);
    const media = OUTPUT_MEDIA[templateFormatOf(bytes)];
    return new StreamableFile(bytes, {
      type: media.contentType,
      disposition: `attachment; filename="template-v${number}.${media.extension}"`,
      length: bytes.length,
    });
  }

  @Delete(':id')
  @RequiresKey('templates:write')
  @ApiOperation({ summary: 'Delete a template: a render by its id then answers 404 template_not_found' })
  @ApiResponse({ status: 204 })
  @ErrorResponse(404, 'No such template in this key’s namespace')
  @HttpCode(204)
  async remove(@Req() req: Request, @Param('id') id: string): Promise<void> {
    const key = requiredApiKeyOf(req);
    await (await this.stores.get()).delete(key.namespace, id);
  }
}
