/**
 * What a whole conversion will cost, told before LibreOffice runs (issue 34). LibreOffice 25.2
 * lays a long table out in time that grows faster than its rows; a document that cannot be cut
 * into parts (planParts' refusals) and is large enough cannot finish within the request's time,
 * and is better refused at once than after the whole timeout with an instance restarted.
 */
import PizZip from 'pizzip';

import { ConversionBudgetError } from '../errors';

/** The body's size, counted on word/document.xml's tags (no parse). */
export interface DocumentSize {
  /** Table rows (`w:tr`), every table, nested ones included. */
  rows: number;
  /** Table cells (`w:tc`). */
  cells: number;
  /** Paragraphs (`w:p`), in cells or not. */
  paragraphs: number;
  /** Characters of text (`w:t` contents, entities as written). */
  textChars: number;
  /** Cells merged down rows (`w:vMerge`, the first of a merge and those continuing it). */
  mergedCells: number;
  /** Characters of document.xml. */
  xmlChars: number;
}

const TAGS = /<w:(tr|tc|p|t|vMerge)(?=[\s>/])[^>]*>/g;

/** The size of `xml` (a document.xml). */
export function sizeOfXml(xml: string): DocumentSize {
  const size: DocumentSize = {
    rows: 0,
    cells: 0,
    paragraphs: 0,
    textChars: 0,
    mergedCells: 0,
    xmlChars: xml.length,
  };
  for (const m of xml.matchAll(TAGS)) {
    switch (m[1]) {
      case 'vMerge':
        size.mergedCells++;
        break;
      case 'tr':
        size.rows++;
        break;
      case 'tc':
        size.cells++;
        break;
      case 'p':
        size.paragraphs++;
        break;
      case 't': {
        if (m[0].endsWith('/>')) break;
        const start = (m.index ?? 0) + m[0].length;
        const end = xml.indexOf('</w:t>', start);
        if (end > start) size.textChars += end - start;
        break;
      }
    }
  }
  return size;
}

/** The size of a .docx's body, or null when it is not a package with a document.xml. */
export function sizeOfDocx(docx: Buffer): DocumentSize | null {
  try {
    const xml = new PizZip(docx).file('word/document.xml')?.asText();
    return xml ? sizeOfXml(xml) : null;
  } catch {
    return null;
  }
}

/**
 * A whole conversion's time (ms) as `baseMs + rowMs × (rows / 1000)^rowExponent + mergedMs ×
 * (mergedCells / 1000)^mergedExponent`: every table row costs more the more rows there are (the
 * table is laid out again as it grows across pages), and a cell merged down rows costs more again
 * (LibreOffice's layout of a merge across a page break). Counted on rows rather than cells: at the
 * same rows a 3-column and a 4-column table took about the same time.
 */
export interface WholeModel {
  baseMs: number;
  rowMs: number;
  rowExponent: number;
  mergedMs: number;
  mergedExponent: number;
}

/**
 * Fitted to LibreOffice 25.2's CPU time on this project's 2-core machine (bench/budget.bench.ts,
 * bench/budget-calibration.json, docs/conversion.md "The conversion budget"): the least error
 * that keeps every measurement's prediction under 1.25 × its time.
 */
export const WHOLE_MODEL: WholeModel = {
  baseMs: 300,
  rowMs: 375,
  rowExponent: 2.16,
  mergedMs: 526,
  mergedExponent: 2.52,
};

/** The predicted time of converting a document of `size` whole, in ms. */
export function predictWholeMs(size: DocumentSize, model: WholeModel = WHOLE_MODEL): number {
  return (
    model.baseMs +
    model.rowMs * Math.pow(size.rows / 1000, model.rowExponent) +
    model.mergedMs * Math.pow(size.mergedCells / 1000, model.mergedExponent)
  );
}

export interface BudgetSettings {
  /**
   * Predictions are scaled by this percentage (CONVERSION_BUDGET_SCALE): 100 as calibrated, 200
   * for a machine twice as slow; 0 turns the check off.
   */
  scalePercent: number;
}

export const BUDGET_DEFAULTS: BudgetSettings = { scalePercent: 100 };

/**
 * A conversion is refused only when its prediction is this many times its time: "clearly beyond".
 * The fit keeps its calibration measurements under 1.25 × their time; on sizes it had not seen
 * the prediction was up to 1.39 × the measured time (bench/budget-calibration.json, validation).
 * Twice the time leaves room for that: a document refused would have needed at least 2 / 1.39 =
 * 1.4 × its limit where the model was most pessimistic (docs/conversion.md).
 */
export const REFUSE_MARGIN = 2;

/**
 * Documents predicted under this are never refused, however little time is left: a request that
 * waited in the queue until a second remained is not told that its 20-row document is too long
 * (about 2,000 plain rows take 2 s).
 */
export const MIN_REFUSED_MS = 2_000;

export interface WholeConversion {
  /** The conversion's time limit (ms). */
  timeoutMs: number;
  /** Why it is converted whole (planPartsOrWhy's reason, or why split conversion gave up). */
  why: string;
  /** An asynchronous job's item: no job to suggest. */
  background?: boolean;
  jobId?: string;
  /** The docx's document.xml when the caller has read it already (planPartsOrWhy): not unzipped again. */
  documentXml?: string;
}

/**
 * The refusal of a whole conversion of `docx` predicted beyond `REFUSE_MARGIN` × its time, or
 * null when it may run. Cheap: a scan of document.xml's tags, no LibreOffice.
 */
export function wholeConversionRefusal(
  docx: Buffer,
  conversion: WholeConversion,
  settings: BudgetSettings = BUDGET_DEFAULTS,
  model: WholeModel = WHOLE_MODEL,
): ConversionBudgetError | null {
  if (settings.scalePercent <= 0) return null;
  const size = conversion.documentXml !== undefined ? sizeOfXml(conversion.documentXml) : sizeOfDocx(docx);
  if (!size) return null;
  const predictedMs = Math.round((predictWholeMs(size, model) * settings.scalePercent) / 100);
  if (predictedMs <= conversion.timeoutMs * REFUSE_MARGIN || predictedMs < MIN_REFUSED_MS) return null;
  const s = (ms: number) => `${Math.round(ms / 1000).toLocaleString('en')} s`;
  const advice = conversion.background
    ? 'Send fewer rows, or a layout that can be converted in parts'
    : 'Send it as an asynchronous job (POST /api/v1/jobs), which has a longer time limit, or send fewer rows';
  return new ConversionBudgetError(
    `The filled document must be converted whole because ${conversion.why}; a document of its size ` +
      `(${size.rows.toLocaleString('en')} table rows, ${size.cells.toLocaleString('en')} cells) is predicted to take ` +
      `about ${s(predictedMs)}, beyond the ${s(conversion.timeoutMs)} its conversion may take. ${advice}`,
    {
      whole_because: conversion.why,
      predicted_ms: predictedMs,
      timeout_ms: conversion.timeoutMs,
      table_rows: size.rows,
      table_cells: size.cells,
      ...(conversion.jobId ? { jobId: conversion.jobId } : {}),
    },
  );
}
