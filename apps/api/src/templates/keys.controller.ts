/** POST /api/v1/keys: an admin key makes API keys (docs/templates.md). The key is shown once. */
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiKeyAnswerSchema, ApiKeyRequestSchema, checkPayload, toOpenApi } from '@app/contracts';
import { InvalidRequestError } from '@app/engine';
import { newApiKey } from '@app/store';
import { ErrorResponse } from '../docs/error-response';
import { RequiresKey } from '../store/api-key.guard';
import { TemplateStoreProvider } from '../store/template-store.provider';

@ApiTags('stored templates')
@Controller('api/v1/keys')
export class KeysController {
  constructor(private readonly stores: TemplateStoreProvider) {}

  @Post()
  @RequiresKey('admin')
  @ApiOperation({ summary: 'Create an API key (admin): shown once, stored as its SHA-256' })
  @ApiBody({ schema: toOpenApi(ApiKeyRequestSchema) })
  @ApiResponse({ status: 201, schema: toOpenApi(ApiKeyAnswerSchema) })
  @ErrorResponse(400, 'Bad namespace or scopes')
  @ErrorResponse(403, 'The key is not an admin key')
  @HttpCode(201)
  async create(@Body() body: unknown) {
    const problems = checkPayload(ApiKeyRequestSchema, body, '');
    if (problems.length) {
      throw new InvalidRequestError(
        `Invalid key request: ${problems.flatMap((p) => p.problems).join('; ')}`,
        { fields: problems.map((p) => p.field) },
      );
    }
    const { namespace, scopes } = body as { namespace: string; scopes: Array<'render'> };
    const key = newApiKey();
    const record = await (await this.stores.get()).createKey(key, namespace, scopes);
    return { id: record.id, key, namespace, scopes };
  }
}
