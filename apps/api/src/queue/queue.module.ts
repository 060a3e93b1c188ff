import { Module } from '@nestjs/common';
import { QueueMetrics } from './queue-metrics';
import { RenderQueueService } from './render-queue.service';
import { JobsService } from './jobs.service';

@Module({
  providers: [RenderQueueService, JobsService, QueueMetrics],
  exports: [RenderQueueService, JobsService],
})
export class QueueModule {}
