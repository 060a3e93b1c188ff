/**
 * Table styles written as direct formatting (libs/converters/src/prepare/table-styles.ts) draw the same
 * pages: each document converted by the real LibreOffice pool as filled and with its table
 * styles resolved, every page rasterised at 100 dpi and compared pixel by pixel
 * (test/support/page-compare.ts). The benchmark corpus (bench/fixtures) and tables built on
 * python-docx's default template (Word's built-in table styles) in several styles and tblLook
 * variants, with direct formatting that must win.
 */
import { readFileSync } from 'node:fs';
import PizZip from 'pizzip';
import { LibreOfficePool, resolveTableStyles } from '@app/converters';
import { renderDocx } from '@app/engine';
import { corpusFile, corpusRequest, type CorpusName } from '../bench/corpus';
import { comparePages } from './support/page-compare';
import {
  BASED_TABLE_STYLES,
  LOOK_ALL,
  LOOK_ATTRIBUTES_ONLY,
  LOOK_DEFAULT,
  LOOK_LEGACY_NO_HBAND,
  LOOK_NONE,
  mergedTable,
  MODERN_TABLE_STYLES,
  onBase,
  para,
  REPORT_TABLE_12PT,
  REPORT_TABLE_9PT,
  table,
  withTableStyles,
} from './support/styled-tables';

let pool: LibreOfficePool;

beforeAll(async () => {
  pool = new LibreOfficePool({ instances: 1 });
  await pool.start();
}, 120_000);

afterAll(async () => {
  await pool?.close();
});

function resolved(docx: Buffer): Buffer {
  const zip = new PizZip(docx);
  resolveTableStyles(zip);
  return zip.generate({ type: 'nodebuffer', compression: 'STORE' });
}

function styleCount(docx: Buffer): number {
  const zip = new PizZip(docx);
  return Object.keys(zip.files)
    .filter((n) => /^word\/(document|header\d*|footer\d*)\.xml$/.test(n))
    .reduce(
      (sum, n) =>
        sum +
        (
          zip
            .file(n)!
            .asText()
            .match(/<w:tblStyle /g) ?? []
        ).length,
      0,
    );
}

/**
 * `kept`: how many tables keep their style (those whose style shades every cell, left styled by
 * the resolution); every other one must have lost it.
 */
async function expectSamePages(docx: Buffer, label: string, kept = 0): Promise<void> {
  const after = resolved(docx);
  // The resolution did something: no table style is left for LibreOffice to apply but those kept.
  expect(styleCount(docx)).toBeGreaterThanOrEqual(Math.max(kept, 1));
  expect(styleCount(after)).toBe(kept);
  const [a, b] = [
    await pool.convert(docx, { jobId: `${label}-styled`, timeoutMs: 240_000 }),
    await pool.convert(after, { jobId: `${label}-resolved`, timeoutMs: 240_000 }),
  ];
  const cmp = comparePages(a, b);
  expect({ label, pages: cmp.pagesA, differing: cmp.differing }).toEqual({
    label,
    pages: cmp.pagesB,
    differing: [],
  });
  expect(cmp.pagesA).toBeGreaterThan(0);
}

describe('the benchmark corpus looks the same with its table styles resolved', () => {
  const cases: [CorpusName, number][] = [
    ['invoice', 20],
    ['invoice', 120],
    ['contract', 15],
    ['writer', 5],
    ['gallery', 150],
    ['statement', 150],
  ];
  it.each(cases)(
    '%s, %i rows',
    async (name, rows) => {
      const filled = renderDocx(readFileSync(corpusFile(name)), corpusRequest(name, { rows }) as never);
      await expectSamePages(filled, `${name}-${rows}`);
    },
    300_000,
  );
});

