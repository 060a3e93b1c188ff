/**
 * The lint report as a Word template in our own dialect plus the data to fill it, so the PDF
 * report goes through the same pipeline as any document (the queue, a worker, the converter)
 * instead of a second PDF generator.
 */
import { escapeText } from '../docx/run-text';
import PizZip from 'pizzip';
import type { LintFinding, LintReport } from './lint-template';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

/** One paragraph; `style` sets size (half-points), bold and colour. */
function para(
  text: string,
  style: { size?: number; bold?: boolean; color?: string; mono?: boolean } = {},
): string {
  const rPr = [
    style.bold ? '<w:b/>' : '',
    style.color ? `<w:color w:val="${style.color}"/>` : '',
    style.size ? `<w:sz w:val="${style.size}"/>` : '',
    style.mono ? '<w:rFonts w:ascii="DejaVu Sans Mono" w:hAnsi="DejaVu Sans Mono"/>' : '',
  ].join('');
  return `<w:p><w:pPr><w:spacing w:after="80"/></w:pPr><w:r>${rPr ? `<w:rPr>${rPr}</w:rPr>` : ''}<w:t xml:space="preserve">${escapeText(text)}</w:t></w:r></w:p>`;
}

function findingBlock(list: string, kind: string): string[] {
  return [
    para(`{%p for f in ${list} %}`),
    para(`{{ loop.index }}. [{{ f.${kind} }}] {{ f.where }}`, { bold: true }),
    para('{{ f.message }}'),
    para('{%p if f.tag %}'),
    para('Tag: {{ f.tag }}', { mono: true, size: 18 }),
    para('{%p endif %}'),
    para('{%p if f.context %}'),
    para('Context: {{ f.context }}', { size: 18, color: '555555' }),
    para('{%p endif %}'),
    para('{%p if f.suggestion %}'),
    para('Suggestion: {{ f.suggestion }}', { color: '1F5F99' }),
    para('{%p endif %}'),
    para('{%p else %}'),
    para(`No ${list}.`),
    para('{%p endfor %}'),
  ];
}

const DOCUMENT = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="${W}"><w:body>${[
  para('Template lint report', { size: 36, bold: true }),
  para('{{ file }}', { size: 24 }),
  para('{{ verdict }}', { bold: true, size: 26 }),
  para('{{ counts }}'),
  para('Errors', { size: 28, bold: true }),
  ...findingBlock('errors', 'error_type'),
  para('Warnings', { size: 28, bold: true }),
  ...findingBlock('warnings', 'warning_type'),
  para('Template text (first 500 characters)', { size: 28, bold: true }),
  para('{{ preview }}', { mono: true, size: 18 }),
].join(
  '',
)}<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1134" w:right="1134" w:bottom="1134" w:left="1134" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr></w:body></w:document>`;

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;

const RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;

/** The report template (.docx); the same bytes every time. */
export function lintReportTemplate(): Buffer {
  const zip = new PizZip();
  zip.file('[Content_Types].xml', CONTENT_TYPES);
  zip.file('_rels/.rels', RELS);
  zip.file('word/document.xml', DOCUMENT);
  return zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
}

function where(f: LintFinding): string {
  const l = f.location;
  if (!l) return 'the whole document';
  if (l.sheet !== undefined)
    return `sheet ${l.sheet}, cell ${l.cell} (line ${f.line_number ?? '?'}, column ${f.column ?? '?'})`;
  if (l.slide !== undefined)
    return `slide ${l.slide}${l.shape ? `, shape ${l.shape}${l.shape_name ? ` (${l.shape_name})` : ''}` : ''} (${l.part}, paragraph ${l.paragraph}, line ${f.line_number ?? '?'}, column ${f.column ?? '?'})`;
  const cell = l.table ? `, table ${l.table.table} row ${l.table.row} cell ${l.table.cell}` : '';
  return `${l.part}, paragraph ${l.paragraph}${cell} (line ${f.line_number ?? '?'}, column ${f.column ?? '?'})`;
}

/** The data that fills lintReportTemplate() for one report. */
export function lintReportData(report: LintReport, filename: string): Record<string, unknown> {
  const s = report.summary;
  const findings = (list: (LintFinding & { error_type?: string; warning_type?: string })[]) =>
    list.map((f) => ({
      error_type: f.error_type ?? '',
      warning_type: f.warning_type ?? '',
      where: where(f),
      message: f.message,
      tag: f.tag ?? '',
      context: f.context ?? '',
      suggestion: f.suggestion ?? '',
    }));
  return {
    file: filename,
    verdict: report.success
      ? 'PASSED: no errors'
      : `FAILED: ${s.total_errors} error${s.total_errors === 1 ? '' : 's'}`,
    counts: `${s.total_errors} errors, ${s.total_warnings} warnings, ${s.jinja_tags_count} tags, ${s.lines_count} paragraphs; completeness ${s.completeness_score}/100`,
    errors: findings(report.errors),
    warnings: findings(report.warnings),
    preview: report.template_preview,
  };
}
