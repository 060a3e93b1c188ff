import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { ApiSettings } from '../config/settings';
import { QueueModule } from '../queue/queue.module';
import { LintModule } from '../lint/lint.module';
import { CheckedTemplates, DecodedImages } from '../upload/checked-templates';
import { DocumentsController } from './documents.controller';
import { JobsController } from '../jobs/jobs.controller';

@Module({
  imports: [
    QueueModule,
    LintModule,
    // Memory storage (no `dest`): the template goes to Redis from memory. The limits bound the
    // whole request: the template file, a few text fields, each at most MAX_REQUEST_BYTES.
    MulterModule.registerAsync({
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
    }),
  ],
  controllers: [DocumentsController, JobsController],
  // One per API process: a template checked or an image decoded once is not again (checked-templates.ts).
  providers: [
    { provide: CheckedTemplates, useValue: new CheckedTemplates() },
    { provide: DecodedImages, useValue: new DecodedImages() },
  ],
})
export class DocumentsModule {}
