/**
 * signPdf: a PAdES signature (ETSI EN 319 142-1) at B-B, B-T, B-LT or B-LTA, each level one more
 * incremental update: the signature (with its field, visible or not, and the empty signature
 * fields), then the /DSS (B-LT), then a document timestamp (B-LTA). @signpdf/signpdf computes the
 * /ByteRange and fills /Contents; the CMS is ours (cms.ts) because @signpdf's signers write no
 * CAdES attributes.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fontkit from '@pdf-lib/fontkit';
import { SignPdf } from '@signpdf/signpdf';
import { Signer } from '@signpdf/utils';
import { InvalidPdfOptionsError, TypedError } from '@app/contracts';
import {
  PDFDict,
  PDFHexString,
  PDFName,
  PDFRef,
  PDFString,
  StandardFonts,
  type PDFFont,
  type PDFImage,
  type PDFPage,
} from 'pdf-lib';
import type * as pkijs from 'pkijs';
import { buildCades, parseCertificate, tokenCertificates } from './cms';
import { SigningCertificateInvalidError, SigningServiceFailedError, UnsignablePdfError } from './errors';
import { IncrementalUpdate } from './incremental';
import {
  crlUrlsOf,
  fetchCrl,
  fetchOcsp,
  issuerOf,
  ocspUrlsOf,
  requestTimestamp,
  type ServiceDeadline,
} from './services';
import {
  defaultLevel,
  type PadesLevel,
  type SignaturePlace,
  type SigningProfile,
  type SignRequest,
} from './types';

const DEFAULT_TIMEOUT_MS = 30_000;
/** Annotation flags: Print (PDF/A asks for it on every annotation) and Locked. */
const PRINT = 4;
const LOCKED = 128;
const BYTE_RANGE_PLACEHOLDER = '**********';
/** A font the appearance can embed (PDF/A forbids unembedded fonts); Helvetica if the file is missing. */
const APPEARANCE_FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';

const signer = new SignPdf();

