import { httpStatusOf } from '@app/contracts';
import PizZip from 'pizzip';
import { PNG } from 'pngjs';
import { buildDocx, p, SPLIT, table } from '../../../../test/support/docx-builder';
import { docxWithVbaProject, entityBomb, lyingZipBomb } from '../../../../test/support/hostile-zip';
import { caught, part, relationship, richTemplate } from '../../../../test/support/rich-docx';
import { renderDocx, type RenderRequest } from '../render';

function png(width: number, height: number, value = 90): Buffer {
  const img = new PNG({ width, height });
  img.data.fill(value);
  return PNG.sync.write(img);
}

const NUMBERING =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:numbering xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' +
  '<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1)"/></w:lvl></w:abstractNum>' +
  '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>';
const NUMBERED =
  '<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>Item one</w:t></w:r></w:p>';

/** A sub-document with a clashing Heading 1, its own style, a list, an image, a table and a link. */
function annex(): Buffer {
  const zip = new PizZip(
    buildDocx([
      p('Annex title', { style: 'Heading1' }),
      { runs: ['Picture: ', { image: { png: png(30, 30), widthMm: 10, heightMm: 10 } }] },
      table([['a', 'b']]),
      { runs: [{ raw: '<w:hyperlink r:id="rIdLink"><w:r><w:t>link</w:t></w:r></w:hyperlink>' }] },
      p('Own style', { style: 'AnnexNote' }),
      p(`Book${SPLIT}marked`, { bookmarks: true }),
      'MARKER',
    ]),
  );
  let doc = zip.file('word/document.xml')!.asText();
  doc = doc.replace(/<w:p><w:r><w:t[^>]*>MARKER<\/w:t><\/w:r><\/w:p>/, NUMBERED);
  zip.file('word/document.xml', doc);
  const styles = zip
    .file('word/styles.xml')!
    .asText()
    .replace('<w:sz w:val="32"/>', '<w:sz w:val="48"/><w:color w:val="C00000"/>')
    .replace(
      '</w:styles>',
      '<w:style w:type="paragraph" w:styleId="AnnexNote"><w:name w:val="Annex Note"/><w:basedOn w:val="Heading1"/></w:style></w:styles>',
    );
  zip.file('word/styles.xml', styles);
  zip.file('word/numbering.xml', NUMBERING);
  const rels = zip.file('word/_rels/document.xml.rels')!.asText();
  zip.file(
    'word/_rels/document.xml.rels',
    rels.replace(
      '</Relationships>',
      '<Relationship Id="rIdLink" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://annex.example/" TargetMode="External"/></Relationships>',
    ),
  );
  return zip.generate({ type: 'nodebuffer' });
}

const request = (documents: Record<string, unknown>, data: Record<string, unknown> = {}): RenderRequest => ({
  template_data: data,
  documents: documents as RenderRequest['documents'],
});