describe("Word's built-in table styles on python-docx's default template look the same resolved", () => {
  const styles = [
    'LightList-Accent1',
    'TableGrid',
    'LightGrid-Accent1',
    'MediumShading1-Accent1',
    'LightShading',
  ];
  it.each(styles)(
    '%s with five tblLook variants (Word default, all on, legacy hex, none, attributes only)',
    async (style) => {
      const blocks: string[] = [para(`${style}`, 'Heading1')];
      for (const [name, look] of [
        ['default', LOOK_DEFAULT],
        ['all', LOOK_ALL],
        ['legacy', LOOK_LEGACY_NO_HBAND],
        ['none', LOOK_NONE],
        ['attributes only', LOOK_ATTRIBUTES_ONLY],
      ]) {
        blocks.push(para(`tblLook ${name}`), table({ style, look, rows: 6, cols: 4 }));
      }
      blocks.push(para('No tblLook at all'), table({ style, look: '', rows: 4, cols: 3 }));
      await expectSamePages(onBase(blocks), style);
    },
    300_000,
  );

  it('band sizes of 2: LibreOffice bands one row and column each, and so does the resolution', async () => {
    const styles = ['LightShading', 'MediumShading1-Accent1'];
    const docx = withBandSize(
      onBase(
        styles.flatMap((style) => [
          para(`${style}, bands of 2`, 'Heading1'),
          table({ style, look: LOOK_ALL, rows: 12, cols: 6 }),
        ]),
      ),
      styles,
      2,
    );
    await expectSamePages(docx, 'band-size-2');
  }, 300_000);

  it('direct formatting wins over every style, in banded tables across pages with a repeated header', async () => {
    const direct = {
      '0,1': {
        tcPr: '<w:shd w:val="clear" w:color="auto" w:fill="FFC000"/>',
        rPr: '<w:color w:val="C00000"/>',
      },
      '1,0': { rPr: '<w:b w:val="0"/><w:i/>' },
      '2,2': {
        tcPr: '<w:tcBorders><w:top w:val="nil"/><w:bottom w:val="single" w:sz="24" w:space="0" w:color="00B050"/></w:tcBorders>',
      },
      '3,3': { pPr: '<w:jc w:val="right"/><w:spacing w:after="240"/>', rPr: '<w:sz w:val="28"/>' },
      '4,1': { pPr: '<w:pStyle w:val="Heading2"/>' },
      '5,2': { rPr: '<w:rStyle w:val="Strong"/>' },
    };
    const blocks: string[] = [];
    for (const style of [
      'MediumShading1-Accent1',
      'LightGrid-Accent1',
      'LightShading',
      'LightList-Accent1',
    ]) {
      blocks.push(para(style, 'Heading1'));
      blocks.push(table({ style, look: LOOK_ALL, rows: 40, cols: 5, direct, header: true }));
    }
    await expectSamePages(onBase(blocks), 'direct');
  }, 300_000);
});

/** The same package with `w:tblStyleRowBandSize` / `ColBandSize` of these styles set to `size`. */
function withBandSize(docx: Buffer, styleIds: string[], size: number): Buffer {
  const zip = new PizZip(docx);
  let styles = zip.file('word/styles.xml')!.asText();
  for (const id of styleIds) {
    const at = styles.indexOf(`w:styleId="${id}"`);
    const end = styles.indexOf('</w:style>', at);
    const style = styles
      .slice(at, end)
      .replace(/<w:tblStyle(Row|Col)BandSize w:val="\d+"\/>/g, `<w:tblStyle$1BandSize w:val="${size}"/>`);
    expect(style).toContain(`<w:tblStyleRowBandSize w:val="${size}"/>`);
    styles = styles.slice(0, at) + style + styles.slice(end);
  }
  zip.file('word/styles.xml', styles);
  return zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
}

