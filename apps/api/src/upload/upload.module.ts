/**
 * What the endpoints that take a document form share (POST /api/v1/process-template-document and
 * POST /api/v1/jobs): one CheckedTemplates and one DecodedImages per API process, so a template
 * checked or an image decoded by either endpoint is not again (checked-templates.ts).
 */
import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { ApiSettings } from '../config/settings';
import { CheckedTemplates, DecodedImages } from './checked-templates';

@Module({
  providers: [
    { provide: CheckedTemplates, useValue: new CheckedTemplates() },
    { provide: DecodedImages, useValue: new DecodedImages() },
  ],
  exports: [CheckedTemplates, DecodedImages],
})
export class UploadCacheModule {}

/**
 * Multer for a document form: memory storage (no `dest`: the template goes to Redis from memory).
 * The limits bound the whole request: the template file, a few text fields, each at most
 * MAX_REQUEST_BYTES.
 */
export function documentUploadModule() {
  return MulterModule.registerAsync({
    inject: [ApiSettings],
    useFactory: (config: ApiSettings) => ({
      defParamCharset: 'utf8',
      limits: {
        fileSize: config.limits.templateBytes,
        fieldSize: config.limits.requestBytes,
        // One template; a few more so that a file sent in a text field (curl's -F data=@x.json)
        // is reported by its field name (multer's "unexpected field") rather than a bare count.
        files: 4,
        fields: 8,
        parts: 10,
        fieldNameSize: 100,
      },
    }),
  });
}
