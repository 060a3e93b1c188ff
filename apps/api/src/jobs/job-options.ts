/**
 * The options a render job carries, from a checked form: one place for the synchronous endpoint,
 * its batches and /api/v1/jobs, so every path gets the same defaults (undefined mode, locale,
 * time zone). `pdf` is options.pdf less the finishing options, which ride in the payload.
 */
import type { ApiSettings } from '../config/settings';
import type { PdfOptions, RenderJobOptions } from '@app/contracts';
import type { RequestOptions } from '@app/contracts';

export function renderJobOptions(
  options: RequestOptions,
  pdfShape: PdfOptions | undefined,
  defaults: ApiSettings['defaults'],
): RenderJobOptions {
  return {
    undefined: options.undefined ?? defaults.undefined,
    output: options.output ?? 'pdf',
    locale: options.locale ?? defaults.locale,
    timezone: options.timezone ?? defaults.timezone,
    ...(pdfShape ? { pdf: pdfShape } : {}),
    ...(options.image ? { image: options.image } : {}),
    ...(options.locale ? { documentLocale: options.locale } : {}),
  };
}
