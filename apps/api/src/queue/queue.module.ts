import { Module } from '@nestjs/common';
import { QueueMetrics } from './queue-metrics';
import { RenderQueueService } from './render-queue.service';

@Module({
  providers: [RenderQueueService, QueueMetrics],
  exports: [RenderQueueService],
})
export class QueueModule {}
