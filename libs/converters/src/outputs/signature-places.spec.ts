import { PDFArray, PDFDict, PDFDocument, PDFName, PDFString } from 'pdf-lib';
import { httpStatusOf } from '@app/contracts';
import {
  checkSignatureField,
  findSignaturePlaces,
  removePlaceMarkers,
  SIGNATURE_PLACE_URI,
  takeSignaturePlaces,
} from './signature-places';

/** A PDF with URI links as LibreOffice writes them: [page index, URI, rect]. */
async function pdfWithLinks(links: Array<[number, string, number[]]>, pages = 2): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) doc.addPage([595, 842]);
  for (const [page, uri, rect] of links) {
    const annot = doc.context.register(
      doc.context.obj({
        Type: 'Annot',
        Subtype: 'Link',
        Rect: rect,
        Border: [0, 0, 0],
        A: { Type: 'Action', S: 'URI', URI: PDFString.of(uri) },
      }),
    );
    const node = doc.getPage(page).node;
    const annots = node.lookup(PDFName.of('Annots'));
    if (annots instanceof PDFArray) annots.push(annot);
    else node.set(PDFName.of('Annots'), doc.context.obj([annot]));
  }
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

describe('signature places in a PDF', () => {
  it('finds each marker link as a place: name, page from 1, rectangle ordered', async () => {
    const pdf = await pdfWithLinks([
      [0, `${SIGNATURE_PLACE_URI}seller`, [114.4, 680.5, 284.5, 751.4]],
      [0, 'https://example.com/', [10, 10, 50, 20]],
      [1, `${SIGNATURE_PLACE_URI}buyer`, [300, 200, 100, 100]],
    ]);
    expect(await findSignaturePlaces(pdf)).toEqual([
      { name: 'seller', page: 1, rect: [114.4, 680.5, 284.5, 751.4] },
      { name: 'buyer', page: 2, rect: [100, 100, 300, 200] },
    ]);
  });

  it("drops the markers' links and keeps every other annotation", async () => {
    const pdf = await pdfWithLinks([
      [0, `${SIGNATURE_PLACE_URI}seller`, [114, 680, 284, 751]],
      [0, 'https://example.com/', [10, 10, 50, 20]],
      [1, `${SIGNATURE_PLACE_URI}buyer`, [100, 100, 300, 200]],
    ]);
    const { pdf: unmarked, places } = await takeSignaturePlaces(pdf);
    expect(places.map((p) => p.name)).toEqual(['seller', 'buyer']);
    expect(unmarked.includes('signature-field.invalid')).toBe(false);
    const doc = await PDFDocument.load(unmarked);
    expect(doc.getPageCount()).toBe(2);
    const first = doc.getPage(0).node.lookup(PDFName.of('Annots'), PDFArray);
    expect(first.size()).toBe(1);
    expect(doc.getPage(1).node.lookup(PDFName.of('Annots'))).toBeUndefined();
    expect(await findSignaturePlaces(unmarked)).toEqual([]);
  });

  it('in a tagged PDF, turns the Link element of a dropped link into a Figure with alt text, without its OBJR', async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([595, 842]);
    const link = (uri: string) =>
      doc.context.register(
        doc.context.obj({
          Type: 'Annot',
          Subtype: 'Link',
          Rect: [10, 10, 100, 50],
          A: { Type: 'Action', S: 'URI', URI: PDFString.of(uri) },
        }),
      );
    const place = link(`${SIGNATURE_PLACE_URI}seller`);
    const other = link('https://example.com/');
    page.node.set(PDFName.of('Annots'), doc.context.obj([place, other]));
    const elem = (annot: typeof place) =>
      doc.context.register(
        doc.context.obj({ Type: 'StructElem', S: 'Link', K: [0, { Type: 'OBJR', Obj: annot }] }),
      );
    const placeElem = elem(place);
    const otherElem = elem(other);
    const root = doc.context.obj({
      Type: 'StructTreeRoot',
      K: doc.context.obj({ Type: 'StructElem', S: 'Document', K: [placeElem, otherElem] }),
    });
    doc.catalog.set(PDFName.of('StructTreeRoot'), root);
    const { pdf } = await takeSignaturePlaces(Buffer.from(await doc.save({ useObjectStreams: false })));
    const out = await PDFDocument.load(pdf);
    const retagged = out.context.lookup(placeElem, PDFDict);
    expect(retagged.get(PDFName.of('S'))).toBe(PDFName.of('Figure'));
    expect(retagged.lookup(PDFName.of('Alt'), PDFString).decodeText()).toBe('Signature field seller');
    expect(retagged.lookup(PDFName.of('K'), PDFArray).size()).toBe(1);
    const kept = out.context.lookup(otherElem, PDFDict);
    expect(kept.get(PDFName.of('S'))).toBe(PDFName.of('Link'));
    expect(kept.lookup(PDFName.of('K'), PDFArray).size()).toBe(2);
  });

  it('leaves a PDF without markers as it is, byte for byte', async () => {
    const pdf = await pdfWithLinks([[0, 'https://example.com/', [10, 10, 50, 20]]]);
    expect(await removePlaceMarkers(pdf)).toBe(pdf);
  });

  it('checkSignatureField: the named place, or 422 signature_field_not_found naming it and the fields held', () => {
    const places = [
      { name: 'seller', page: 1, rect: [0, 0, 10, 10] as [number, number, number, number] },
      { name: 'witness', page: 2, rect: [0, 0, 10, 10] as [number, number, number, number] },
    ];
    expect(checkSignatureField('witness', places)).toBe(places[1]);
    let error: unknown;
    try {
      checkSignatureField('buyer', places);
    } catch (e) {
      error = e;
    }
    const typed = error as { errorType: string; message: string; details: unknown };
    expect(typed.errorType).toBe('signature_field_not_found');
    expect(httpStatusOf(typed.errorType)).toBe(422);
    expect(typed.message).toBe(
      'options.pdf.signature.field: the document has no signature field "buyer"; it holds "seller", "witness"',
    );
    expect(typed.details).toEqual({
      field: 'options.pdf.signature.field',
      requested: 'buyer',
      fields: ['seller', 'witness'],
    });
    expect(() => checkSignatureField('x', [])).toThrow('it holds none');
  });
});