describe("every table style of Word's default template looks the same resolved", () => {
  // Read here by pattern, apart from the resolver's parser: the styles whose own w:tcPr (outside
  // the conditional formats) shades every cell, which the resolution leaves styled.
  const sheet = new PizZip(readFileSync(corpusFile('invoice'))).file('word/styles.xml')!.asText();
  const styles = [
    ...sheet.matchAll(/<w:style w:type="table"[^>]*w:styleId="([^"]+)"[^>]*>([\s\S]*?)<\/w:style>/g),
  ];
  const shading = new Set(
    styles
      .filter(([, , body]) =>
        /<w:tcPr>[\s\S]*?<w:shd /.test(body.replace(/<w:tblStylePr[\s\S]*?<\/w:tblStylePr>/g, '')),
      )
      .map(([, id]) => id),
  );
  // And those that set a font size (Medium List 2's 12 pt header), also left styled.
  const sized = new Set(styles.filter(([, , body]) => /<w:sz /.test(body)).map(([, id]) => id));
  // Five styles a document, two tables each, so that tables fall at many places on the page and
  // across page breaks: the seams between cells shaded one by one showed only at some of them.
  const groups: string[][] = [];
  for (let i = 0; i < styles.length; i += 5) groups.push(styles.slice(i, i + 5).map(([, id]) => id));

  it('reads the 100 built-in styles, 49 of them shading every cell, 7 setting a font size', () => {
    expect(styles).toHaveLength(100);
    expect(shading.size).toBe(49);
    expect([...sized].sort()).toEqual(
      ['', '-Accent1', '-Accent2', '-Accent3', '-Accent4', '-Accent5', '-Accent6'].map(
        (a) => `MediumList2${a}`,
      ),
    );
  });

  it.each(groups.map((g) => [g.join(', '), g] as const))(
    '%s',
    async (_, group) => {
      const blocks = group.flatMap((style) => [
        para(style, 'Heading1'),
        table({ style, look: LOOK_ALL, rows: 6, cols: 5 }),
        para('tblLook as Word writes it, a repeated header row'),
        table({ style, look: LOOK_DEFAULT, rows: 5, cols: 4, header: true }),
        para('Cells merged across columns'),
        mergedTable(style, LOOK_ALL),
        para('Cells merged down rows too (the table keeps its style)'),
        mergedTable(style, LOOK_ALL, true),
      ]);
      const kept = 3 * group.filter((s) => shading.has(s) || sized.has(s)).length + group.length;
      await expectSamePages(onBase(blocks), group[0], kept);
    },
    300_000,
  );
});

describe('table styles as Word 2013+ and company templates write them look the same resolved', () => {
  const blocks = (style: string) => [
    para(style, 'Heading1'),
    table({ style, look: LOOK_ALL, rows: 7, cols: 5 }),
    para('tblLook as Word writes it, a repeated header row, across the page break'),
    table({ style, look: LOOK_DEFAULT, rows: 30, cols: 4, header: true }),
    para('no conditional formats'),
    table({ style, look: LOOK_NONE, rows: 4, cols: 3 }),
  ];

  it.each(Object.keys(MODERN_TABLE_STYLES))(
    '%s',
    async (style) => {
      await expectSamePages(withTableStyles(onBase(blocks(style)), MODERN_TABLE_STYLES), style);
    },
    300_000,
  );

  it.each(Object.keys(BASED_TABLE_STYLES))(
    'company style %s, based on a built-in: what LibreOffice takes from the base, and no table alignment',
    async (style) => {
      // Resolved with everything of the base, rows lost Light List's paragraph spacing the styled
      // table keeps, and the centred style's table moved to the centre LibreOffice ignores.
      await expectSamePages(withTableStyles(onBase(blocks(style)), BASED_TABLE_STYLES), style);
    },
    300_000,
  );

  it.each([
    ['9 pt', REPORT_TABLE_9PT],
    ['12 pt, its header at 14', REPORT_TABLE_12PT],
  ])(
    'the report style at %s keeps its style: LibreOffice sizes the whole paragraph by it',
    async (_, style) => {
      // Resolved, each 9 pt row was 0.3 pt taller (the paragraph kept the default 11 pt), and 12, 14
      // and 16 pt moved rows too.
      const docx = withTableStyles(onBase(blocks('ReportSized')), { ReportSized: style });
      await expectSamePages(docx, 'ReportSized', 3);
    },
    300_000,
  );
});
