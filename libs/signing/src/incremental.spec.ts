import { PDFDict, PDFDocument, PDFName, PDFRef, PDFString } from 'pdf-lib';
import { IncrementalUpdate } from './incremental';

async function samplePdf(useObjectStreams: boolean): Promise<Buffer> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.addPage([200, 200]).drawText('hello');
  return Buffer.from(await doc.save({ useObjectStreams }));
}

const lastStartxref = (pdf: Buffer) =>
  Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(pdf.toString('latin1'))![1]);

describe.each([
  ['a cross-reference table', false],
  ['a cross-reference stream', true],
])('IncrementalUpdate after %s', (_name, useObjectStreams) => {
  it('appends only the changed and new objects, chained to the previous section', async () => {
    const original = await samplePdf(useObjectStreams);
    const update = await IncrementalUpdate.open(original);
    const ctx = update.context;
    const rootRef = ctx.trailerInfo.Root as PDFRef;
    const added = ctx.register(ctx.obj({ Marker: PDFString.of('added') }));
    ctx.lookup(rootRef, PDFDict).set(PDFName.of('Added'), added);
    update.touch(rootRef);
    const updated = update.bytes();

    expect(updated.subarray(0, original.length).equals(original)).toBe(true);
    const tail = updated.subarray(original.length).toString('latin1');
    // The catalog and the new object, nothing else of the original (its page stays where it was).
    expect(tail.match(/\d+ 0 obj/g)).toHaveLength(useObjectStreams ? 3 : 2);
    expect(tail).toContain(`/Prev ${lastStartxref(original)}`);
    expect(/(^|\n)xref\n/.test(tail)).toBe(!useObjectStreams);

    const reread = await PDFDocument.load(updated, { updateMetadata: false });
    const catalog = reread.context.lookup(reread.context.trailerInfo.Root as PDFRef, PDFDict);
    const marker = reread.context.lookup(catalog.get(PDFName.of('Added')) as PDFRef, PDFDict);
    expect((marker.get(PDFName.of('Marker')) as PDFString).decodeText()).toBe('added');
    expect(reread.getPageCount()).toBe(1);
  });
});

it('refuses what is no PDF with a typed error', async () => {
  await expect(IncrementalUpdate.open(Buffer.from('not a pdf'))).rejects.toMatchObject({
    errorType: 'invalid_pdf_input',
  });
});
