/**
 * The PDF form fields of Gotenberg 8's LibreOffice route as Gotenberg documents them, read back
 * into our PdfOptions for the Gotenberg doubles (they then convert with our LibreOffice pool, so
 * the fields have their real effect). Written from Gotenberg's documentation, not from
 * gotenbergFormFields(): the doubles check the client against Gotenberg, not against itself.
 * Anything Gotenberg 8 would refuse (unknown values, a field sent twice) is a problem (400).
 */
import type { PdfMetadata, PdfOptions } from '@app/contracts';

/** Gotenberg 8 form fields of /forms/libreoffice/convert that carry options.pdf. */
const GOTENBERG_PDF_FIELDS = [
  'pdfa',
  'pdfua',
  'losslessImageCompression',
  'quality',
  'reduceImageResolution',
  'maxImageResolution',
  'metadata',
  'nativePageRanges',
  'updateIndexes',
] as const;

const BOOL = new Set(['true', 'false']);
const METADATA_KEYS: Record<string, keyof PdfMetadata> = {
  Title: 'title',
  Author: 'author',
  Subject: 'subject',
  Keywords: 'keywords',
  Creator: 'creator',
};

export interface ReadFields {
  options: PdfOptions;
  /** Text fields as sent, in order (name, value), `files` left out. */
  sent: Array<[string, string]>;
  problems: string[];
}

export function readGotenbergPdfFields(form: FormData): ReadFields {
  const options: PdfOptions = {};
  const sent: Array<[string, string]> = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [name, value] of form.entries()) {
    if (typeof value !== 'string') continue;
    sent.push([name, value]);
    if (!(GOTENBERG_PDF_FIELDS as readonly string[]).includes(name)) {
      problems.push(`unexpected form field ${name}`);
      continue;
    }
    if (seen.has(name)) problems.push(`form field ${name} sent twice`);
    seen.add(name);
    const bool = () => {
      if (!BOOL.has(value)) problems.push(`${name}: '${value}' is not a boolean`);
      return value === 'true';
    };
    switch (name) {
      case 'pdfa':
        if (!['PDF/A-1b', 'PDF/A-2b', 'PDF/A-3b'].includes(value)) problems.push(`pdfa: '${value}'`);
        else options.pdfa = value as PdfOptions['pdfa'];
        break;
      case 'pdfua':
        options.pdfua = bool();
        break;
      case 'losslessImageCompression':
        options.lossless_images = bool();
        break;
      case 'reduceImageResolution':
        options.reduce_image_resolution = bool();
        break;
      case 'updateIndexes':
        options.update_indexes = bool();
        break;
      case 'quality': {
        const q = Number(value);
        if (!/^\d+$/.test(value) || q < 1 || q > 100) problems.push(`quality: '${value}'`);
        else options.quality = q;
        break;
      }
      case 'maxImageResolution':
        if (!['75', '150', '300', '600', '1200'].includes(value))
          problems.push(`maxImageResolution: '${value}'`);
        else options.max_image_resolution = Number(value) as PdfOptions['max_image_resolution'];
        break;
      case 'nativePageRanges':
        if (!/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(value)) problems.push(`nativePageRanges: '${value}'`);
        else options.page_ranges = value;
        break;
      case 'metadata': {
        let parsed: unknown;
        try {
          parsed = JSON.parse(value);
        } catch {
          problems.push('metadata: not JSON');
          break;
        }
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
          problems.push('metadata: not a JSON object');
          break;
        }
        const metadata: PdfMetadata = {};
        for (const [key, v] of Object.entries(parsed)) {
          const ours = METADATA_KEYS[key];
          if (!ours || typeof v !== 'string') problems.push(`metadata: ${key}`);
          else metadata[ours] = v;
        }
        options.metadata = metadata;
        break;
      }
    }
  }
  return { options, sent, problems };
}
