import { Module } from '@nestjs/common';
import { QueueModule } from '../queue/queue.module';
import { VersionController } from './version.controller';

@Module({ imports: [QueueModule], controllers: [VersionController] })
export class VersionModule {}
