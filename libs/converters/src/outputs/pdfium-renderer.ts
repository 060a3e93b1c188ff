/**
 * The in-process page renderer of the page-image output (page-images.ts): PDFium compiled to
 * WebAssembly (@hyzyla/pdfium, MIT; PDFium itself BSD-3/Apache-2.0). The only file that knows
 * that library's API.
 *
 * Why the raw module and not the package's PDFiumPage.render(): render() sizes the bitmap as
 * floor(points) × scale and stretches the page onto it (a drift of ~0.5 px at the foot of an
 * A4 page at 96 dpi against pdftoppm, which draws at exactly dpi/72 and rounds the size up), and
 * it always asks for LCD (sub-pixel) text. Here the page is drawn with an explicit matrix onto a
 * bitmap of the size page-selection.ts computes (pdftoppm's), in 24-bit RGB that PNG takes as is.
 *
 * The module is loaded once per process (the package reads its own pdfium.wasm beside its
 * JavaScript; nothing else is read). A PDF is copied into the module's heap and opened from
 * memory (FPDF_LoadMemDocument): no file, no network. The heap grows and is not given back,
 * so callers keep the in-process renderer to bounded inputs (PDFIUM_LIMITS) and use poppler
 * beyond them.
 */
import { PDFiumModule } from '@hyzyla/pdfium';

/** Beyond these the caller draws with poppler (a separate, killable process) instead. */
export const PDFIUM_LIMITS = {
  /** Largest PDF copied into the wasm heap. */
  maxPdfBytes: 64 * 1024 * 1024,
  /** Largest page bitmap (3 bytes a pixel): ~5,000 × 5,000, A3 at 300 dpi is 17.4 M. */
  maxPagePixels: 25_000_000,
} as const;

/** The functions of PDFium's C API used here (the package's own typing lists fewer). */
interface PdfiumWasm {
  _FPDF_InitLibraryWithConfig(config: object): void;
  _FPDF_LoadMemDocument(data: number, size: number, password: number): number;
  _FPDF_CloseDocument(doc: number): void;
  _FPDF_GetPageCount(doc: number): number;
  _FPDF_GetPageSizeByIndexF(doc: number, index: number, size: number): number;
  _FPDF_LoadPage(doc: number, index: number): number;
  _FPDF_ClosePage(page: number): void;
  _FPDF_GetLastError(): number;
  _FPDFBitmap_CreateEx(width: number, height: number, format: number, buffer: number, stride: number): number;
  _FPDFBitmap_FillRect(
    bitmap: number,
    left: number,
    top: number,
    width: number,
    height: number,
    argb: number,
  ): void;
  _FPDFBitmap_Destroy(bitmap: number): void;
  _FPDF_RenderPageBitmapWithMatrix(
    bitmap: number,
    page: number,
    matrix: number,
    clip: number,
    flags: number,
  ): void;
  wasmExports: { malloc(size: number): number; free(ptr: number): void };
  HEAPU8: Uint8Array;
}

/** fpdfview.h: FPDFBitmap_BGR (3 bytes a pixel), FPDF_ANNOT, FPDF_REVERSE_BYTE_ORDER (so RGB). */
const BITMAP_BGR = 2;
const RENDER_ANNOT = 0x01;
const RENDER_REVERSE_BYTE_ORDER = 0x10;

let loading: Promise<PdfiumWasm> | undefined;

/** The module, loaded and initialised once per process. */
export function loadPdfium(): Promise<PdfiumWasm> {
  loading ??= (async () => {
    const wasm = (await PDFiumModule({})) as unknown as PdfiumWasm;
    wasm._FPDF_InitLibraryWithConfig({
      version: 2,
      m_pIsolate: null,
      m_pUserFontPaths: null,
      m_v8EmbedderSlot: 0,
      m_pPlatform: null,
    });
    return wasm;
  })();
  // A failed load is retried by the next caller, not cached.
  loading.catch(() => (loading = undefined));
  return loading;
}

/** An open PDF in the module's heap; close() frees it (always, in a finally). */
export interface PdfiumDocument {
  readonly pageCount: number;
  /** Page `index` (0-based) in points, as displayed: a page rotated 90° or 270° is wide. */
  pageSize(index: number): { width: number; height: number };
  /** Page `index` (0-based), parsed once for the bands drawn of it; close() frees it. */
  loadPage(index: number): PdfiumPage;
  close(): void;
}

