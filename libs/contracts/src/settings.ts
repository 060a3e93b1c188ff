/**
 * What one request may hold, and what it gets when it names no undefined-variable mode, locale or
 * time zone: settings groups for the loader of libs/config. The API checks the limits when it
 * parses a request; the worker and the command line hand `render` to the engine (in the shape of
 * its RenderOptions: this library does not import the engine's types), so what renders on the
 * command line also renders through the service.
 */
import { defineSettings, Setting } from '@app/config';
import { UNDEFINED_MODES } from './render-job';

const MiB = 1024 * 1024;

export const limitSettings = defineSettings({
  variables: {
    MAX_TEMPLATE_BYTES: Setting.integer({ minimum: 1, default: 10 * MiB }),
    /** Largest `data` / `request_data` form field (images travel inside it as base64). */
    MAX_REQUEST_BYTES: Setting.integer({ minimum: 1024, default: 32 * MiB }),
    MAX_IMAGES: Setting.integer({ minimum: 0, default: 20 }),
    /**
     * Largest decoded file in options.pdf: each PDF to prepend or append, each attachment, the
     * Factur-X XML (docs/pdf.md). They travel inside request_data, so MAX_REQUEST_BYTES bounds
     * their sum.
     */
    MAX_PDF_EXTRA_BYTES: Setting.integer({ minimum: 1024, default: 10 * MiB }),
    /** Largest decoded image. */
    MAX_IMAGE_BYTES: Setting.integer({ minimum: 1, default: 5 * MiB }),
    /** Largest width × height of one image. */
    MAX_IMAGE_PIXELS: Setting.integer({ minimum: 1, default: 25_000_000 }),
    /**
     * Largest sum of width × height over the page images one request asks for (options.output png
     * or jpeg; docs/outputs.md): refused with 413 before the fill from the template's page size,
     * and again from the PDF's pages before drawing. 200 M: about 225 A4 pages at 96 dpi, 23 at 300.
     */
    MAX_IMAGE_OUTPUT_PIXELS: Setting.integer({ minimum: 1, default: 200_000_000 }),
    /**
     * Deepest nesting of objects and arrays in `data` / `request_data` (the outermost object is
     * level 1). Deeper JSON is refused with 400 before anything walks it recursively.
     */
    MAX_JSON_DEPTH: Setting.integer({ minimum: 2, maximum: 1000, default: 64 }),
    /** Characters of one HTML or Markdown value (`| html`, `| markdown`); more: 413. */
    RICH_MAX_MARKUP_CHARS: Setting.integer({ minimum: 1, default: 500_000 }),
    /** Deepest nesting of elements in HTML / Markdown values; deeper: 422. */
    RICH_MAX_NESTING_DEPTH: Setting.integer({ minimum: 2, maximum: 1000, default: 100 }),
    /** Cells (rows × columns) of one table from HTML / Markdown; more: 422. */
    RICH_MAX_TABLE_CELLS: Setting.integer({ minimum: 1, default: 10_000 }),
    /** Sub-documents (`request_data.documents`) of one request; more: 413. */
    MAX_SUBDOCUMENTS: Setting.integer({ minimum: 0, default: 10 }),
    /** Items a batch (request_data.batch) may hold; checked before anything is queued. */
    MAX_BATCH_ITEMS: Setting.integer({ minimum: 1, maximum: 100_000, default: 1000 }),
    /** Iterations all loops of one document may run together (engine default when unset). */
    MAX_LOOP_ITERATIONS: Setting.optional(Setting.integer({ minimum: 1 })),
    /** Cells one filled sheet of a spreadsheet template may hold, loops included; more: 413. */
    MAX_CELLS_PER_SHEET: Setting.integer({ minimum: 1, default: 1_000_000 }),
    /** Slides one filled deck (.pptx) may hold, its slide loops' copies included; more: 413. */
    MAX_SLIDES_PER_DECK: Setting.integer({ minimum: 1, default: 500 }),
    /** `on`: macro-enabled workbooks (.xlsm) are filled (their macros kept, never run); `off`: 400. */
    ALLOW_MACRO_TEMPLATES: Setting.onOff({ default: 'off' }),
    /** Points (values) of one chart's data (docs/charts.md); more: 413 before any work. */
    MAX_CHART_POINTS: Setting.integer({ minimum: 1, default: 10_000 }),
    /** Points of all the charts of one request together; more: 413 before any work. */
    MAX_CHART_POINTS_PER_REQUEST: Setting.integer({ minimum: 1, default: 100_000 }),
  },
  slice: (v) => ({
    templateBytes: v.MAX_TEMPLATE_BYTES,
    requestBytes: v.MAX_REQUEST_BYTES,
    jsonDepth: v.MAX_JSON_DEPTH,
    pdfExtraBytes: v.MAX_PDF_EXTRA_BYTES,
    subdocuments: v.MAX_SUBDOCUMENTS,
    batchItems: v.MAX_BATCH_ITEMS,
    imageOutputPixels: v.MAX_IMAGE_OUTPUT_PIXELS,
    images: { maxImages: v.MAX_IMAGES, maxImageBytes: v.MAX_IMAGE_BYTES, maxImagePixels: v.MAX_IMAGE_PIXELS },
    /** The engine's limits (RenderOptions' maxLoopIterations, imageLimits, richLimits, chartLimits). */
    render: {
      maxLoopIterations: v.MAX_LOOP_ITERATIONS,
      maxCellsPerSheet: v.MAX_CELLS_PER_SHEET,
      maxSlidesPerDeck: v.MAX_SLIDES_PER_DECK,
      allowMacros: v.ALLOW_MACRO_TEMPLATES === 'on',
      imageLimits: {
        maxImages: v.MAX_IMAGES,
        maxImageBytes: v.MAX_IMAGE_BYTES,
        maxImagePixels: v.MAX_IMAGE_PIXELS,
      },
      richLimits: {
        maxMarkupChars: v.RICH_MAX_MARKUP_CHARS,
        maxNestingDepth: v.RICH_MAX_NESTING_DEPTH,
        maxTableCells: v.RICH_MAX_TABLE_CELLS,
        maxDocuments: v.MAX_SUBDOCUMENTS,
        maxDocumentBytes: v.MAX_TEMPLATE_BYTES,
      },
      chartLimits: {
        maxChartPoints: v.MAX_CHART_POINTS,
        maxRequestChartPoints: v.MAX_CHART_POINTS_PER_REQUEST,
      },
    },
  }),
});

