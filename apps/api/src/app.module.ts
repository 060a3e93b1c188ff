import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ConfigModule } from './config/config.module';
import { ServiceConfig } from './config/service-config';
import { DocumentsModule } from './documents/documents.module';
import { AllExceptionsFilter } from './errors/all-exceptions.filter';
import { HealthModule } from './health/health.module';

@Module({})
export class AppModule {
  static forRoot(config: ServiceConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [ConfigModule.forRoot(config), HealthModule, DocumentsModule],
      providers: [{ provide: APP_FILTER, useClass: AllExceptionsFilter }],
    };
  }
}
