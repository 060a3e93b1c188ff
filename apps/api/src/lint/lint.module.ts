import { Module } from '@nestjs/common';
import { QueueModule } from '../queue/queue.module';
import { templateUploadModule } from '../upload/template-upload';
import { LintController } from './lint.controller';
import { LintReportService } from './lint-report.service';

@Module({
  imports: [QueueModule, templateUploadModule()],
  controllers: [LintController],
  providers: [LintReportService],
  exports: [LintReportService],
})
export class LintModule {}
