import { Module } from '@nestjs/common';
import { QueueModule } from '../queue/queue.module';
import { LintModule } from '../lint/lint.module';
import { documentUploadModule, UploadCacheModule } from '../upload/upload.module';
import { DocumentsController } from './documents.controller';

/** The synchronous endpoint (and its batches): POST /api/v1/process-template-document. */
@Module({
  imports: [QueueModule, LintModule, UploadCacheModule, documentUploadModule()],
  controllers: [DocumentsController],
})
export class DocumentsModule {}
