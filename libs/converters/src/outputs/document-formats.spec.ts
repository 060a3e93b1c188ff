import { parse } from 'parse5';

import { GotenbergConverter } from '../gotenberg-converter';
import {
  convertDocument,
  htmlToPlainText,
  selfContainedHtml,
  UnsupportedOutputError,
} from './document-formats';

describe('selfContainedHtml', () => {
  it('leaves LibreOffice output with data: pictures and internal links as it is', () => {
    const html =
      '<!DOCTYPE html><html><head><style>p { color: red }</style></head><body>' +
      '<img src="data:image/png;base64,AAAA"/><a href="#_Toc1">1</a><a href="https://example.com/">x</a></body></html>';
    expect(selfContainedHtml(html)).toBe(html);
  });

  it('removes what a browser would fetch: links, non-data sources, CSS urls', () => {
    const html =
      '<html><head><link rel="stylesheet" href="https://cdn.example/x.css"><style>body { background: url(http://x/y.png) }</style></head>' +
      '<body><img src="file:///tmp/logo.png" alt="logo"><img src="data:image/png;base64,AAAA">' +
      '<p style="background-image: url(\'pic.png\')">t</p><table background="bg.gif"></table></body></html>';
    const out = selfContainedHtml(html);
    expect(out).not.toMatch(/cdn\.example|file:|http:|pic\.png|bg\.gif/);
    expect(out).toContain('data:image/png;base64,AAAA');
    expect(out).toContain('alt="logo"');
    expect(parse(out).childNodes.length).toBeGreaterThan(0);
  });
});

describe('htmlToPlainText', () => {
  it('gives paragraphs in order with blank lines between, table rows as tab-separated cells, br as a line break', () => {
    const html =
      '<!DOCTYPE html><html><head><title>T</title><style>p { x: y }</style></head><body>' +
      '<div title="header"><p>Müller &amp; Söhne</p></div><h1>Invoice\n  INV-1</h1><p></p>' +
      '<table><tr><td><p>Qty</p></td><td><p>Unit</p><p>price</p></td></tr><tr><td>2</td><td>3.00</td></tr></table>' +
      '<p>Line one<br/>line two</p><ul><li>note</li></ul><ol start="4"><li><p>fourth</p></li><li>fifth</li></ol></body></html>';
    expect(htmlToPlainText(html)).toBe(
      'Müller & Söhne\n\nInvoice INV-1\n\nQty\tUnit price\n\n2\t3.00\n\nLine one\nline two\n\n• note\n\n4. fourth\n\n5. fifth\n',
    );
    expect(htmlToPlainText('<html><body><p> </p></body></html>')).toBe('');
  });
});

describe('convertDocument', () => {
  it('refuses odt, html and txt on a converter that writes PDF only (the Gotenberg route) with a 400 naming it', async () => {
    // Never called: the refusal comes before any request.
    const gotenberg = new GotenbergConverter({ url: 'http://127.0.0.1:9' });
    for (const format of ['odt', 'html', 'txt'] as const) {
      const e = await convertDocument(gotenberg, Buffer.alloc(0), format).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(UnsupportedOutputError);
      expect((e as UnsupportedOutputError).errorType).toBe('unsupported_output');
      expect((e as UnsupportedOutputError).details).toEqual({
        field: 'options.output',
        output: format,
        route: 'gotenberg',
      });
    }
    await gotenberg.close();
  });
});
