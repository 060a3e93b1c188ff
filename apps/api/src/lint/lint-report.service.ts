/**
 * The lint report as a PDF: the engine's report template filled with the report, rendered and
 * converted by a worker like any document (the API has no converter of its own).
 */
import { Injectable } from '@nestjs/common';
import { lintReportData, lintReportTemplate, type LintReport } from '@app/engine';
import { RenderQueueService } from '../queue/render-queue.service';

export interface PdfReport {
  body: Buffer;
  filename: string;
}

@Injectable()
export class LintReportService {
  private readonly template = lintReportTemplate();

  constructor(private readonly queue: RenderQueueService) {}

  /** `document.docx` → `document_lint_report.pdf`, as the seed system names it. */
  static filenameFor(templateName: string): string {
    const base = templateName.replace(/\.[^.]*$/, '') || 'template';
    return `${base}_lint_report.pdf`;
  }

  async pdf(
    report: LintReport,
    templateName: string,
    requestId: string,
    signal?: AbortSignal,
  ): Promise<PdfReport> {
    const filename = LintReportService.filenameFor(templateName);
    const result = await this.queue.render(
      {
        requestId,
        template: this.template,
        filename,
        // The report template is ours, built in this process: nothing to re-check in the worker.
        templateChecked: true,
        request: { template_data: lintReportData(report, templateName) },
        options: { undefined: 'empty', output: 'pdf' },
      },
      signal,
    );
    return { body: result.body, filename };
  }
}
