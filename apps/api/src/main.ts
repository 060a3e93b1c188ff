/**
 * The API: accepts documents over HTTP and has workers (apps/worker) render them through a
 * BullMQ queue in Redis. Configuration: docs/configuration.md.
 */
import 'reflect-metadata';
import { Logger, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { ConfigurationError, loadConfig, ServiceConfig } from './config/service-config';

const LEVELS: LogLevel[] = ['error', 'warn', 'log', 'debug'];

async function bootstrap(): Promise<void> {
  let config: ServiceConfig;
  try {
    config = loadConfig();
  } catch (e) {
    console.error(e instanceof ConfigurationError ? e.message : e);
    process.exit(1);
  }
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    // multipart is parsed by multer on the one route that takes a body
    bodyParser: false,
    logger: LEVELS.slice(0, LEVELS.indexOf(config.LOG_LEVEL) + 1),
  });
  app.disable('x-powered-by');
  app.set('etag', false);
  app.enableShutdownHooks();
  await app.listen(config.PORT, config.HOST);
  new Logger('Api').log(`listening on ${await app.getUrl()}`);
}

bootstrap().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
