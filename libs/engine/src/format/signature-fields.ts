/**
 * `{{ signature_field('seller', width_mm=60, height_mm=25) }}`: a place for a signature, where the
 * tag prints. Ours, not docxtpl's (docxtpl has no such function).
 *
 * The place is an invisible inline picture (a transparent PNG stretched to width × height) whose
 * picture hyperlink (`a:hlinkClick` in `wp:docPr`) points at SIGNATURE_PLACE_URI + name.
 * LibreOffice (hence Gotenberg too) exports that hyperlink as a /Link annotation whose /Rect is
 * exactly the picture's box, so the PDF tells the page and rectangle of every place
 * (libs/converters signature-places.ts finds them and removes the links again).
 */
import { PNG } from 'pngjs';
import type { RenderState } from '../runtime/ops';
import { ImageRef, PyFloat, Undefined, type Value } from '../runtime/values';
import { arg, type FilterFn } from '../runtime/filters';
import { FormatValueError } from './errors';

/** The marker every place's link carries (`.invalid`: a name that never resolves, RFC 2606). */
export const SIGNATURE_PLACE_URI = 'https://signature-field.invalid/';
/**
 * A field name: it becomes the PDF form field's partial name (/T), where a dot would nest fields,
 * and the end of the marker URI, so letters, digits, `_` and `-` only.
 */
export const SIGNATURE_FIELD_NAME = /^[A-Za-z0-9_-]{1,64}$/;
export const SIGNATURE_FIELD_DEFAULT_MM = { width: 60, height: 25 } as const;
/** Sides in millimetres: smaller cannot hold a signature, larger is not a place on a page. */
export const SIGNATURE_FIELD_MIN_MM = 10;
export const SIGNATURE_FIELD_MAX_MM = 250;
/** Places one document may hold (each becomes a form field the signer writes). */
export const MAX_SIGNATURE_FIELDS = 100;

const EMU_PER_MM = 36000;

// One transparent pixel, stretched by the drawing's extent: nothing shows, the box is exact.
let transparentPng: Buffer | undefined;
function transparentPixel(): Buffer {
  if (!transparentPng) {
    const png = new PNG({ width: 1, height: 1 });
    png.data.fill(0);
    transparentPng = PNG.sync.write(png);
  }
  return transparentPng;
}

function mm(filter: string, field: string, name: string, raw: Value): number {
  const v = raw instanceof PyFloat ? raw.value : raw;
  if (
    typeof v !== 'number' ||
    !Number.isFinite(v) ||
    v < SIGNATURE_FIELD_MIN_MM ||
    v > SIGNATURE_FIELD_MAX_MM
  )
    throw new FormatValueError(
      filter,
      field,
      `${name} must be a number from ${SIGNATURE_FIELD_MIN_MM} to ${SIGNATURE_FIELD_MAX_MM} (millimetres)`,
    );
  return v;
}

/** The place's name from the tag, checked (also used by lint on literal arguments). */
export function signatureFieldNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return 'the first argument must be the field name, a string';
  if (!SIGNATURE_FIELD_NAME.test(name))
    return 'the field name must be 1 to 64 letters, digits, _ or - (it names a PDF form field)';
  return undefined;
}

const FILTER = 'signature_field';

/** The filter behind the `signature_field(name, width_mm, height_mm)` global (evaluator.ts). */
export const signatureField: FilterFn = (st: RenderState, v, a, k) => {
  if (v instanceof Undefined) throw new FormatValueError(FILTER, null, 'the field name is missing');
  const problem = signatureFieldNameProblem(v);
  if (problem) throw new FormatValueError(FILTER, v, problem);
  const name = v as string;
  const unknown = Object.keys(k).find((key) => key !== 'width_mm' && key !== 'height_mm');
  if (unknown !== undefined) throw new FormatValueError(FILTER, name, `unknown argument ${unknown}`);
  const widthMm = mm(FILTER, name, 'width_mm', arg(a, k, 0, 'width_mm', SIGNATURE_FIELD_DEFAULT_MM.width));
  const heightMm = mm(
    FILTER,
    name,
    'height_mm',
    arg(a, k, 1, 'height_mm', SIGNATURE_FIELD_DEFAULT_MM.height),
  );
  // A place is signed by name: two of one name (a loop copying the tag) could not be told apart.
  if (st.signatureFields.has(name))
    throw new FormatValueError(
      FILTER,
      name,
      'a document holds each signature field once; in a loop, make the name unique (e.g. "signer_" ~ loop.index)',
    );
  if (st.signatureFields.size >= MAX_SIGNATURE_FIELDS)
    throw new FormatValueError(
      FILTER,
      name,
      `more than ${MAX_SIGNATURE_FIELDS} signature fields in one document (limit)`,
    );
  st.signatureFields.add(name);
  return new ImageRef(`signature_field_${widthMm}x${heightMm}mm`, {
    // The media file is shared by every place of one size; the link is each place's own.
    name: `signature_field_${widthMm}x${heightMm}mm`,
    png: transparentPixel(),
    widthPx: 1,
    heightPx: 1,
    widthEmu: Math.round(widthMm * EMU_PER_MM),
    heightEmu: Math.round(heightMm * EMU_PER_MM),
    descr: `Signature field ${name}`,
    link: SIGNATURE_PLACE_URI + name,
  });
};

export const SIGNATURE_FILTERS: Record<string, FilterFn> = { signature_field: signatureField };