/** Signs `pdf` with `profile` as `request` asks; the signed PDF. */
export async function signPdf(
  pdf: Buffer,
  profile: SigningProfile,
  request: SignRequest = {},
  o: { timeoutMs?: number } = {},
): Promise<Buffer> {
  const level = request.level ?? defaultLevel(profile);
  const now = request.now ?? new Date();
  const deadline: ServiceDeadline = {
    at: Date.now() + (o.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    requestTimeoutMs: profile.requestTimeoutMs,
  };
  if (level !== 'B-B' && !profile.tsaUrl) {
    throw new InvalidPdfOptionsError(
      `Signing profile "${profile.name}" has no time-stamping authority, so it signs at B-B only, not ${level}`,
      { field: 'options.pdf.signature.level', profile: profile.name, level },
    );
  }
  const signerCert = parseCertificate(profile.chain[0]);
  checkValidity(signerCert, now, profile.name);
  try {
    const withTimestamp = level === 'B-B' ? undefined : { url: profile.tsaUrl!, deadline };
    let timestampToken: pkijs.ContentInfo | undefined;
    const cadesSigner = new (class extends Signer {
      override async sign(signed: Buffer): Promise<Buffer> {
        const result = await buildCades(signed, {
          key: profile.key,
          chain: profile.chain,
          tsa: withTimestamp,
        });
        timestampToken = result.timestampToken;
        return result.cms;
      }
    })();
    const chainBytes = profile.chain.reduce((n, c) => n + c.length, 0);
    // /Contents is reserved before the CMS exists: the chain, the signature and attributes, and a
    // timestamp token whose size is the authority's (its certificates). Too small: once more, sized.
    let contentsBytes = chainBytes + 4096 + (withTimestamp ? 12_288 : 0);
    let signed: Buffer | undefined;
    for (let attempt = 0; !signed; attempt++) {
      const prepared = await withSignatureField(pdf, profile, request, signerCert, now, contentsBytes);
      try {
        signed = await signer.sign(prepared, cadesSigner);
      } catch (e) {
        const needed = /exceeds placeholder length: (\d+)/.exec((e as Error).message);
        if (!needed || attempt > 0) throw e;
        contentsBytes = Math.ceil(Number(needed[1]) / 2) + 4096;
      }
    }
    if (level === 'B-LT' || level === 'B-LTA') {
      const tsaCerts = timestampToken ? tokenCertificates(timestampToken) : [];
      signed = await withDss(signed, profile, [...profile.chain, ...tsaCerts], deadline);
    }
    if (level === 'B-LTA') signed = await withDocumentTimestamp(signed, profile.tsaUrl!, deadline);
    return signed;
  } catch (e) {
    if (e instanceof TypedError) throw e;
    // @signpdf and pdf-lib throw plain errors on what they cannot place or read.
    throw new UnsignablePdfError(`The PDF could not be signed: ${(e as Error).message}`, { field: 'pdf' });
  }
}

function checkValidity(cert: pkijs.Certificate, now: Date, profile: string): void {
  const notBefore = cert.notBefore.value;
  const notAfter = cert.notAfter.value;
  if (now < notBefore || now > notAfter) {
    throw new SigningCertificateInvalidError(
      `The certificate of signing profile "${profile}" is ${now < notBefore ? 'not yet valid' : 'expired'} (valid ${notBefore.toISOString()} to ${notAfter.toISOString()})`,
      { profile, not_before: notBefore.toISOString(), not_after: notAfter.toISOString() },
    );
  }
}

export function commonNameOf(cert: pkijs.Certificate): string {
  const cn = cert.subject.typesAndValues.find((t) => t.type === '2.5.4.3');
  return cn ? String(cn.value.valueBlock.value) : 'unknown signer';
}

/** PDF date string (7.9.4), UTC. */
function pdfDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `D:${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
}

/** PDF text: PDFDocEncoding-safe ASCII as is, anything else UTF-16BE. */
const pdfText = (s: string) =>
  /^[\x20-\x7e]*$/.test(s) ? PDFString.of(escapeLiteral(s)) : PDFHexString.fromText(s);
const escapeLiteral = (s: string) => s.replace(/([\\()])/g, '\\$1');

function pageOf(update: IncrementalUpdate, place: SignaturePlace): PDFPage {
  const pages = update.doc.getPages();
  const page = pages[place.page - 1];
  if (!Number.isInteger(place.page) || !page) {
    throw new InvalidPdfOptionsError(
      `Signature field "${place.name}" is on page ${place.page}, and the document has ${pages.length}`,
      { field: 'options.pdf.signature.field', name: place.name },
    );
  }
  return page;
}

function sigPlaceholder(
  update: IncrementalUpdate,
  contentsBytes: number,
  entries: Record<string, unknown>,
): PDFRef {
  const ctx = update.context;
  // /ByteRange before /Contents: @signpdf looks for /Contents after the placeholder.
  const dict = ctx.obj({
    Type: 'Sig',
    Filter: 'Adobe.PPKLite',
    SubFilter: 'ETSI.CAdES.detached',
    ByteRange: [0, BYTE_RANGE_PLACEHOLDER, BYTE_RANGE_PLACEHOLDER, BYTE_RANGE_PLACEHOLDER],
    Contents: PDFHexString.of('0'.repeat(contentsBytes * 2)),
  });
  for (const [k, v] of Object.entries(entries)) if (v !== undefined) dict.set(PDFName.of(k), v as never);
  return ctx.register(dict);
}

/**
 * The catalog's AcroForm /Fields array; with `signed`, SigFlags set (SignaturesExist | AppendOnly),
 * which a document holding only empty fields must not claim.
 */
function acroFields(update: IncrementalUpdate, signed = true) {
  const rootRef = update.context.trailerInfo.Root as PDFRef;
  const catalog = update.context.lookup(rootRef, PDFDict);
  const acroForm = update.dictIn(catalog, rootRef, 'AcroForm');
  if (signed) acroForm.set(PDFName.of('SigFlags'), update.context.obj(3));
  // The AcroForm may be direct in the catalog or its own object: dictIn touched its holder.
  const holder = catalog.get(PDFName.of('AcroForm'));
  const acroRef = holder instanceof PDFRef ? holder : rootRef;
  return update.arrayIn(acroForm, acroRef, 'Fields');
}

function addWidget(update: IncrementalUpdate, page: PDFPage, entries: Record<string, unknown>): PDFRef {
  const ctx = update.context;
  const widget = ctx.obj({ Type: 'Annot', Subtype: 'Widget', FT: 'Sig', P: page.ref });
  for (const [k, v] of Object.entries(entries)) if (v !== undefined) widget.set(PDFName.of(k), v as never);
  const ref = ctx.register(widget);
  update.arrayIn(page.node, page.ref, 'Annots').push(ref);
  return ref;
}

/** An empty appearance: PDF/A wants /AP on every widget with an area. */
function blankAppearance(update: IncrementalUpdate, w: number, h: number): PDFRef {
  const ctx = update.context;
  return ctx.register(ctx.flateStream('', { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, w, h] }));
}

/**
 * The appearance font, read and parsed once per process: parsing DejaVu Sans costs ~100 ms, which
 * pdf-lib would pay on each signature. fontkit's font object is only read from (each embedding
 * makes its own subset), so one serves every document.
 */
let fontBytes: Buffer | null | undefined;
let parsedFont: unknown;
const cachingFontkit = {
  create: (data: Uint8Array, name?: string) => (parsedFont ??= fontkit.create(data, name)),
} as unknown as typeof fontkit;

async function appearanceFont(update: IncrementalUpdate, lines: string[]): Promise<PDFFont> {
  if (fontBytes === undefined) {
    try {
      fontBytes = readFileSync(APPEARANCE_FONT);
    } catch {
      fontBytes = null;
    }
  }
  if (!fontBytes) return update.doc.embedFont(StandardFonts.Helvetica);
  update.doc.registerFontkit(cachingFontkit);
  const font = await update.doc.embedFont(fontBytes, { subset: true });
  for (const line of lines) font.encodeText(line); // the subset holds the glyphs encoded before embed()
  return font;
}

/** The visible signature's look: the image (if any) on the left, signer, date and reason on the right. */
async function visibleAppearance(
  update: IncrementalUpdate,
  w: number,
  h: number,
  lines: string[],
  png: Buffer | undefined,
): Promise<PDFRef> {
  const ctx = update.context;
  let image: PDFImage | undefined;
  if (png) {
    try {
      image = await update.doc.embedPng(png);
      await image.embed();
    } catch {
      throw new InvalidPdfOptionsError('The signature appearance image is not a readable PNG', {
        field: 'options.pdf.signature.appearance.image',
      });
    }
  }
  const font = await appearanceFont(update, lines);
  await font.embed();
  const pad = Math.min(2, w / 20, h / 20);
  let textX = pad;
  let ops = 'q\n';
  if (image) {
    const box = { w: lines.length ? w * 0.4 : w - 2 * pad, h: h - 2 * pad };
    const scale = Math.min(box.w / image.width, box.h / image.height);
    const iw = image.width * scale;
    const ih = image.height * scale;
    ops += `q ${iw.toFixed(3)} 0 0 ${ih.toFixed(3)} ${pad.toFixed(3)} ${((h - ih) / 2).toFixed(3)} cm /Im1 Do Q\n`;
    textX = pad * 2 + box.w;
  }
  const textW = w - textX - pad;
  if (lines.length && textW > 0) {
    const lineGap = 1.2;
    let size = Math.min(10, (h - 2 * pad) / (lines.length * lineGap));
    for (const line of lines) size = Math.min(size, (textW / font.widthOfTextAtSize(line, 1)) * 0.98);
    size = Math.max(size, 1);
    ops += `BT /F1 ${size.toFixed(3)} Tf 0 g\n`;
    const top = (h + lines.length * size * lineGap) / 2 - size;
    lines.forEach((line, i) => {
      const y = top - i * size * lineGap;
      ops += `1 0 0 1 ${textX.toFixed(3)} ${y.toFixed(3)} Tm ${font.encodeText(line).toString()} Tj\n`;
    });
    ops += 'ET\n';
  }
  ops += 'Q\n';
  const resources: Record<string, unknown> = { Font: { F1: font.ref } };
  if (image) resources.XObject = { Im1: image.ref };
  return ctx.register(
    ctx.flateStream(ops, {
      Type: 'XObject',
      Subtype: 'Form',
      BBox: [0, 0, w, h],
      Resources: resources as never,
    }),
  );
}

async function withSignatureField(
  pdf: Buffer,
  profile: SigningProfile,
  request: SignRequest,
  signerCert: pkijs.Certificate,
  now: Date,
  contentsBytes: number,
): Promise<Buffer> {
  const update = await IncrementalUpdate.open(pdf);
  const signerName = commonNameOf(signerCert);
  const sigRef = sigPlaceholder(update, contentsBytes, {
    M: PDFString.of(pdfDate(now)),
    Name: pdfText(signerName),
    Reason: request.reason === undefined ? undefined : pdfText(request.reason),
    Location: request.location === undefined ? undefined : pdfText(request.location),
    ContactInfo: request.contactInfo === undefined ? undefined : pdfText(request.contactInfo),
    Prop_Build: update.context.obj({ App: { Name: 'docx-pdf-service' } }),
  });
  const fields = acroFields(update);
  const visible = request.visible;
  if (visible) {
    const page = pageOf(update, visible);
    const [x1, y1, x2, y2] = visible.rect;
    const w = Math.abs(x2 - x1);
    const h = Math.abs(y2 - y1);
    const lines = [
      `Signed by ${signerName}`,
      `Date: ${now.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
      ...(request.reason ? [`Reason: ${request.reason}`] : []),
    ];
    const ap = await visibleAppearance(update, w, h, lines, visible.image);
    fields.push(
      addWidget(update, page, {
        T: pdfText(visible.name),
        V: sigRef,
        F: update.context.obj(PRINT | LOCKED),
        Rect: update.context.obj([Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)]),
        AP: update.context.obj({ N: ap }),
      }),
    );
  } else {
    const page = update.doc.getPage(0);
    fields.push(
      addWidget(update, page, {
        T: pdfText(uniqueFieldName(request)),
        V: sigRef,
        F: update.context.obj(PRINT | LOCKED),
        Rect: update.context.obj([0, 0, 0, 0]),
      }),
    );
  }
  addEmptyFields(update, fields, request.emptyFields ?? []);
  void profile;
  return update.bytes();
}