describe('sub-documents: request_data.documents placed with {{p key }}', () => {
  const annexData = { data: annex().toString('base64') };

  it("inserts the body with its styles (the template's where it has the name, as docxtpl), numbering, image, table and hyperlink", () => {
    const docx = renderDocx(
      richTemplate([p('Main'), p('{{p annex }}'), p('Closing words')]),
      request({ annex: annexData }),
    );
    const xml = part(docx, 'word/document.xml')!;
    expect(xml.indexOf('Main')).toBeLessThan(xml.indexOf('Annex title'));
    expect(xml.indexOf('Item one')).toBeLessThan(xml.indexOf('Closing words'));
    // The template has a Heading 1 too: its look wins, as in docxtpl (docxcompose maps styles by
    // name), so the annex reads like the rest; its own style is copied.
    expect(xml).toContain('<w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t xml:space="preserve">Annex title');
    const styles = part(docx, 'word/styles.xml')!;
    expect(styles).not.toContain('Heading1_annex');
    expect(styles).not.toContain('<w:sz w:val="48"/>');
    expect(styles).toMatch(
      /w:styleId="AnnexNote"><w:name w:val="Annex Note"\/><w:basedOn w:val="Heading1"\/>/,
    );
    expect(styles.match(/w:styleId="Heading1"/g)).toHaveLength(1);
    // Numbering carried over under fresh ids.
    const numId = /<w:numId w:val="(\d+)"\/>/.exec(xml)![1];
    const numbering = part(docx, 'word/numbering.xml')!;
    expect(numbering).toContain(`<w:num w:numId="${numId}">`);
    expect(numbering).toContain('<w:lvlText w:val="%1)"/>');
    // The picture: its media copied, a relationship of the template's document part.
    const embed = /r:embed="([^"]+)"/.exec(xml)![1];
    const imageRel = relationship(docx, 'word/_rels/document.xml.rels', embed)!;
    const target = /Target="([^"]+)"/.exec(imageRel)![1];
    expect(new PizZip(docx).file(`word/${target}`)!.asUint8Array().length).toBeGreaterThan(50);
    // The hyperlink, external.
    const link = /<w:hyperlink r:id="([^"]+)"/.exec(xml)![1];
    expect(relationship(docx, 'word/_rels/document.xml.rels', link)).toContain(
      'Target="https://annex.example/" TargetMode="External"',
    );
    expect(xml).toContain('<w:tbl>');
    // One section only: the sub-document's sectPr stays behind.
    expect(xml.match(/<w:sectPr/g)).toHaveLength(1);
  });

  it('works twice, in a table cell and in a loop, with unique drawing ids', () => {
    const docx = renderDocx(
      richTemplate([
        table([['{{p annex }}']]),
        p('{%p for i in [1, 2] %}'),
        p('{{p annex }}'),
        p('{%p endfor %}'),
      ]),
      request({ annex: annexData }),
    );
    const xml = part(docx, 'word/document.xml')!;
    expect(xml.match(/Annex title/g)).toHaveLength(3);
    const ids = [...xml.matchAll(/<wp:docPr id="(\d+)"/g)].map((m) => m[1]);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    const starts = [...xml.matchAll(/<w:bookmarkStart [^>]*w:id="(\d+)"/g)].map((m) => m[1]);
    expect(starts.length).toBe(3);
    expect(new Set(starts).size).toBe(3);
    expect(part(docx, 'word/styles.xml')!.match(/w:styleId="AnnexNote"/g)).toHaveLength(1);
  });

  it("puts relationships in the header's own .rels when placed in a header", () => {
    const docx = renderDocx(
      richTemplate({ body: [p('x')], header: [p('{{p annex }}')] }),
      request({ annex: annexData }),
    );
    const header = part(docx, 'word/header1.xml')!;
    const embed = /r:embed="([^"]+)"/.exec(header)![1];
    expect(relationship(docx, 'word/_rels/header1.xml.rels', embed)).toContain('relationships/image');
  });

  it('refuses a bad sub-document with a 400 naming its key', () => {
    const cases: [string, unknown][] = [
      ['not a zip', { data: Buffer.from('hello world').toString('base64') }],
      ['not base64', { data: '***' }],
      ['no data', { nope: 1 }],
      ['with a DTD', { data: entityBomb().toString('base64') }],
      ['a lying zip bomb', { data: lyingZipBomb('word/document.xml', 5_000_000).toString('base64') }],
    ];
    for (const [, value] of cases) {
      const e = caught(() => renderDocx(richTemplate([p('{{p annex }}')]), request({ annex: value })));
      expect(e.errorType).toBe('invalid_template');
      expect(httpStatusOf(e.errorType!)).toBe(400);
      expect(e.details).toMatchObject({ document: 'annex' });
      expect(e.message).toContain("Sub-document 'annex'");
    }
    const e = caught(() =>
      renderDocx(
        richTemplate([p('x')]),
        request({ evil: { data: docxWithVbaProject().toString('base64') } }),
      ),
    );
    expect(e.details).toMatchObject({ document: 'evil', reason: 'macros' });
  });

  it('bounds the number and size of sub-documents with a 413', () => {
    const many = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`d${i}`, annexData]));
    const e = caught(() => renderDocx(richTemplate([p('x')]), request(many)));
    expect(e.errorType).toBe('payload_too_large');
    const big = caught(() =>
      renderDocx(richTemplate([p('x')]), request({ annex: annexData }), {
        richLimits: { maxDocumentBytes: 1000 },
      }),
    );
    expect(big.errorType).toBe('payload_too_large');
    expect(big.details).toMatchObject({ document: 'annex' });
  });

  it('a sub-document placed inline is a template error', () => {
    const e = caught(() => renderDocx(richTemplate([p('see {{ annex }}')]), request({ annex: annexData })));
    expect(e.errorType).toBe('template_runtime_error');
    expect(e.message).toContain('{{p annex }}');
  });

  it("leaves unstyled paragraphs to the template's default style, as docxtpl, and declares its namespaces", () => {
    const zip = new PizZip(buildDocx([p('Plain paragraph')]));
    const styles = zip.file('word/styles.xml')!.asText();
    zip.file(
      'word/styles.xml',
      styles.replace(
        '<w:name w:val="Normal"/>',
        '<w:name w:val="Normal"/><w:rPr><w:color w:val="336699"/></w:rPr>',
      ),
    );
    const doc = zip
      .file('word/document.xml')!
      .asText()
      .replace(
        '<w:document ',
        '<w:document xmlns:w15="http://schemas.microsoft.com/office/word/2012/wordml" ',
      );
    zip.file('word/document.xml', doc);
    const sub = zip.generate({ type: 'nodebuffer' });
    // A template whose root lacks w15.
    const tplZip = new PizZip(richTemplate([p('{{p annex }}')]));
    const root = tplZip.file('word/document.xml')!.asText();
    expect(root).not.toContain('xmlns:w15');
    const docx = renderDocx(
      tplZip.generate({ type: 'nodebuffer' }),
      request({ annex: { data: sub.toString('base64') } }),
    );
    const xml = part(docx, 'word/document.xml')!;
    expect(xml).toContain('<w:p><w:r><w:t xml:space="preserve">Plain paragraph');
    expect(xml).toMatch(
      /<w:document [^>]*xmlns:w15="http:\/\/schemas.microsoft.com\/office\/word\/2012\/wordml"/,
    );
    const copied = part(docx, 'word/styles.xml')!;
    expect(copied).not.toContain('336699');
    expect(copied.match(/w:default="1" w:styleId="Normal"/g)).toHaveLength(1);
  });

  it('refuses content it cannot carry over (a chart) with a 400 naming the document', () => {
    const zip = new PizZip(
      buildDocx([
        {
          runs: [
            {
              raw: '<w:r><w:drawing><c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" r:id="rIdChart"/></w:drawing></w:r>',
            },
          ],
        },
      ]),
    );
    const rels = zip.file('word/_rels/document.xml.rels')!.asText();
    zip.file(
      'word/_rels/document.xml.rels',
      rels.replace(
        '</Relationships>',
        '<Relationship Id="rIdChart" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/chart" Target="charts/chart1.xml"/></Relationships>',
      ),
    );
    const e = caught(() =>
      renderDocx(
        richTemplate([p('{{p annex }}')]),
        request({ annex: { data: zip.generate({ type: 'nodebuffer' }).toString('base64') } }),
      ),
    );
    expect(e.errorType).toBe('invalid_template');
    expect(e.details).toMatchObject({ document: 'annex', reason: 'unsupported_content' });
  });

  it('renders in strict mode: a document key is not an undefined variable', () => {
    const docx = renderDocx(richTemplate([p('{{p annex }}')]), request({ annex: annexData }), {
      undefined: 'strict',
    });
    expect(part(docx, 'word/document.xml')).toContain('Annex title');
  });

  it('is not fooled by a comment holding </w:body>, and refuses malformed styles with a 400', () => {
    const zip = new PizZip(buildDocx([p('Sub text')]));
    const doc = zip.file('word/document.xml')!.asText();
    zip.file('word/document.xml', doc.replace('</w:document>', '<!-- </w:body><w:p> --></w:document>'));
    const docx = renderDocx(
      richTemplate([p('{{p annex }}'), p('Template tail')]),
      request({ annex: { data: zip.generate({ type: 'nodebuffer' }).toString('base64') } }),
    );
    const xml = part(docx, 'word/document.xml')!;
    expect(xml).toMatch(/Sub text[\s\S]*Template tail[\s\S]*<\/w:body>/);
    expect(xml.match(/<\/w:body>/g)).toHaveLength(1);

    const broken = new PizZip(buildDocx([p('x')]));
    broken.file('word/styles.xml', broken.file('word/styles.xml')!.asText().replace('</w:style>', ''));
    const e = caught(() =>
      renderDocx(
        richTemplate([p('{{p annex }}')]),
        request({ annex: { data: broken.generate({ type: 'nodebuffer' }).toString('base64') } }),
      ),
    );
    expect(e.errorType).toBe('invalid_template');
    expect(e.details).toMatchObject({ document: 'annex', reason: 'malformed_xml', part: 'word/styles.xml' });
  });
});
