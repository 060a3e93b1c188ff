import { Module } from '@nestjs/common';
import { QueueModule } from '../queue/queue.module';
import { HealthController, ReadinessController } from './health.controller';

@Module({ imports: [QueueModule], controllers: [HealthController, ReadinessController] })
export class HealthModule {}