/** Empty, signable signature fields (/FT /Sig, no /V) at `places`, with blank appearances. */
function addEmptyFields(
  update: IncrementalUpdate,
  fields: ReturnType<typeof acroFields>,
  places: SignaturePlace[],
) {
  for (const place of places) {
    const page = pageOf(update, place);
    const [x1, y1, x2, y2] = place.rect;
    fields.push(
      addWidget(update, page, {
        T: pdfText(place.name),
        F: update.context.obj(PRINT),
        Rect: update.context.obj([Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)]),
        AP: update.context.obj({ N: blankAppearance(update, Math.abs(x2 - x1), Math.abs(y2 - y1)) }),
      }),
    );
  }
}

/**
 * A template's signature places as empty signature fields, in an incremental update, when the
 * request signs nothing: a reader (Acrobat) or an e-signature provider signs them later. No key
 * is needed, so this is a plain function rather than the worker's bound signer.
 */
export async function addEmptySignatureFields(pdf: Buffer, places: SignaturePlace[]): Promise<Buffer> {
  if (places.length === 0) return pdf;
  try {
    const update = await IncrementalUpdate.open(pdf);
    addEmptyFields(update, acroFields(update, false), places);
    return update.bytes();
  } catch (e) {
    if (e instanceof TypedError) throw e;
    throw new UnsignablePdfError(`The signature fields could not be added: ${(e as Error).message}`, {
      field: 'pdf',
    });
  }
}

