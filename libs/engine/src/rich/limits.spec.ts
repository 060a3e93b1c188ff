import { httpStatusOf } from '@app/contracts';
import { p } from '../../../../test/support/docx-builder';
import { caught, part, richTemplate } from '../../../../test/support/rich-docx';
import { renderDocx, type RenderOptions } from '../render';

const render = (template: string, value: string, options: RenderOptions = {}) =>
  renderDocx(richTemplate([p(template)]), { template_data: { x: value } }, options);

describe('hostile HTML and Markdown: refused or neutralised with typed errors', () => {
  it('refuses 10,000-deep HTML nesting with a 422, without overflowing the stack', () => {
    for (const tag of ['div', 'b', 'ul><li', 'table><tr><td']) {
      const open = tag
        .split('><')
        .map((t) => `<${t}>`)
        .join('');
      const e = caught(() => render('{{p x | html }}', open.repeat(10_000) + 'deep'));
      expect(e.errorType).toBe('template_runtime_error');
      expect(httpStatusOf(e.errorType!)).toBe(422);
      expect(e.details).toMatchObject({ reason: 'nesting_too_deep' });
    }
  });

  it('refuses 10,000-deep Markdown nesting with a 422', () => {
    for (const source of [
      '>'.repeat(10_000) + ' deep',
      Array.from({ length: 10_000 }, (_, i) => `${'  '.repeat(i)}- x`).join('\n'),
    ]) {
      const e = caught(() =>
        render('{{p x | markdown }}', source, { richLimits: { maxMarkupChars: 200_000_000 } }),
      );
      expect(e.errorType).toBe('template_runtime_error');
      expect(e.details).toMatchObject({ reason: 'nesting_too_deep' });
    }
  });

  it('refuses 1 MB of markup with a 413 by default; a raised limit renders it', () => {
    const paragraph = '<p>Lorem <b>ipsum</b> dolor sit amet, <i>consectetur</i> adipiscing elit.</p>\n';
    const megabyte = paragraph.repeat(Math.ceil(1_048_576 / paragraph.length));
    for (const filter of ['html', 'markdown']) {
      const e = caught(() => render(`{{p x | ${filter} }}`, megabyte));
      expect(e.errorType).toBe('payload_too_large');
      expect(httpStatusOf(e.errorType!)).toBe(413);
      expect(e.details).toMatchObject({ reason: 'markup_too_long', limit: 500_000 });
    }
    const docx = render('{{p x | html }}', megabyte, { richLimits: { maxMarkupChars: 2_000_000 } });
    const xml = part(docx, 'word/document.xml')!;
    expect(xml.match(/<w:p>/g)!.length).toBeGreaterThan(10_000);
  });

  it('refuses tables over the cell or column limit with a 422', () => {
    const wide = `<table><tr>${'<td>x</td>'.repeat(64)}</tr></table>`;
    expect(caught(() => render('{{p x | html }}', wide)).details).toMatchObject({
      reason: 'table_too_large',
    });
    const spanned = '<table><tr><td colspan="100000">x</td></tr></table>';
    const e = caught(() => render('{{p x | html }}', spanned, { richLimits: { maxTableColumns: 10 } }));
    expect(e.details).toMatchObject({ reason: 'table_too_large' });
    const tall = `<table>${'<tr><td>x</td><td>y</td></tr>'.repeat(60)}</table>`;
    expect(
      caught(() => render('{{p x | html }}', tall, { richLimits: { maxTableCells: 100 } })).errorType,
    ).toBe('template_runtime_error');
  });

  it('neutralises script tags, event handlers and style attributes carrying markup', () => {
    const xml = part(
      render(
        '{{p x | html }}',
        '<p onclick="evil()" style="color: red&quot;/><w:b/>">x</p><script>document.write("<w:p/>")</script><img src="javascript:alert(1)" onerror="x()">',
      ),
      'word/document.xml',
    )!;
    expect(xml).not.toContain('evil');
    expect(xml).not.toContain('document.write');
    expect(xml).not.toContain('w:drawing');
    expect(xml).not.toMatch(/<w:b\/>[^<]*<w:t xml:space="preserve">x/);
  });

  it('refuses a $rich run whose size, colour or link would inject XML', () => {
    const inject = { x: { $rich: [{ text: 'x', font: 'A"/><w:b/><w:rFonts w:ascii="B' }] } };
    const xml = part(
      renderDocx(richTemplate([p('{{ x }}')]), { template_data: inject }),
      'word/document.xml',
    )!;
    expect(xml).toContain('w:ascii="A&quot;/&gt;&lt;w:b/&gt;&lt;w:rFonts w:ascii=&quot;B"');
  });
});
