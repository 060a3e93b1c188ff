/**
 * The corpus statement (bench/fixtures/statement.docx, on python-docx's default template) in the
 * shapes long business documents have beyond the corpus's one: for split conversion's page
 * comparison (test/split-conversion.e2e-spec.ts) and bench:bigdocs' `shapes` section. Each is the
 * template changed the way a user's Word would have saved it, with the corpus request's data.
 *
 *   corpus      the statement as it is: Word table style, repeated header row, one-line rows
 *   breaking    Word's `Light Grid Accent 1` table style, no repeated header row, descriptions of
 *               two lines, rows allowed to break across pages (Word's default)
 *   two-tables  the transactions in two long tables, text between and after them
 *   appendix    a landscape section after the table's (portrait) section
 *   footnotes   a footnote referenced from a cell every 25 rows
 */
import PizZip from 'pizzip';
import { libreOfficePasses } from '@app/converters';
import { renderDocx, type RenderOptions, type RenderRequest } from '@app/engine';
import { corpusRequest, corpusTemplate } from '../../bench/corpus';

export const STATEMENT_SHAPES = ['corpus', 'breaking', 'two-tables', 'appendix', 'footnotes'] as const;
export type StatementShape = (typeof STATEMENT_SHAPES)[number];

const DOCUMENT = 'word/document.xml';
/** Rows between two footnoted rows in the `footnotes` shape. */
const FOOTNOTE_EVERY = 25;

interface Transaction {
  date: string;
  description: string;
  amount: string;
  balance: string;
}

/** The template and request of the statement of `rows` transactions in `shape`. */
function statementShape(shape: StatementShape, rows: number): { template: Buffer; request: RenderRequest } {
  const request = corpusRequest('statement', { rows }) as RenderRequest;
  const data = request.template_data as Record<string, unknown>;
  const zip = new PizZip(corpusTemplate('statement'));
  let xml = zip.file(DOCUMENT)!.asText();
  const tableStart = xml.indexOf('<w:tbl>');
  const tableEnd = xml.indexOf('</w:tbl>') + '</w:tbl>'.length;
  const tableXml = xml.slice(tableStart, tableEnd);
  const sectStart = xml.lastIndexOf('<w:sectPr');
  const sectPr = xml.slice(sectStart, xml.indexOf('</w:sectPr>') + '</w:sectPr>'.length);
  switch (shape) {
    case 'corpus':
      break;
    case 'breaking': {
      const table = tableXml
        .replace(/<w:tblStyle w:val="[^"]*"\/>/, '<w:tblStyle w:val="LightGrid-Accent1"/>')
        .replace('<w:trPr><w:tblHeader/></w:trPr>', '');
      xml = xml.slice(0, tableStart) + table + xml.slice(tableEnd);
      // Two lines in the 83-mm column: the counterparty, then a booking note that wraps.
      data.transactions = (data.transactions as Transaction[]).map((t, i) => ({
        ...t,
        description: `${t.description} · booked ${t.date}, reference ${String(7_300_000 + i * 7)}`,
      }));
      break;
    }
    case 'two-tables': {
      // The first half of the year, text, then the second half.
      const all = data.transactions as Transaction[];
      const half = Math.ceil(all.length / 2);
      data.first_half = all.slice(0, half);
      data.second_half = all.slice(half);
      const first = tableXml.replace('{%tr for t in transactions %}', '{%tr for t in first_half %}');
      const second = tableXml.replace('{%tr for t in transactions %}', '{%tr for t in second_half %}');
      const between =
        '<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Second half of the year</w:t></w:r></w:p>' +
        '<w:p><w:r><w:t>Transactions from July on, {{ second_half|length }} of them.</w:t></w:r></w:p>';
      xml = xml.slice(0, tableStart) + first + between + second + xml.slice(tableEnd);
      break;
    }
    case 'appendix': {
      // The body's section ends after the closing text (its sectPr in the last paragraph, as
      // Word writes a section break); a landscape section follows with the appendix.
      const portraitBreak = `<w:p><w:pPr>${sectPr}</w:pPr></w:p>`;
      const landscape = sectPr
        .replace(
          '<w:pgSz w:w="11906" w:h="16838"/>',
          '<w:pgSz w:w="16838" w:h="11906" w:orient="landscape"/>',
        )
        .replace(/ w:rsid\w*="[^"]*"/g, '');
      const appendix =
        '<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Appendix: terms</w:t></w:r></w:p>' +
        '<w:p><w:r><w:t>{{ notes }}</w:t></w:r></w:p>' +
        '<w:p><w:r><w:t>Account {{ account.number }}, {{ transactions|length }} transactions.</w:t></w:r></w:p>';
      xml =
        xml.slice(0, sectStart) + portraitBreak + appendix + landscape + xml.slice(sectStart + sectPr.length);
      break;
    }
    case 'footnotes': {
      // A footnote on every FOOTNOTE_EVERY-th row's description, each a note of its own (ids 1…
      // in the order referenced, as Word numbers them: filledShape renumbers the filled
      // references, the engine leaves attributes alone); the footnotes part as Word writes it.
      const all = data.transactions as Transaction[];
      data.transactions = all.map((t, i) => ({
        ...t,
        note: i % FOOTNOTE_EVERY === FOOTNOTE_EVERY - 1 ? (i + 1) / FOOTNOTE_EVERY : 0,
      }));
      xml = xml.replace(
        '<w:t>{{ t.description }}</w:t></w:r>',
        '<w:t>{{ t.description }}</w:t></w:r>' +
          '<w:r><w:t>{% if t.note %}</w:t></w:r>' +
          '<w:r><w:rPr><w:vertAlign w:val="superscript"/></w:rPr>' +
          '<w:footnoteReference w:id="1"/></w:r>' +
          '<w:r><w:t>{% endif %}</w:t></w:r>',
      );
      addFootnotes(
        zip,
        Array.from(
          { length: Math.floor(all.length / FOOTNOTE_EVERY) },
          (_, i) =>
            `Booked after the cut-off (${all[(i + 1) * FOOTNOTE_EVERY - 1].date}): value date the next business day.`,
        ),
      );
      break;
    }
  }
  zip.file(DOCUMENT, xml);
  return { template: zip.generate({ type: 'nodebuffer' }), request };
}

