/**
 * The API: accepts documents over HTTP and has workers (apps/worker) render them through a
 * BullMQ queue in Redis. Configuration: docs/configuration.md; operating it: docs/operations.md.
 */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { ConfigurationError } from '@app/config';
import { type ApiSettings, loadApiSettings } from './config/settings';
import { setupOpenApi } from './docs/openapi';
import { API_PATHS } from '@app/contracts';
import { installMemoryProbe } from '@app/logging';
import { startTelemetry } from '@app/telemetry';

async function bootstrap(): Promise<void> {
  let settings: ApiSettings;
  try {
    settings = loadApiSettings();
  } catch (e) {
    console.error(e instanceof ConfigurationError ? e.message : e);
    process.exit(1);
  }
  installMemoryProbe(); // only under --expose-gc (the e2e tests' leak check)
  // Traces only when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operations.md, "Traces").
  const tracing = startTelemetry('docgen-api');
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(settings), {
    // multipart is parsed by multer on the one route that takes a body
    bodyParser: false,
    // Start-up lines wait for pino (LoggingModule) instead of going to the console unformatted.
    bufferLogs: true,
  });
  const logger = app.get(Logger);
  app.useLogger(logger);
  if (tracing) logger.log('traces on: spans are exported over OTLP', 'Api');
  app.disable('x-powered-by');
  app.set('etag', false);
  app.enableShutdownHooks();
  setupOpenApi(app);
  const server = await app.listen(settings.http.port, settings.http.host);
  // The address really bound (Nest's getUrl() says 127.0.0.1 for 0.0.0.0), and where to browse.
  const { address, port } = server.address() as AddressInfo;
  const bound = address.includes(':') ? `[${address}]` : address;
  const everywhere = address === '0.0.0.0' || address === '::';
  const url = `http://${everywhere ? 'localhost' : bound}:${port}`;
  logger.log(
    `listening on http://${bound}:${port}${everywhere ? ' (all interfaces)' : ''} ` +
      `(OpenAPI at ${url}${API_PATHS.docs}, metrics at ${url}${API_PATHS.metrics})`,
    'Api',
  );
}

bootstrap().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
