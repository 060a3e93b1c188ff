/**
 * The OpenAPI document exactly as the API serves it at /docs-json, built without starting
 * anything: Nest's preview mode registers the modules and controllers (all the document needs) but
 * creates no provider, so no Redis connection is made. The settings are the defaults: the client
 * describes the default service (PLAYGROUND=off only drops /playground). `npm run client:generate` loads it from dist/ (scripts/generate-client.ts).
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import { AppModule } from '../app.module';
import { loadApiSettings } from '../config/settings';
import { buildOpenApiDocument } from './openapi';

export async function servedOpenApiDocument(): Promise<OpenAPIObject> {
  const app = await NestFactory.create(AppModule.forRoot(loadApiSettings({})), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  try {
    return buildOpenApiDocument(app);
  } finally {
    await app.close();
  }
}