/** A loaded page. */
export interface PdfiumPage {
  /**
   * Rows `top` … `top + rows - 1` of the page drawn at `scaleX` × `scaleY` device pixels a
   * point onto a white band `width` pixels wide (row 0 at the page's top), as PNG scanlines:
   * each row a filter byte 0 (None), then its 8-bit RGB pixels. Drawn straight into that
   * layout (the bitmap's rows start one byte in), so no copy adds the filter bytes.
   */
  scanlines(width: number, scaleX: number, scaleY: number, top: number, rows: number): Buffer;
  close(): void;
}

/** PDFium's FPDF_GetLastError codes (fpdfview.h), for the message of a PDF it cannot open. */
const LOAD_ERRORS: Record<number, string> = {
  1: 'unknown error',
  2: 'file not found or could not be opened',
  3: 'not a PDF or corrupted',
  4: 'password required',
  5: 'unsupported security scheme',
  6: 'page not found or content error',
};

export class PdfiumOpenError extends Error {}

/** `pdf` opened from memory, or a PdfiumOpenError saying why PDFium cannot read it. */
export async function openPdfium(pdf: Uint8Array): Promise<PdfiumDocument> {
  const wasm = await loadPdfium();
  const data = wasm.wasmExports.malloc(pdf.length);
  if (data === 0) throw new PdfiumOpenError('no memory for the PDF');
  wasm.HEAPU8.set(pdf, data);
  const doc = wasm._FPDF_LoadMemDocument(data, pdf.length, 0);
  if (doc === 0) {
    const code = wasm._FPDF_GetLastError();
    wasm.wasmExports.free(data);
    throw new PdfiumOpenError(LOAD_ERRORS[code] ?? `error ${code}`);
  }
  let closed = false;
  return {
    pageCount: wasm._FPDF_GetPageCount(doc),
    pageSize(index) {
      const size = wasm.wasmExports.malloc(8); // FS_SIZEF: two floats
      try {
        if (!wasm._FPDF_GetPageSizeByIndexF(doc, index, size))
          throw new PdfiumOpenError(`no page ${index + 1}`);
        const view = new DataView(wasm.HEAPU8.buffer, size, 8);
        return { width: view.getFloat32(0, true), height: view.getFloat32(4, true) };
      } finally {
        wasm.wasmExports.free(size);
      }
    },
    loadPage(index) {
      const page = wasm._FPDF_LoadPage(doc, index);
      if (page === 0) throw new PdfiumOpenError(`cannot load page ${index + 1}`);
      let pageClosed = false;
      return {
        scanlines(width, scaleX, scaleY, top, rows) {
          const stride = width * 3 + 1;
          const pixels = wasm.wasmExports.malloc(stride * rows);
          // FS_MATRIX (a b c d e f) and FS_RECTF (left top right bottom), floats.
          const params = wasm.wasmExports.malloc(40);
          let bitmap = 0;
          try {
            if (pixels === 0 || params === 0)
              throw new PdfiumOpenError(`no memory for a ${width} × ${rows} band`);
            // The filter bytes: each sits just before its row, outside the bitmap's pixels (which
            // FillRect whitens), so only they are set here.
            for (let y = 0; y < rows; y++) wasm.HEAPU8[pixels + y * stride] = 0;
            const view = new DataView(wasm.HEAPU8.buffer, params, 40);
            [scaleX, 0, 0, scaleY, 0, -top, 0, 0, width, rows].forEach((v, i) =>
              view.setFloat32(i * 4, v, true),
            );
            bitmap = wasm._FPDFBitmap_CreateEx(width, rows, BITMAP_BGR, pixels + 1, stride);
            wasm._FPDFBitmap_FillRect(bitmap, 0, 0, width, rows, 0xffffffff);
            wasm._FPDF_RenderPageBitmapWithMatrix(
              bitmap,
              page,
              params,
              params + 24,
              RENDER_ANNOT | RENDER_REVERSE_BYTE_ORDER,
            );
            // A copy: the heap is reused (and may move when it grows).
            return Buffer.from(wasm.HEAPU8.subarray(pixels, pixels + stride * rows));
          } finally {
            if (bitmap !== 0) wasm._FPDFBitmap_Destroy(bitmap);
            wasm.wasmExports.free(params);
            wasm.wasmExports.free(pixels);
          }
        },
        close() {
          if (pageClosed) return;
          pageClosed = true;
          wasm._FPDF_ClosePage(page);
        },
      };
    },
    close() {
      if (closed) return;
      closed = true;
      wasm._FPDF_CloseDocument(doc);
      wasm.wasmExports.free(data);
    },
  };
}
