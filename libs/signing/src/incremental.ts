/**
 * Incremental updates (ISO 32000 7.5.6) written from pdf-lib's object model. pdf-lib reads the
 * PDF and builds the new objects, but its save() rewrites the whole file, which would drop what a
 * PDF/A or a Factur-X file must keep byte for byte and invalidate earlier signatures; so only the
 * objects changed or added are appended here, after the original bytes, with their own
 * cross-reference section (a table or a stream, as the file's last one) and /Prev.
 */
import {
  PDFArray,
  PDFCrossRefStream,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFNumber,
  PDFRef,
  type PDFObject,
} from 'pdf-lib';
import { UnsignablePdfError } from './errors';

export class IncrementalUpdate {
  private readonly changed = new Map<string, PDFRef>();
  private readonly firstNew: number;

  private constructor(
    readonly original: Buffer,
    readonly doc: PDFDocument,
    private readonly prevXref: number,
    private readonly xrefIsStream: boolean,
  ) {
    this.firstNew = doc.context.largestObjectNumber + 1;
  }

  static async open(pdf: Buffer): Promise<IncrementalUpdate> {
    const tail = pdf.subarray(Math.max(0, pdf.length - 1024)).toString('latin1');
    const match = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail);
    if (!match)
      throw new UnsignablePdfError('The PDF to sign has no final startxref/%%EOF', { field: 'pdf' });
    const prevXref = Number(match[1]);
    let doc: PDFDocument;
    try {
      doc = await PDFDocument.load(pdf, { updateMetadata: false, throwOnInvalidObject: true });
    } catch (e) {
      const encrypted = (e as Error).name === 'EncryptedPDFError';
      throw new UnsignablePdfError(
        encrypted ? 'An encrypted PDF cannot be signed' : 'The PDF to sign cannot be read',
        { field: 'pdf', reason: encrypted ? 'encrypted' : 'unreadable' },
      );
    }
    const xrefIsStream = !pdf.subarray(prevXref, prevXref + 4).equals(Buffer.from('xref'));
    return new IncrementalUpdate(pdf, doc, prevXref, xrefIsStream);
  }

  get context() {
    return this.doc.context;
  }

  /** This existing object is changed and must be written again. */
  touch(ref: PDFRef): void {
    this.changed.set(ref.toString(), ref);
  }

  /** The dictionary under `key` of `owner` (owner's ref given), created if absent; its holder touched. */
  dictIn(owner: PDFDict, ownerRef: PDFRef, key: string): PDFDict {
    const raw = owner.get(PDFName.of(key));
    if (raw instanceof PDFRef) {
      this.touch(raw);
      return this.context.lookup(raw, PDFDict);
    }
    this.touch(ownerRef);
    if (raw instanceof PDFDict) return raw;
    const created = this.context.obj({});
    owner.set(PDFName.of(key), created);
    return created;
  }

  /** The array under `key` of `owner`, created if absent; its holder touched. */
  arrayIn(owner: PDFDict, ownerRef: PDFRef, key: string): PDFArray {
    const raw = owner.get(PDFName.of(key));
    if (raw instanceof PDFRef) {
      this.touch(raw);
      return this.context.lookup(raw, PDFArray);
    }
    this.touch(ownerRef);
    if (raw instanceof PDFArray) return raw;
    const created = this.context.obj([]);
    owner.set(PDFName.of(key), created);
    return created;
  }

  /** The original bytes followed by the update. */
  bytes(): Buffer {
    const ctx = this.context;
    const refs = [...this.changed.values()];
    for (let n = this.firstNew; n <= ctx.largestObjectNumber; n++) {
      const ref = PDFRef.of(n);
      if (ctx.lookup(ref) !== undefined) refs.push(ref);
    }
    const parts: Buffer[] = [this.original];
    let offset = this.original.length;
    const push = (b: Buffer) => {
      parts.push(b);
      offset += b.length;
    };
    if (this.original[this.original.length - 1] !== 0x0a) push(Buffer.from('\n'));
    const offsets = new Map<number, { ref: PDFRef; offset: number }>();
    for (const ref of refs) {
      const object = ctx.lookup(ref) as PDFObject;
      offsets.set(ref.objectNumber, { ref, offset });
      push(Buffer.from(`${ref.objectNumber} ${ref.generationNumber} obj\n`, 'latin1'));
      push(serialize(object));
      push(Buffer.from('\nendobj\n', 'latin1'));
    }
    const info = ctx.trailerInfo;
    const trailer: Record<string, PDFObject> = { Root: info.Root as PDFObject };
    if (info.Info) trailer.Info = info.Info as PDFObject;
    if (info.ID) trailer.ID = info.ID as PDFObject;
    trailer.Prev = PDFNumber.of(this.prevXref);
    const xrefAt = offset;
    if (this.xrefIsStream) {
      const streamRef = ctx.nextRef();
      trailer.Size = PDFNumber.of(ctx.largestObjectNumber + 1);
      const stream = PDFCrossRefStream.create(ctx.obj(trailer));
      for (const { ref, offset: at } of [...offsets.values()].sort(
        (a, b) => a.ref.objectNumber - b.ref.objectNumber,
      )) {
        stream.addUncompressedEntry(ref, at);
      }
      stream.addUncompressedEntry(streamRef, xrefAt);
      push(Buffer.from(`${streamRef.objectNumber} 0 obj\n`, 'latin1'));
      push(serialize(stream));
      push(Buffer.from('\nendobj\n', 'latin1'));
    } else {
      trailer.Size = PDFNumber.of(ctx.largestObjectNumber + 1);
      let table = 'xref\n';
      const numbers = [...offsets.keys()].sort((a, b) => a - b);
      for (let i = 0; i < numbers.length;) {
        let j = i;
        while (j + 1 < numbers.length && numbers[j + 1] === numbers[j] + 1) j++;
        table += `${numbers[i]} ${j - i + 1}\n`;
        for (let k = i; k <= j; k++) {
          const { ref, offset: at } = offsets.get(numbers[k])!;
          table += `${String(at).padStart(10, '0')} ${String(ref.generationNumber).padStart(5, '0')} n\r\n`;
        }
        i = j + 1;
      }
      push(Buffer.from(table, 'latin1'));
      push(Buffer.from('trailer\n', 'latin1'));
      push(serialize(ctx.obj(trailer)));
      push(Buffer.from('\n', 'latin1'));
    }
    push(Buffer.from(`startxref\n${xrefAt}\n%%EOF\n`, 'latin1'));
    return Buffer.concat(parts);
  }
}

function serialize(object: PDFObject): Buffer {
  const out = new Uint8Array(object.sizeInBytes());
  object.copyBytesInto(out, 0);
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}