/** What a request that names none gets: undefined-variable mode, locale, time zone. */
export const requestDefaultSettings = defineSettings({
  variables: {
    /** Undefined-variable behaviour when the request does not choose one. */
    DEFAULT_UNDEFINED: Setting.oneOf(UNDEFINED_MODES, { default: 'empty' }),
    /**
     * Locale of the formatting filters (format_date, format_currency, …) when the request does not
     * name one (options.locale, or the form field locale): Babel's `de_DE` or BCP 47's `de-DE`.
     */
    DEFAULT_LOCALE: Setting.string({ default: 'en_US' }),
    /** IANA time zone format_datetime and format_time show times in when the request names none. */
    DEFAULT_TIMEZONE: Setting.string({ default: 'UTC' }),
  },
  check(v) {
    const problems: string[] = [];
    if (!knownLocale(v.DEFAULT_LOCALE))
      problems.push(
        `DEFAULT_LOCALE: not a locale ICU knows (got '${v.DEFAULT_LOCALE}'), e.g. en_US or de-DE`,
      );
    if (!knownTimeZone(v.DEFAULT_TIMEZONE))
      problems.push(
        `DEFAULT_TIMEZONE: not an IANA time zone (got '${v.DEFAULT_TIMEZONE}'), e.g. UTC or Europe/Berlin`,
      );
    return problems;
  },
  slice: (v) => ({ undefined: v.DEFAULT_UNDEFINED, locale: v.DEFAULT_LOCALE, timezone: v.DEFAULT_TIMEZONE }),
});

/** A first check of DEFAULT_LOCALE (the engine checks language and region fully at each render). */
function knownLocale(raw: string): boolean {
  try {
    const [tag] = Intl.getCanonicalLocales(raw.replace(/_/g, '-'));
    return Intl.DateTimeFormat.supportedLocalesOf([tag], { localeMatcher: 'lookup' }).length === 1;
  } catch {
    return false;
  }
}

function knownTimeZone(raw: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(raw)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: raw });
    return true;
  } catch {
    return false;
  }
}
