import { p, table } from '../../../../test/support/docx-builder';
import { caught, part, richTemplate } from '../../../../test/support/rich-docx';
import { renderDocx } from '../render';

const body = (docx: Buffer) => part(docx, 'word/document.xml')!;

describe('{"$paragraphs": [...]} placed with {{p x }}', () => {
  it('replaces the whole paragraph holding the tag with styled, aligned paragraphs', () => {
    const xml = body(
      renderDocx(richTemplate([p('before'), p('ignored text {{p x }} also gone'), p('after')]), {
        template_data: {
          x: {
            $paragraphs: [
              { style: 'Heading 2', align: 'center', runs: [{ text: 'Title', color: '00AA00' }] },
              { runs: ['plain ', { text: 'bold', bold: true }] },
              'just text',
            ],
          },
        },
      }),
    );
    expect(xml).toContain('<w:p><w:pPr><w:pStyle w:val="Heading2"/><w:jc w:val="center"/></w:pPr>');
    expect(xml).toContain('<w:color w:val="00AA00"/>');
    expect(xml).not.toContain('ignored text');
    expect(xml).not.toContain('also gone');
    expect(xml.indexOf('before')).toBeLessThan(xml.indexOf('Title'));
    expect(xml.indexOf('just text')).toBeLessThan(xml.indexOf('after'));
    // No paragraph nested in a paragraph.
    expect(xml).not.toMatch(/<w:p>(?:(?!<\/w:p>)[\s\S])*<w:p>/);
  });

  it('resolves styles by display name and by id; an unknown one is reported in strict mode', () => {
    const tpl = richTemplate([p('{{p x }}')]);
    const byId = body(
      renderDocx(tpl, { template_data: { x: { $paragraphs: [{ style: 'Heading2', runs: ['a'] }] } } }),
    );
    expect(byId).toContain('<w:pStyle w:val="Heading2"/>');
    const byName = body(
      renderDocx(tpl, { template_data: { x: { $paragraphs: [{ style: 'heading 1', runs: ['a'] }] } } }),
    );
    expect(byName).toContain('<w:pStyle w:val="Heading1"/>');
    const unknown = { x: { $paragraphs: [{ style: 'Fancy', runs: ['a'] }] } };
    expect(body(renderDocx(tpl, { template_data: unknown }))).not.toContain('w:pStyle');
    const e = caught(() => renderDocx(tpl, { template_data: unknown }, { undefined: 'strict' }));
    expect(e.errorType).toBe('template_runtime_error');
    expect(e.message).toContain("no paragraph style 'Fancy'");
  });

  it('splits a paragraph at \\a and puts a page break paragraph at \\f', () => {
    const xml = body(
      renderDocx(richTemplate([p('{{p x }}')]), {
        template_data: { x: { $paragraphs: [{ style: 'Heading 2', runs: ['one\u0007two\fthree'] }] } },
      }),
    );
    expect(xml.match(/<w:pStyle w:val="Heading2"\/>/g)).toHaveLength(3);
    expect(xml).toMatch(
      /<w:p><w:r><w:br w:type="page"\/><\/w:r><\/w:p><w:p><w:pPr><w:pStyle w:val="Heading2"\/><\/w:pPr><w:r><w:t xml:space="preserve">three/,
    );
  });

  it('works in a table cell and in loops, one set of paragraphs per item', () => {
    const xml = body(
      renderDocx(richTemplate([table([['{%p for s in sections %}'], ['{{p s }}'], ['{%p endfor %}']])]), {
        template_data: {
          sections: [
            { $paragraphs: [{ runs: ['A1'] }, { runs: ['A2'] }] },
            { $paragraphs: [{ runs: ['B1'] }] },
          ],
        },
      }),
    );
    expect(xml).toMatch(/<w:tc>[\s\S]*A1[\s\S]*A2[\s\S]*B1[\s\S]*<\/w:tc>/);
  });

  it('a plain value placed with {{p x }} becomes one paragraph', () => {
    const xml = body(renderDocx(richTemplate([p('x {{p v }} y')]), { template_data: { v: 'hello <b>' } }));
    expect(xml).toContain('<w:p><w:r><w:t xml:space="preserve">hello &lt;b&gt;</w:t></w:r></w:p>');
  });

  it('refuses unknown paragraph properties and bad alignments', () => {
    for (const para of [{ runs: [], indent: 3 }, { align: 'middle', runs: [] }, { runs: 'text' }]) {
      const e = caught(() =>
        renderDocx(richTemplate([p('{{p x }}')]), { template_data: { x: { $paragraphs: [para] } } }),
      );
      expect(e.errorType).toBe('template_runtime_error');
    }
  });

  it('strict mode reports an undefined {{p x }} like any other variable', () => {
    const e = caught(() =>
      renderDocx(richTemplate([p('{{p missing }}')]), { template_data: {} }, { undefined: 'strict' }),
    );
    expect(e.errorType).toBe('undefined_variable');
    expect(e.details).toEqual({ variables: ['missing'] });
  });

  it('an image placed with {{p logo }} becomes a paragraph holding the picture', () => {
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC',
      'base64',
    );
    const xml = body(
      renderDocx(richTemplate([p('text {{p logo }}')]), {
        template_data: {},
        images: { logo: { data: png.toString('base64'), width_mm: 10 } },
      }),
    );
    expect(xml).toMatch(
      /<w:p><w:r><w:t xml:space="preserve"><\/w:t><w:drawing>[\s\S]*<\/w:drawing><w:t xml:space="preserve"><\/w:t><\/w:r><\/w:p>/,
    );
    expect(xml).not.toContain('text ');
  });

  it('splits header paragraphs at \\a too, and never lets the private markers through from data', () => {
    const docx = renderDocx(
      richTemplate({ body: [p('{{ y }}')], header: [p('H {{r x }} end', { align: 'center' })] }),
      {
        template_data: { x: { $rich: ['one\u0007two'] }, y: { $rich: ['a\uFDD2b\uFDD3c'] } },
      },
    );
    const header = part(docx, 'word/header1.xml')!;
    expect(header.match(/<w:jc w:val="center"\/>/g)).toHaveLength(2);
    const main = body(docx);
    expect(main).toContain('abc');
    expect(main).not.toMatch(/[\uFDD0-\uFDEF]/);
  });
});
