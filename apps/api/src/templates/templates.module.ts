import { type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { json } from 'express';
import { templateUploadModule } from '../upload/template-upload';
import { KeysController } from './keys.controller';
import { TemplatesController } from './templates.controller';

@Module({ imports: [templateUploadModule()], controllers: [TemplatesController, KeysController] })
export class TemplatesModule implements NestModule {
  // The app parses no bodies by default (multer on the form routes); the keys route takes JSON.
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(json({ limit: '16kb' })).forRoutes('api/v1/keys');
  }
}
