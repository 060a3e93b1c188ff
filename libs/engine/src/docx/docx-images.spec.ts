import { MissingAltTextError } from '../errors';
import { DocxImageWriter } from './docx-images';
import type { PreparedImage } from './images';

const image = (extra: Partial<PreparedImage> = {}): PreparedImage => ({
  name: 'logo',
  png: Buffer.alloc(0),
  widthPx: 10,
  heightPx: 10,
  widthEmu: 36000,
  heightEmu: 36000,
  ...extra,
});

describe('DocxImageWriter alternative text', () => {
  it("writes alt as the picture's description (XML-escaped), the image's name without it", () => {
    const withAlt = new DocxImageWriter(new Map([['logo', image({ alt: 'Müller & Söhne "logo"' })]]));
    expect(withAlt.drawing('logo', 'word/document.xml')).toMatch(
      /descr="Müller &amp; Söhne &quot;logo&quot;"/,
    );
    const without = new DocxImageWriter(new Map([['logo', image()]]));
    expect(without.drawing('logo', 'word/document.xml')).toMatch(
      /<wp:docPr id="\d+" name="Picture \d+" descr="logo"\/>/,
    );
  });

  it("marks a decorative picture with Word's adec:decorative extension and no description", () => {
    const writer = new DocxImageWriter(new Map([['logo', image({ decorative: true })]]), {
      requireAltText: true,
    });
    const xml = writer.drawing('logo', 'word/document.xml');
    expect(xml).toContain('descr=""');
    expect(xml).toMatch(
      /<a:ext uri="\{C183D7F6-B498-43B3-948B-1728B52AA6E4\}"><adec:decorative xmlns:adec="http:\/\/schemas.microsoft.com\/office\/drawing\/2017\/decorative" val="1"\/><\/a:ext>/,
    );
  });

  it('with requireAltText refuses a picture without alt that is not decorative, naming it', () => {
    const writer = new DocxImageWriter(new Map([['logo', image()]]), { requireAltText: true });
    try {
      writer.drawing('logo', 'word/document.xml');
      throw new Error('not refused');
    } catch (e) {
      expect(e).toBeInstanceOf(MissingAltTextError);
      expect((e as MissingAltTextError).errorType).toBe('missing_alt_text');
      expect((e as MissingAltTextError).details).toEqual({ field: 'images.logo.alt', image: 'logo' });
    }
    // A barcode a filter drew has its own description: not the caller's to give.
    const generated = writer.drawing('x', 'word/document.xml', {
      name: 'qr-1',
      descr: 'QR code: hello',
      png: Buffer.alloc(0),
      widthPx: 1,
      heightPx: 1,
      widthEmu: 1,
      heightEmu: 1,
    });
    expect(generated).toContain('descr="QR code: hello"');
  });
});