function uniqueFieldName(request: SignRequest): string {
  const taken = new Set((request.emptyFields ?? []).map((f) => f.name));
  let n = 1;
  while (taken.has(`Signature${n}`)) n++;
  return `Signature${n}`;
}

/** B-LT: the chain (signer's and authority's) and an OCSP response or CRL for each non-root certificate. */
async function withDss(
  pdf: Buffer,
  profile: SigningProfile,
  chainDer: Buffer[],
  deadline: ServiceDeadline,
): Promise<Buffer> {
  const unique = [
    ...new Map(chainDer.map((d) => [createHash('sha256').update(d).digest('hex'), d])).values(),
  ];
  const certs = unique.map(parseCertificate);
  const signerChain = new Set(profile.chain.map((d) => createHash('sha256').update(d).digest('hex')));
  const ocsps: Buffer[] = [];
  const crls: Buffer[] = [];
  await Promise.all(
    certs.map(async (cert, i) => {
      const issuer = issuerOf(cert, certs);
      if (cert.issuer.isEqual(cert.subject)) return; // a root is trusted, not checked
      if (!issuer) {
        throw new SigningCertificateInvalidError(
          `Signing profile "${profile.name}": the issuer of "${commonNameOf(cert)}" is not in the profile's chain, so B-LT cannot be made`,
          { profile: profile.name },
        );
      }
      const ownChain = signerChain.has(createHash('sha256').update(unique[i]).digest('hex'));
      const ocspUrl = (ownChain ? profile.ocspUrl : undefined) ?? ocspUrlsOf(cert)[0];
      if (ocspUrl) {
        const { der, status } = await fetchOcsp(ocspUrl, cert, issuer, deadline);
        if (status === 'revoked') {
          throw new SigningCertificateInvalidError(
            `The certificate "${commonNameOf(cert)}" of signing profile "${profile.name}" is revoked`,
            { profile: profile.name },
          );
        }
        ocsps.push(der);
        return;
      }
      const crlUrl = crlUrlsOf(cert)[0];
      if (!crlUrl) {
        throw new SigningCertificateInvalidError(
          `The certificate "${commonNameOf(cert)}" of signing profile "${profile.name}" names no OCSP responder or CRL, so B-LT cannot be made`,
          { profile: profile.name },
        );
      }
      crls.push(await fetchCrl(crlUrl, issuer, deadline));
    }),
  );
  const update = await IncrementalUpdate.open(pdf);
  const ctx = update.context;
  const rootRef = ctx.trailerInfo.Root as PDFRef;
  const catalog = ctx.lookup(rootRef, PDFDict);
  const dss = update.dictIn(catalog, rootRef, 'DSS');
  const holder = catalog.get(PDFName.of('DSS'));
  const dssRef = holder instanceof PDFRef ? holder : rootRef;
  const add = (key: string, items: Buffer[]) => {
    if (!items.length) return;
    const array = update.arrayIn(dss, dssRef, key);
    for (const der of items) array.push(ctx.register(ctx.flateStream(der)));
  };
  add('Certs', unique);
  add('OCSPs', ocsps);
  add('CRLs', crls);
  return update.bytes();
}

