/**
 * The download name of a result: the uploaded file's name with the result's extension
 * (template.docx → template.pdf), cleaned of paths and characters that are unsafe in a header or
 * a file system, and sent both as a plain ASCII `filename` and as RFC 5987 `filename*` (UTF-8).
 */
const MAX_NAME_LENGTH = 150;

/**
 * Removed from the name: control characters (C0, C1), those Windows forbids in file names, line
 * and paragraph separators, and invisible formatting characters that change how the name displays:
 * bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069; with them
 * `invoice\u202Efdp.exe.docx` displays as `invoice…exe.pdf` reversed), deprecated format controls
 * (U+206A–U+206F), zero-width space and word joiners (U+200B, U+2060–U+2064), the BOM (U+FEFF) and
 * interlinear annotation marks (U+FFF9–U+FFFB). Zero-width (non-)joiners stay: emoji sequences and
 * several scripts need them.
 */
const UNSAFE_CHARACTERS =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f"*:<>?|\u061c\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g;

export function outputFilename(uploaded: string | undefined, extension: string): string {
  const base = (uploaded ?? '').replace(/\\/g, '/').split('/').pop() ?? '';
  let name = base
    .normalize('NFC')
    .replace(UNSAFE_CHARACTERS, '')
    .replace(/\.(docx|docm|dotx|dotm|doc|xlsx|xlsm|xltx|xltm|pptx|pptm|potx|potm|ppsx|ppsm)$/i, '')
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
