/**
 * Rich content through the real LibreOffice pool: the Word XML we write is what a converter
 * reads (paragraphs, lists, tables, links, sub-documents), judged by the PDF's text.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LibreOfficePool } from '@app/converters';
import { buildDocx, p, table } from './support/docx-builder';
import { pdfPageCount, pdfToText } from './support/converter-fixtures';
import { richTemplate } from './support/rich-docx';
import { renderDocx } from '@app/engine';

jest.setTimeout(120_000);

let pool: LibreOfficePool;
let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'rich-pdf-'));
  pool = new LibreOfficePool({ instances: 1, tmpDir: workDir });
  await pool.start();
});
afterAll(async () => {
  await pool?.close();
  await rm(workDir, { recursive: true, force: true });
});

it('every form reaches the PDF as text, lists numbered, tables laid out, \\f a new page', async () => {
  const annex = buildDocx([
    p('Annex heading', { style: 'Heading1' }),
    table([['annex cell A', 'annex cell B']]),
  ]);
  const docx = renderDocx(
    richTemplate({
      body: [
        p('Runs: {{r runs }}.'),
        p('{{p paras }}'),
        p('{{p body | html }}'),
        p('{{p notes | markdown }}'),
        p('{{p annex }}'),
      ],
      header: [p('Header {{ runs }}')],
    }),
    {
      template_data: {
        runs: {
          $rich: [{ text: 'bold part', bold: true }, ' and ', { text: 'a link', url: 'https://example.com' }],
        },
        paras: {
          $paragraphs: [{ style: 'Heading 2', runs: ['Paragraph heading'] }, { runs: ['first page ends\f'] }],
        },
        body: '<h1>HTML title</h1><ol><li>first item</li><li>second item</li></ol><table><tr><td colspan="2">spanning cell</td></tr><tr><td>left</td><td>right</td></tr></table>',
        notes: '**Markdown** with ~~strike~~\n\n- bullet one\n- bullet two',
      },
      documents: { annex: { data: annex.toString('base64') } },
    },
  );
  const pdf = await pool.convert(docx);
  const text = pdfToText(pdf);
  for (const s of [
    'Runs: bold part and a link.',
    'Header bold part and a link',
    'Paragraph heading',
    'HTML title',
    'spanning cell',
    'Markdown with strike',
    'bullet one',
    'Annex heading',
    'annex cell A',
  ])
    expect(text).toContain(s);
  expect(text).toMatch(/1\.\s*first item[\s\S]*2\.\s*second item/);
  expect(text).toMatch(/•\s*bullet one/);
  expect(pdfPageCount(pdf)).toBe(2);
  expect(text.indexOf('first page ends')).toBeLessThan(text.indexOf('\f'));
  expect(text.indexOf('HTML title')).toBeGreaterThan(text.indexOf('\f'));
});
