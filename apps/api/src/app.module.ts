import { DynamicModule, Module, type OnApplicationShutdown } from '@nestjs/common';
import { stopTelemetry } from '@app/telemetry';
import { APP_FILTER } from '@nestjs/core';
import { BoardModule } from './board/board.module';
import { ConfigModule } from './config/config.module';
import { ApiSettings } from './config/settings';
import { DocumentsModule } from './documents/documents.module';
import { JobsModule } from './jobs/jobs.module';
import { AllExceptionsFilter } from './errors/all-exceptions.filter';
import { HealthModule } from './health/health.module';
import { LoggingModule } from './logging/logging.module';
import { MetricsModule } from './metrics/metrics.module';
import { InspectModule } from './inspect/inspect.module';
import { LintModule } from './lint/lint.module';
import { McpModule } from './mcp/mcp.module';
import { PlaygroundModule } from './playground/playground.module';
import { VersionModule } from './version/version.module';
import { StoreModule } from './store/store.module';
import { TemplatesModule } from './templates/templates.module';

@Module({})
export class AppModule implements OnApplicationShutdown {
  /** The last spans leave before the process does (nothing while traces are off). */
  async onApplicationShutdown(): Promise<void> {
    await stopTelemetry().catch(() => undefined);
  }

  static forRoot(settings: ApiSettings): DynamicModule {
    return {
      module: AppModule,
      // Logging and metrics first: their middleware must see every request, the board's included.
      imports: [
        ConfigModule.forRoot(settings),
        LoggingModule,
        MetricsModule,
        StoreModule,
        HealthModule,
        DocumentsModule,
        JobsModule,
        LintModule,
        InspectModule,
        VersionModule,
        McpModule,
        TemplatesModule,
        ...(settings.http.playground ? [PlaygroundModule] : []),
        BoardModule,
      ],
      providers: [{ provide: APP_FILTER, useClass: AllExceptionsFilter }],
    };
  }
}
