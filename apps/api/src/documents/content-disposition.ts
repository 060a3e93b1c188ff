/**
 * The download name of a result: the uploaded file's name with the result's extension
 * (template.docx → template.pdf), cleaned of paths and characters that are unsafe in a header or
 * a file system, and sent both as a plain ASCII `filename` and as RFC 5987 `filename*` (UTF-8).
 */
const MAX_NAME_LENGTH = 150;

export function outputFilename(uploaded: string | undefined, extension: string): string {
  const base = (uploaded ?? '').replace(/\\/g, '/').split('/').pop() ?? '';
  let name = base
    .normalize('NFC')
    // control characters and those Windows forbids in file names
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f"*:<>?|]/g, '')
    .replace(/\.(docx|docm|dotx|dotm|doc)$/i, '')
    .replace(/^[.\s]+|[.\s]+$/g, '');
  const chars = Array.from(name);
  if (chars.length > MAX_NAME_LENGTH) name = chars.slice(0, MAX_NAME_LENGTH).join('');
  return `${name || 'document'}.${extension}`;
}

/** `attachment; filename="…"; filename*=UTF-8''…` for a name made by outputFilename(). */
export function contentDisposition(filename: string): string {
  const ascii = filename
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '_')
    .replace(/["\\%]/g, '_');
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
