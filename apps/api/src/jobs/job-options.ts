/**
 * The options a render job carries, from a checked form: one place for the synchronous endpoint,
 * its batches and /api/v1/jobs, so every path gets the same defaults (undefined mode, locale,
 * time zone). `pdf` is options.pdf less the finishing options, which ride in the payload.
 */
import type { ServiceConfig } from '@app/config';
import type { PdfOptions, RenderJobOptions } from '@app/contracts';
import type { RequestOptions } from '@app/contracts';

export function renderJobOptions(
  options: RequestOptions,
  pdfShape: PdfOptions | undefined,
  config: Pick<ServiceConfig, 'DEFAULT_UNDEFINED' | 'DEFAULT_LOCALE' | 'DEFAULT_TIMEZONE'>,
): RenderJobOptions {
  return {
    undefined: options.undefined ?? config.DEFAULT_UNDEFINED,
    output: options.output ?? 'pdf',
    locale: options.locale ?? config.DEFAULT_LOCALE,
    timezone: options.timezone ?? config.DEFAULT_TIMEZONE,
    ...(pdfShape ? { pdf: pdfShape } : {}),
  };
}