/**
 * The statement of `rows` transactions in `shape`, filled as the worker fills it for a PDF (table
 * styles resolved), its footnote references numbered 1… in order (each row's note its own).
 */
export function filledShape(
  shape: StatementShape,
  rows: number,
  options: RenderOptions = { packagePasses: libreOfficePasses({ resolveTableStyles: true }) },
): Buffer {
  const { template, request } = statementShape(shape, rows);
  const docx = renderDocx(template, request, options);
  if (shape !== 'footnotes') return docx;
  const zip = new PizZip(docx);
  let id = 0;
  zip.file(
    DOCUMENT,
    zip
      .file(DOCUMENT)!
      .asText()
      .replace(/<w:footnoteReference w:id="1"\/>/g, () => `<w:footnoteReference w:id="${++id}"/>`),
  );
  return zip.generate({ type: 'nodebuffer', compression: 'STORE' });
}

/** A footnotes part with `notes` (ids 1…), related and typed as Word has it. */
function addFootnotes(zip: PizZip, notes: string[]): void {
  const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
  const separator = (id: number, type: string, mark: string) =>
    `<w:footnote w:type="${type}" w:id="${id}"><w:p><w:pPr><w:spacing w:after="0" w:line="240" w:lineRule="auto"/></w:pPr>` +
    `<w:r>${mark}</w:r></w:p></w:footnote>`;
  const note = (id: number, text: string) =>
    `<w:footnote w:id="${id}"><w:p><w:pPr><w:spacing w:after="0" w:line="240" w:lineRule="auto"/></w:pPr>` +
    '<w:r><w:rPr><w:vertAlign w:val="superscript"/></w:rPr><w:footnoteRef/></w:r>' +
    `<w:r><w:rPr><w:sz w:val="18"/></w:rPr><w:t xml:space="preserve"> ${text}</w:t></w:r></w:p></w:footnote>`;
  zip.file(
    'word/footnotes.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:footnotes xmlns:w="${W}">` +
      separator(-1, 'separator', '<w:separator/>') +
      separator(0, 'continuationSeparator', '<w:continuationSeparator/>') +
      notes.map((text, i) => note(i + 1, text)).join('') +
      '</w:footnotes>',
  );
  const rels = 'word/_rels/document.xml.rels';
  zip.file(
    rels,
    zip
      .file(rels)!
      .asText()
      .replace(
        '</Relationships>',
        '<Relationship Id="rIdFootnotes" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes" Target="footnotes.xml"/></Relationships>',
      ),
  );
  const types = '[Content_Types].xml';
  zip.file(
    types,
    zip
      .file(types)!
      .asText()
      .replace(
        '</Types>',
        '<Override PartName="/word/footnotes.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"/></Types>',
      ),
  );
}
