/**
 * Multer for the endpoints that take a template and a few small text fields (lint, inspect):
 * memory storage, one file of at most MAX_TEMPLATE_BYTES.
 */
import { MulterModule } from '@nestjs/platform-express';
import { ServiceConfig } from '@app/config';

export function templateUploadModule() {
  return MulterModule.registerAsync({
    inject: [ServiceConfig],
    useFactory: (config: ServiceConfig) => ({
      defParamCharset: 'utf8',
      limits: {
        fileSize: config.MAX_TEMPLATE_BYTES,
        fieldSize: config.MAX_REQUEST_BYTES,
        files: 1,
        fields: 4,
        parts: 6,
        fieldNameSize: 100,
      },
    }),
  });
}