/** B-LTA: a document timestamp (ETSI.RFC3161) over the whole file, DSS included. */
async function withDocumentTimestamp(
  pdf: Buffer,
  tsaUrl: string,
  deadline: ServiceDeadline,
): Promise<Buffer> {
  const update = await IncrementalUpdate.open(pdf);
  const ctx = update.context;
  const sigRef = sigPlaceholder(update, 16_384, {});
  const dict = ctx.lookup(sigRef, PDFDict);
  dict.set(PDFName.of('Type'), PDFName.of('DocTimeStamp'));
  dict.set(PDFName.of('SubFilter'), PDFName.of('ETSI.RFC3161'));
  const fields = acroFields(update);
  const names = new Set(
    fields
      .asArray()
      .map((r) => ctx.lookupMaybe(r, PDFDict)?.get(PDFName.of('T')))
      .map((t) => (t instanceof PDFString || t instanceof PDFHexString ? t.decodeText() : '')),
  );
  let n = 1;
  while (names.has(`DocTimeStamp${n}`)) n++;
  fields.push(
    addWidget(update, update.doc.getPage(0), {
      T: PDFString.of(`DocTimeStamp${n}`),
      V: sigRef,
      F: ctx.obj(PRINT | LOCKED),
      Rect: ctx.obj([0, 0, 0, 0]),
    }),
  );
  const prepared = update.bytes();
  const tokenSigner = new (class extends Signer {
    override async sign(signed: Buffer): Promise<Buffer> {
      const token = await requestTimestamp(tsaUrl, createHash('sha256').update(signed).digest(), deadline);
      return Buffer.from(token.toSchema().toBER(false));
    }
  })();
  return signer.sign(prepared, tokenSigner);
}

export { SigningServiceFailedError };
export type { PadesLevel };
