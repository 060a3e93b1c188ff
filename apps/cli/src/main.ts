/**
 * Command line for template authors: try a template without a server.
 *
 *   npm run render -- TEMPLATE.docx REQUEST.json OUT.docx|OUT.pdf
 *
 * REQUEST.json is the interface's enhanced request: {"template_data": {…}, "images": {…}},
 * optionally with "options": {"undefined": "strict"}. Writes the document and exits 0, or prints
 * the typed error body as JSON on stderr and exits 1 (2 for wrong usage).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { extname } from 'node:path';
import { isTypedError } from '@app/contracts';
import { converterConfigFromEnv, createConverter } from '@app/converters';
import {
  InvalidRequestError,
  MissingTemplateDataError,
  renderDocx,
  type RenderOptions,
  type RenderRequest,
} from '@app/engine';

function parseRequest(text: string): { request: RenderRequest; options: RenderOptions } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new InvalidRequestError(`REQUEST.json is not valid JSON: ${(e as Error).message}`);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new InvalidRequestError('REQUEST.json must hold a JSON object');
  const { template_data, images, options } = json as Record<string, unknown>;
  if (
    template_data === undefined ||
    template_data === null ||
    typeof template_data !== 'object' ||
    Array.isArray(template_data)
  )
    throw new MissingTemplateDataError('REQUEST.json must contain a template_data object');
  if (images !== undefined && (images === null || typeof images !== 'object' || Array.isArray(images)))
    throw new InvalidRequestError('images must be an object of name → ImageData', { field: 'images' });
  const undefinedMode = (options as { undefined?: unknown } | undefined)?.undefined;
  if (undefinedMode !== undefined && undefinedMode !== 'empty' && undefinedMode !== 'strict')
    throw new InvalidRequestError('options.undefined must be "empty" or "strict"', {
      field: 'options.undefined',
    });
  return {
    request: {
      template_data: template_data as Record<string, unknown>,
      images: images as RenderRequest['images'],
    },
    options: { undefined: undefinedMode as RenderOptions['undefined'] },
  };
}

export async function main(argv: string[]): Promise<number> {
  const [templatePath, requestPath, outPath] = argv;
  if (!templatePath || !requestPath || !outPath || argv.length > 3) {
    process.stderr.write('usage: npm run render -- TEMPLATE.docx REQUEST.json OUT.docx|OUT.pdf\n');
    return 2;
  }
  const format = extname(outPath).toLowerCase();
  if (format !== '.docx' && format !== '.pdf') {
    process.stderr.write('OUT must end in .docx or .pdf\n');
    return 2;
  }
  try {
    const { request, options } = parseRequest(readFileSync(requestPath, 'utf8'));
    // The .docx the user keeps is deflated; one only handed to the converter need not be.
    const docx = renderDocx(readFileSync(templatePath), request, {
      ...options,
      compression: format === '.docx' ? 'DEFLATE' : 'STORE',
    });
    if (format === '.docx') {
      writeFileSync(outPath, docx);
      return 0;
    }
    const converter = createConverter(converterConfigFromEnv());
    try {
      writeFileSync(outPath, await converter.convert(docx));
    } finally {
      await converter.close();
    }
    return 0;
  } catch (e) {
    if (isTypedError(e)) {
      process.stderr.write(JSON.stringify(e.toBody(), null, 2) + '\n');
      return 1;
    }
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT' || err.code === 'EACCES' || err.code === 'EISDIR') {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    throw e;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`internal error: ${(e as Error).stack ?? e}\n`);
      process.exit(3);
    },
  );
}
