/**
 * join-uncorrupt.ts against docxtemplater's own joinUncorrupt, which it replaces for speed: the
 * same output on what the corpus and corruption-prone templates render, and on random sequences.
 */
import { corpusRequest, corpusTemplate, CORPUS_NAMES } from '../../../../bench/corpus';
import { buildDocx, p, table } from '../../../../test/support/docx-builder';
import { renderDocx, type RenderRequest } from '../render';
import { JinjaModule } from './jinja-module';
import { joinUncorrupt, type JoinUncorruptOptions, type ShouldContainRule } from './join-uncorrupt';

type Part = string | Uint8Array;
type Join = (parts: Part[], options: JoinUncorruptOptions) => Part[];

// docxtemplater's own function and rules: the reference (test only; production uses ours).
const docxtemplaterJoin = require('docxtemplater/js/join-uncorrupt.js') as Join;
const fileTypeConfig = require('docxtemplater/js/file-type-config.js') as Record<
  'docx' | 'pptx',
  () => { tagShouldContain: ShouldContainRule[] }
>;

const MAIN = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml';
const FOOTER = 'application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml';
const docxRules = fileTypeConfig.docx().tagShouldContain;

function bothAgree(parts: Part[], options: JoinUncorruptOptions): void {
  const expected = docxtemplaterJoin(parts.slice(), options);
  const mine = parts.slice();
  const got = joinUncorrupt(mine, options, docxtemplaterJoin);
  expect(got).toBe(mine); // in place, as docxtemplater's
  expect(got).toEqual(expected);
}

/** The parts and options each postrender of these renders received, copied before it ran. */
function renderedParts(
  renders: Array<[Buffer, RenderRequest]>,
): Array<[Part[], JoinUncorruptOptions, string]> {
  const seen: Array<[Part[], JoinUncorruptOptions, string]> = [];
  const original = JinjaModule.prototype.postrender;
  const spy = jest.spyOn(JinjaModule.prototype, 'postrender').mockImplementation(function (
    this: JinjaModule,
    parts,
    options,
  ) {
    seen.push([parts.slice(), options, options.filePath]);
    return original.call(this, parts, options);
  });
  try {
    for (const [template, request] of renders) renderDocx(template, request);
  } finally {
    spy.mockRestore();
  }
  return seen;
}

describe("docxtemplater's corruption fixes, faster", () => {
  it('gives the corpus documents the same parts as docxtemplater', () => {
    const renders: Array<[Buffer, RenderRequest]> = CORPUS_NAMES.map((name) => [
      corpusTemplate(name),
      corpusRequest(name, name === 'gallery' ? { rows: 200 } : {}) as RenderRequest,
    ]);
    renders.push([corpusTemplate('invoice'), corpusRequest('invoice', { rows: 500 }) as RenderRequest]);
    const seen = renderedParts(renders);
    expect(seen.filter(([, , path]) => path === 'word/document.xml')).toHaveLength(renders.length);
    expect(Math.max(...seen.map(([parts]) => parts.length))).toBeGreaterThan(10_000); // 500 rows
    for (const [parts, options] of seen) bothAgree(parts, options);
  });

  it('fixes what emptied cells, rows and tables leave as docxtemplater does', () => {
    const templates = [
      // A cell whose only paragraph goes: it gets an empty one.
      table([
        ['{%p if show %}', 'b'],
        ['kept {{ x }}', 'c'],
        ['{%p endif %}', 'd'],
      ]),
      // Rows that all go: the table is left without rows.
      table([['{%tr for r in rows %}'], ['{{ r }}', 'x'], ['{%tr endfor %}']]),
      // A table directly followed by what a condition leaves.
      table([['a', '{{ x }}']]),
    ].map((t) => buildDocx({ body: [t, p('{%p if show %}'), p('after'), p('{%p endif %}')] }));
    const renders = templates.flatMap((template): Array<[Buffer, RenderRequest]> => [
      [template, { template_data: { show: false, rows: [], x: 1 } }],
      [template, { template_data: { show: true, rows: [1, 2], x: 2 } }],
    ]);
    const seen = renderedParts(renders);
    const changed = seen.filter(([parts, options]) => {
      const out = docxtemplaterJoin(parts.slice(), options);
      return out.join('') !== parts.join('');
    });
    expect(changed.length).toBeGreaterThan(0); // the fixes did something here
    for (const [parts, options] of seen) bothAgree(parts, options);
  });

  it('agrees with docxtemplater on random part sequences', () => {
    const vocabulary: Part[] = [
      '<w:tc>',
      '</w:tc>',
      '<w:tc/>',
      '<w:tc w:id="1">',
      '<w:tcPr>',
      '<w:tcPr><w:tcW w:w="1"/></w:tcPr>',
      '<w:tc><w:p>',
      '</w:p></w:tc>',
      '<w:tc',
      '<w:p>',
      '<w:p/>',
      '</w:p>',
      '<w:pPr>',
      '<w:r>',
      '</w:r>',
      '<w:t xml:space="preserve">',
      'text',
      ' ',
      '\n\t',
      '',
      '<',
      '<>',
      '</',
      '<w:tr>',
      '</w:tr>',
      '<w:tr w:rsidR="00A1">',
      '<w:tbl>',
      '</w:tbl>',
      'x</w:tbl>',
      '<w:tblPr/>',
      '<w:sdt>',
      '<w:sdtContent>',
      '</w:sdtContent>',
      '<w:commentRangeStart w:id="1"/>',
      '<w:bookmarkEnd w:id="0"/>',
      '<w:sectPr>',
      '</w:ftr>',
      '</w:hdr>',
      new Uint8Array([0x3c, 0x77]),
    ];
    // Rules as docxtemplater's, and ones with no value to insert (concatenated as it is).
    const ruleSets: ShouldContainRule[][] = [
      docxRules,
      docxRules.map((r) => ({ ...r, value: undefined })),
      [...docxRules].reverse(),
    ];
    let seed = 12345;
    const next = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    for (let round = 0; round < 4000; round++) {
      const parts = Array.from({ length: next(40) }, () => vocabulary[next(vocabulary.length)]);
      const rules = ruleSets[round % ruleSets.length];
      const contentType = [MAIN, FOOTER, 'application/xml', undefined][next(4)];
      bothAgree(parts, { fileTypeConfig: { tagShouldContain: rules }, contentType });
    }
  });

  it("hands PowerPoint's rules (dropParent) to docxtemplater's function", () => {
    const fallback = jest.fn((parts: Part[]) => parts);
    const options = { fileTypeConfig: fileTypeConfig.pptx() };
    const parts = ['<a:tbl>', '</a:tbl>'];
    expect(joinUncorrupt(parts, options, fallback)).toBe(parts);
    expect(fallback).toHaveBeenCalledWith(parts, options);
    expect(joinUncorrupt(['<w:tc>'], { fileTypeConfig: { tagShouldContain: docxRules } }, fallback)).toEqual([
      '<w:tc>',
    ]);
    expect(fallback).toHaveBeenCalledTimes(1);
  });
});
