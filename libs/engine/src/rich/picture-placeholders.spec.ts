import PizZip from 'pizzip';
import { PNG } from 'pngjs';
import { buildDocx, p } from '../../../../test/support/docx-builder';
import { part, relationship } from '../../../../test/support/rich-docx';
import { renderDocx } from '../render';

function png(width: number, height: number, value: number): Buffer {
  const img = new PNG({ width, height });
  img.data.fill(value);
  return PNG.sync.write(img);
}

const placeholder = png(10, 10, 0);
/** A template with a 30 × 20 mm picture named "logo" in the body and one described "sig" in the footer. */
function template(): Buffer {
  const zip = new PizZip(
    buildDocx({
      body: [
        { runs: ['Logo: ', { image: { png: placeholder, widthMm: 30, heightMm: 20, name: 'logo' } }] },
        p('{{ x }}'),
      ],
      footer: [{ runs: [{ image: { png: placeholder, widthMm: 15, heightMm: 5, name: 'Picture 9' } }] }],
    }),
  );
  // Word keeps alt text in wp:docPr's descr.
  const footer = zip
    .file('word/footer1.xml')!
    .asText()
    .replace(/(<wp:docPr [^>]*name="Picture 9")/, '$1 descr="sig"');
  zip.file('word/footer1.xml', footer);
  return zip.generate({ type: 'nodebuffer' });
}

function embeddedBytes(docx: Buffer, xmlPath: string, relsPath: string): Buffer {
  const id = /r:embed="([^"]+)"/.exec(part(docx, xmlPath)!)![1];
  const target = /Target="([^"]+)"/.exec(relationship(docx, relsPath, id)!)![1];
  return Buffer.from(new PizZip(docx).file(`word/${target}`)!.asUint8Array());
}

describe('picture placeholders: a picture whose name or alt text is a key of images', () => {
  const logo = png(40, 20, 200);
  const sig = png(30, 10, 120);

  it("shows the request's image in the frame, keeping the frame size when none is given", () => {
    const docx = renderDocx(template(), {
      template_data: { x: 1 },
      images: { logo: { data: logo.toString('base64') }, sig: { data: sig.toString('base64') } },
    });
    expect(embeddedBytes(docx, 'word/document.xml', 'word/_rels/document.xml.rels').equals(logo)).toBe(true);
    expect(embeddedBytes(docx, 'word/footer1.xml', 'word/_rels/footer1.xml.rels').equals(sig)).toBe(true);
    const xml = part(docx, 'word/document.xml')!;
    expect(xml).toContain(`<wp:extent cx="${30 * 36000}" cy="${20 * 36000}"/>`);
  });

  it('takes the size the request gives', () => {
    const docx = renderDocx(template(), {
      template_data: { x: 1 },
      images: { logo: { data: logo.toString('base64'), width_mm: 50 } },
    });
    const xml = part(docx, 'word/document.xml')!;
    expect(xml).toContain(`<wp:extent cx="${50 * 36000}" cy="${25 * 36000}"/>`);
    expect(xml).toContain(`<a:ext cx="${50 * 36000}" cy="${25 * 36000}"/>`);
  });

  it('leaves pictures whose name is not an image key alone', () => {
    const docx = renderDocx(template(), {
      template_data: { x: 1 },
      images: { other: { data: logo.toString('base64') } },
    });
    expect(embeddedBytes(docx, 'word/document.xml', 'word/_rels/document.xml.rels').equals(placeholder)).toBe(
      true,
    );
  });
});
