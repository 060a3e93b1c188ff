import { DynamicModule, Global, Module } from '@nestjs/common';
import { ApiSettings } from './settings';

/** Provides the ApiSettings that main.ts loaded and validated before creating the app. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(settings: ApiSettings): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: ApiSettings, useValue: settings }],
      exports: [ApiSettings],
    };
  }
}
