/**
 * Multer for the endpoints that take a template and a few small text fields (lint, inspect):
 * memory storage, one file of at most MAX_TEMPLATE_BYTES.
 */
import { MulterModule } from '@nestjs/platform-express';
import { ApiSettings } from '../config/settings';

export function templateUploadModule() {
  return MulterModule.registerAsync({
    inject: [ApiSettings],
    useFactory: (config: ApiSettings) => ({
      defParamCharset: 'utf8',
      limits: {
        fileSize: config.limits.templateBytes,
        fieldSize: config.limits.requestBytes,
        files: 1,
        fields: 4,
        parts: 6,
        fieldNameSize: 100,
      },
    }),
  });
}
