import { MODULE, type Part } from '../parts';
import { mergeStaticParts } from './merge-static';

// docxtemplater's own steps after the compile, run on both part streams.
const joinUncorrupt = require('docxtemplater/js/join-uncorrupt.js') as (
  parts: string[],
  options: unknown,
) => string[];
const spacePreserve = (
  require('docxtemplater/js/modules/space-preserve.js') as () => {
    postrender(parts: string[]): string[];
  }
)();
const fileTypes = require('docxtemplater/js/file-type-config.js') as { docx(): unknown };
const DOCX_OPTIONS = {
  fileTypeConfig: fileTypes.docx(),
  contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
};

/** Every token joinUncorrupt or space-preserve reacts to, and some it ignores. */
const TOKENS = [
  '<w:tbl>',
  '</w:tbl>',
  '<w:tblPr>',
  '</w:tblPr>',
  '<w:tblGrid/>',
  '<w:tr>',
  '<w:tr w:rsidR="1">',
  '</w:tr>',
  '<w:trPr/>',
  '<w:tc>',
  '</w:tc>',
  '<w:tc/>',
  '<w:tcPr>',
  '</w:tcPr>',
  '<w:p>',
  '<w:p w:rsidR="2">',
  '</w:p>',
  '<w:p/>',
  '<w:pPr>',
  '</w:pPr>',
  '<w:proofErr w:type="spellStart"/>',
  '<w:r>',
  '</w:r>',
  '<w:rPr>',
  '</w:rPr>',
  '<w:t>',
  '<w:t xml:space="preserve">',
  '</w:t>',
  '<w:t/>',
  '<w:sdt>',
  '</w:sdt>',
  '<w:sdtContent>',
  '</w:sdtContent>',
  '<w:sdtPr/>',
  '<w:commentRangeStart w:id="1"/>',
  '<w:bookmarkStart w:id="0" w:name="a"/>',
  '<w:bookmarkEnd w:id="0"/>',
  '<w:sectPr>',
  '</w:sectPr>',
  '</w:hdr>',
  '</w:ftr>',
  'text',
  ' ',
  '\n',
  '',
];

/** A seeded generator: the same streams every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** What docxtemplater does with a rendered stream: space-preserve's postrender, then joinUncorrupt. */
function finish(rendered: string[]): string {
  return joinUncorrupt(spacePreserve.postrender([...rendered]), DOCX_OPTIONS).join('');
}

/** A stream as rendered: static parts give their value, a tag gives its output. */
function render(parts: Part[], outputs: Map<Part, string[]>): string[] {
  return parts.flatMap((p) => (p.module === MODULE ? outputs.get(p)! : [p.value]));
}

describe('mergeStaticParts', () => {
  it('changes nothing docxtemplater makes of the parts, on 3,000 generated streams', () => {
    const next = random(9);
    const pick = () => TOKENS[Math.floor(next() * TOKENS.length)];
    let merges = 0;
    for (let n = 0; n < 3000; n++) {
      const parts: Part[] = [];
      const outputs = new Map<Part, string[]>();
      const length = 1 + Math.floor(next() * 40);
      for (let i = 0; i < length; i++) {
        if (next() < 0.15) {
          // One of our tags: its output is any tokens, as a loop's or a rich value's may be.
          const tag = { type: 'placeholder', module: MODULE, value: 'x' } as Part;
          outputs.set(
            tag,
            Array.from({ length: Math.floor(next() * 4) }, () => pick()),
          );
          parts.push(tag);
        } else parts.push({ type: next() < 0.5 ? 'tag' : 'content', value: pick() });
      }
      const merged = mergeStaticParts(parts);
      merges += parts.length - merged.length;
      expect(finish(render(merged, outputs))).toBe(finish(render(parts, outputs)));
    }
    // The streams did merge (a pass that merged nothing would pass vacuously).
    expect(merges).toBeGreaterThan(10_000);
  });

  it('merges inside block bodies and leaves tags and the parts around containers apart', () => {
    const tag = (value: string): Part => ({ type: 'tag', value });
    const loop = {
      type: 'placeholder',
      module: MODULE,
      value: 'for',
      loopBody: [
        tag('<w:tr>'),
        tag('<w:trPr/>'),
        tag('<w:tc>'),
        tag('<w:tcPr>'),
        tag('</w:tcPr>'),
        tag('</w:tc>'),
      ],
    } as unknown as Part;
    const out = mergeStaticParts([tag('<w:p>'), tag('<w:pPr>'), tag('</w:pPr>'), loop, tag('<w:r>')]);
    expect(out.map((p) => p.value)).toEqual(['<w:p><w:pPr></w:pPr>', 'for', '<w:r>']);
    expect((out[1] as unknown as { loopBody: Part[] }).loopBody.map((p) => p.value)).toEqual([
      '<w:tr>',
      '<w:trPr/>',
      '<w:tc>',
      '<w:tcPr></w:tcPr>',
      '</w:tc>',
    ]);
  });
});
