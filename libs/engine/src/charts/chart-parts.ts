/**
 * Chart parts in a package, whatever holds them (a Word drawing, a slide's graphic frame): filling
 * one with data (its XML and its embedded workbook) and copying one, with the parts it points at,
 * under new names for a loop's further copies. ChartWriter (Word) and SlideCharts (decks) place
 * them; this file knows nothing of either.
 */
import {
  CONTENT_TYPES_PART,
  ContentTypes,
  relsPathOf,
  withDefaultContentType,
  withOverrideContentType,
} from '@app/ooxml';
import type PizZip from 'pizzip';
import { TypedError } from '@app/contracts';
import { InvalidTemplateError, TemplateRuntimeError } from '../errors';
import type { ChartData } from './chart-data';
import { ChartWithoutSeries, fillChartXml, type FilledChart } from './chart-xml';
import { rewriteWorkbook } from './workbook';

export const CHART_TYPE = 'application/vnd.openxmlformats-officedocument.drawingml.chart+xml';
export const REL_CHART = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/chart';
export const REL_PACKAGE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/package';
export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** `{{ chart(…) }}` as written in a title or alternative text; group 1 holds the arguments. */
export const CHART_TAG = /\{\{-?\s*chart\(([\s\S]*)\)\s*-?\}\}/;

export function unescapeXml(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

export function attrOf(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? unescapeXml(m[1]) : undefined;
}

/** Resolves a relationship target against the part that holds it. */
export function resolveTarget(part: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const parts = part.split('/').slice(0, -1);
  for (const seg of target.split('/')) {
    if (seg === '..') parts.pop();
    else if (seg !== '.' && seg !== '') parts.push(seg);
  }
  return parts.join('/');
}

export interface Rel {
  id: string;
  type: string;
  target: string;
  raw: string;
  external: boolean;
}

export function relsIn(xml: string): Rel[] {
  return [...xml.matchAll(/<Relationship\b[^>]*>/g)].map((m) => ({
    id: attrOf(m[0], 'Id') ?? '',
    type: attrOf(m[0], 'Type') ?? '',
    target: attrOf(m[0], 'Target') ?? '',
    raw: m[0],
    external: attrOf(m[0], 'TargetMode') === 'External',
  }));
}

export function relsOf(zip: PizZip, part: string): Rel[] {
  return relsIn(zip.file(relsPathOf(part))?.asText() ?? '');
}

/**
 * The package's chart parts as the fill changes them. Content types are gathered here and
 * applied by the caller (withContentTypes), which owns [Content_Types].xml during its fill.
 */
export class ChartParts {
  /** Chart parts as the template has them, kept before their first fill: copies start from these. */
  private readonly templates = new Map<string, string>();
  private readonly overrides: Array<[string, string]> = [];
  private readonly types: ContentTypes;
  private readonly originalTypes: string;
  private copies = 0;

  constructor(private readonly zip: PizZip) {
    this.originalTypes = zip.file(CONTENT_TYPES_PART)?.asText() ?? '';
    this.types = new ContentTypes(this.originalTypes);
  }

  exists(path: string): boolean {
    return this.templates.has(path) || this.zip.file(path) !== null;
  }

  /** The chart part's XML as the template has it. */
  templateXml(path: string): string {
    let xml = this.templates.get(path);
    if (xml === undefined) this.templates.set(path, (xml = this.zip.file(path)!.asText()));
    return xml;
  }

  /** A number no copy used yet (Word also names its new charts with it). */
  nextNumber(): number {
    return ++this.copies;
  }

  /** A copy of chart part `path` and the parts it points at (workbook, style, colours) under new names. */
  copy(path: string): { path: string; n: number } {
    const zip = this.zip;
    let n = this.nextNumber();
    // A template that is itself a filled output already holds copies' names.
    while (zip.file(path.replace(/([^/]+)\.xml$/, `docgen_chart${n}.xml`))) n = this.nextNumber();
    const copyPath = path.replace(/([^/]+)\.xml$/, `docgen_chart${n}.xml`);
    zip.file(copyPath, this.templateXml(path));
    const rels = zip.file(relsPathOf(path))?.asText();
    if (rels) {
      let copyRels = rels;
      for (const rel of relsOf(zip, path)) {
        if (rel.external) continue;
        const target = resolveTarget(path, rel.target);
        const file = zip.file(target);
        if (!file) continue;
        const newTarget = target.replace(/(\.[^./]+)$/, `_docgen${n}$1`);
        zip.file(newTarget, file.asUint8Array());
        // An Override for the original (style and colour parts have one) gets one for the copy.
        const own = this.types.typeOf(target);
        if (own && this.originalTypes.includes(`PartName="/${target}"`))
          this.overrides.push([`/${newTarget}`, own]);
        copyRels = copyRels.replace(
          rel.raw,
          rel.raw.replace(
            /Target="[^"]*"/,
            `Target="${rel.target.replace(/([^/]+)$/, newTarget.split('/').pop()!)}"`,
          ),
        );
      }
      zip.file(relsPathOf(copyPath), copyRels);
    }
    this.overrides.push([`/${copyPath}`, CHART_TYPE]);
    return { path: copyPath, n };
  }

  /** Declares a chart part the caller made (Word's new charts). */
  declare(path: string): void {
    this.overrides.push([`/${path}`, CHART_TYPE]);
  }

  /**
   * Fills chart part `path` (from the template's XML) and its embedded workbook, when it has one,
   * with `data`; returns the chart's kind. `name` names the chart in errors.
   */
  fill(path: string, data: ChartData, name: string): string {
    let filled: FilledChart;
    try {
      filled = fillChartXml(this.templateXml(path), data);
    } catch (e) {
      if (e instanceof TypedError) throw e;
      // xmldom's ParseError: a damaged chart part is the template's fault, never a crash.
      if (!(e instanceof ChartWithoutSeries))
        throw new InvalidTemplateError(
          `The template's chart part ${path} is not well-formed XML (${(e as Error).message})`,
          {
            reason: 'malformed_xml',
            part: path,
          },
        );
      throw new TemplateRuntimeError(
        `Chart '${name}': the template's chart (${path}) has no data series to fill; give it one in Word, PowerPoint or LibreOffice`,
        { chart: name, part: path },
      );
    }
    this.zip.file(path, filled.xml);
    const workbook = relsOf(this.zip, path).find((r) => r.type === REL_PACKAGE && !r.external);
    const target = workbook && resolveTarget(path, workbook.target);
    const bytes = target && this.zip.file(target)?.asUint8Array();
    if (target && bytes) {
      let workbook: Buffer;
      try {
        workbook = rewriteWorkbook(bytes, filled.sheet, filled.cells);
      } catch (e) {
        // PizZip's error, or the workbook without a sheet: a damaged embedded workbook.
        throw new InvalidTemplateError(
          `The embedded workbook ${target} of chart ${path} is damaged (${(e as Error).message})`,
          { reason: 'damaged_chart_workbook', part: target },
        );
      }
      this.zip.file(target, workbook);
    }
    return filled.shape.kind;
  }

  /** `types` ([Content_Types].xml) with the parts made here declared. */
  withContentTypes(types: string): string {
    for (const [part, type] of this.overrides) types = withOverrideContentType(types, part, type);
    if (this.overrides.length) types = withDefaultContentType(types, 'xlsx', XLSX_TYPE);
    return types;
  }
}
