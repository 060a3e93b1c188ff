import { Module } from '@nestjs/common';
import { QueueModule } from '../queue/queue.module';
import { documentUploadModule, UploadCacheModule } from '../upload/upload.module';
import { JobsController } from './jobs.controller';

/** Asynchronous jobs: POST /api/v1/jobs, their status, result and cancellation. */
@Module({
  imports: [QueueModule, UploadCacheModule, documentUploadModule()],
  controllers: [JobsController],
})
export class JobsModule {}
