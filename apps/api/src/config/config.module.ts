import { DynamicModule, Global, Module } from '@nestjs/common';
import { ServiceConfig } from '@app/config';

/** Provides the ServiceConfig that main.ts loaded and validated before creating the app. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: ServiceConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: ServiceConfig, useValue: config }],
      exports: [ServiceConfig],
    };
  }
}
