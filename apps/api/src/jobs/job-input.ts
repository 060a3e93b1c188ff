/**
 * What JobsService.submit() takes, from a checked form: for /api/v1/jobs and for the synchronous
 * endpoint's batches. Free of NestJS, so it is tested directly.
 */
import type { Request } from 'express';
import type { ApiSettings } from '../config/settings';
import { renderPayload, splitPdfOptions } from '@app/contracts';
import { renderJobOptions } from './job-options';
import { requestIdOf } from '../logging/request-id';
import type { JobInput } from '../queue/jobs.service';
import { OUTPUT_MEDIA, outputExtension, outputFilename, type ParsedJobRequest } from '@app/contracts';
import { templateWarnings } from '@app/engine';

/** The uploaded template, as multer gives it. */
export interface UploadedTemplate {
  buffer: Buffer;
  originalname: string;
  size: number;
}

/** What JobsService.submit() needs, from a checked form (also the synchronous endpoint's batches). */
export function jobInput(
  req: Request,
  file: UploadedTemplate,
  parsed: ParsedJobRequest,
  digest: string,
  baseUrl: string,
  defaults: ApiSettings['defaults'],
  /** A render by id: the stored version, recorded with the job (template_version in its status). */
  stored?: { templateId: string; version: number; digest: string },
): JobInput {
  const format = parsed.options.output ?? 'pdf';
  const [pdfShape, pdfFinish] = splitPdfOptions(parsed.options.pdf);
  const filename = outputFilename(
    file.originalname,
    parsed.output === 'zip'
      ? 'zip'
      : parsed.output === 'merged'
        ? OUTPUT_MEDIA.pdf.extension
        : outputExtension(format, parsed.options.image),
  );
  return {
    requestId: requestIdOf(req),
    template: file.buffer,
    templateDigest: digest,
    filename,
    // Passwords and files of options.pdf ride in each item's request payload, never in job data.
    requests: (parsed.items ? parsed.items.map((i) => i.request) : [parsed.request]).map((r) =>
      renderPayload(r, pdfFinish),
    ),
    ...(parsed.items ? { itemNames: parsed.items.map((i) => i.name) } : {}),
    output: parsed.output,
    options: renderJobOptions(parsed.options, pdfShape, defaults),
    ...(parsed.webhookUrl ? { webhookUrl: parsed.webhookUrl } : {}),
    ...(parsed.deliverTo ? { deliverTo: parsed.deliverTo } : {}),
    baseUrl,
    // As the synchronous answer's Warning header: what the fill drops from a workbook, never fetched.
    warnings: templateWarnings(file.buffer),
    ...(stored
      ? { storedTemplate: { templateId: stored.templateId, version: stored.version, digest: stored.digest } }
      : {}),
  };
}
