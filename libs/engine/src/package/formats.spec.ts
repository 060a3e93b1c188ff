import PizZip from 'pizzip';
import { buildDocx, p } from '../../../../test/support/docx-builder';
import { inspectTemplate } from '../inspect/inspect-template';
import { renderDocx } from '../render';
import { WORD, WORD_PARTS } from './formats';

/** A template whose default header says `{{ who }}`, its header part moved to `path`. */
function headerAt(path: string): Buffer {
  const zip = new PizZip(buildDocx({ body: [p('Body {{ who }}')], header: [p('Header {{ who }}')] }));
  const xml = zip.file('word/header1.xml')!.asText();
  zip.remove('word/header1.xml');
  zip.file(path, xml);
  const rename = (name: string) =>
    zip.file(name, zip.file(name)!.asText().replaceAll('header1.xml', path.slice('word/'.length)));
  rename('[Content_Types].xml');
  rename('word/_rels/document.xml.rels');
  return zip.generate({ type: 'nodebuffer' });
}

describe('the Word package description', () => {
  it('fills a header found by its content type, whatever its part name', () => {
    const out = new PizZip(renderDocx(headerAt('word/top.xml'), { template_data: { who: 'Ada' } }));
    expect(out.file('word/top.xml')!.asText()).toContain('Header Ada');
    expect(out.file('word/document.xml')!.asText()).toContain('Body Ada');
  });

  it('lists the tags of that header in inspect, after the body', () => {
    const inspection = inspectTemplate(headerAt('word/top.xml'));
    expect(inspection.summary.parts).toEqual(['word/document.xml', 'word/top.xml']);
    expect(inspection.variables.find((v) => v.path === 'who')?.locations.map((l) => l.part)).toEqual([
      'word/document.xml',
      'word/top.xml',
    ]);
  });

  it('leaves alone a part named like a header that the content types do not call one', () => {
    const zip = new PizZip(buildDocx({ body: [p('Body {{ who }}')] }));
    zip.file('word/header7.xml', '<w:hdr xmlns:w="urn:w"><w:p><w:r><w:t>{{ who }}</w:t></w:r></w:p></w:hdr>');
    const out = new PizZip(
      renderDocx(zip.generate({ type: 'nodebuffer' }), { template_data: { who: 'Ada' } }),
    );
    expect(out.file('word/header7.xml')!.asText()).toContain('{{ who }}');
  });

  it('knows every main variant as the main part, and the macro ones as refused', () => {
    for (const type of Object.keys(WORD.mainTypes)) expect(WORD_PARTS.isMain(type)).toBe(true);
    expect(WORD.macroVariants).toEqual(['docm', 'dotm']);
    expect(WORD_PARTS.isTemplated('application/xml')).toBe(false);
    expect(WORD_PARTS.isMain(undefined)).toBe(false);
  });
});
