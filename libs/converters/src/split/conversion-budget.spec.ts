import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import PizZip from 'pizzip';

import { ConversionBudgetError } from '../errors';
import {
  MIN_REFUSED_MS,
  predictWholeMs,
  REFUSE_MARGIN,
  sizeOfDocx,
  sizeOfXml,
  wholeConversionRefusal,
  type DocumentSize,
} from './conversion-budget';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

function cell(text: string, tcPr = ''): string {
  return `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/>${tcPr}</w:tcPr><w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p></w:tc>`;
}

/** A document.xml: a paragraph and a 3-column table of `rows` rows, the first column merged down pairs when `merged`. */
function documentXml(rows: number, merged = false): string {
  const body = Array.from({ length: rows }, (_, i) => {
    const merge = merged ? (i % 2 === 0 ? '<w:vMerge w:val="restart"/>' : '<w:vMerge/>') : '';
    return `<w:tr>${cell(i % 2 === 0 || !merged ? `0${i}.01.` : '', merge)}${cell(`Booking ${i}`)}${cell('12,50')}</w:tr>`;
  }).join('');
  return (
    `<w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>Statement</w:t></w:r></w:p>` +
    `<w:tbl><w:tblPr/><w:tblGrid/>${body}</w:tbl><w:p/><w:sectPr/></w:body></w:document>`
  );
}

function docx(rows: number, merged = false): Buffer {
  const zip = new PizZip();
  zip.file('word/document.xml', documentXml(rows, merged));
  return zip.generate({ type: 'nodebuffer', compression: 'STORE' });
}

const size = (rows: number, merged = false): DocumentSize => sizeOfXml(documentXml(rows, merged));

describe('sizeOfXml / sizeOfDocx', () => {
  it('counts rows, cells, merged cells, paragraphs and text on the tags', () => {
    const xml = documentXml(4, true);
    expect(sizeOfXml(xml)).toEqual({
      rows: 4,
      cells: 12,
      mergedCells: 4,
      // One a cell, the heading, the empty one after the table (<w:p/>).
      paragraphs: 14,
      textChars:
        'Statement'.length + '00.01.'.length + '02.01.'.length + 4 * '12,50'.length + 4 * 'Booking 0'.length,
      xmlChars: xml.length,
    });
    expect(sizeOfXml(documentXml(4)).mergedCells).toBe(0);
  });

  it('reads the .docx, and answers null for what is not one', () => {
    expect(sizeOfDocx(docx(10))).toEqual(size(10));
    expect(sizeOfDocx(Buffer.from('not a zip'))).toBeNull();
  });
});

describe('predictWholeMs', () => {
  it('grows faster than the rows', () => {
    for (const merged of [false, true]) {
      const [a, b] = [predictWholeMs(size(2000, merged)), predictWholeMs(size(4000, merged))];
      expect(b).toBeGreaterThan(2 * a);
    }
  });

  it('costs rows merged down more than the same rows unmerged', () => {
    expect(predictWholeMs(size(3000, true))).toBeGreaterThan(1.5 * predictWholeMs(size(3000)));
  });

  /**
   * The measurements the model was fitted to, and those of sizes it had not seen (bench/budget.bench.ts
   * on LibreOffice 25.2, in bench/budget-calibration.json): no document that converted in T is
   * predicted beyond REFUSE_MARGIN × T, so none of them would have been refused with time enough
   * to finish; and the fit holds its own measurements under 1.25 × T, as docs/conversion.md says.
   */
  it('stays within its margin of every calibration and validation measurement', () => {
    type Measurement = DocumentSize & { shape: string; measured_ms: number };
    const calibration = JSON.parse(
      readFileSync(join(__dirname, '../../../../bench/budget-calibration.json'), 'utf8'),
    ) as { measurements: Measurement[]; validation: Measurement[] };
    const ratios = (ms: Measurement[]) =>
      ms.map((m) => ({ shape: m.shape, rows: m.rows, ratio: predictWholeMs(m) / m.measured_ms }));
    expect(calibration.measurements.length).toBeGreaterThanOrEqual(30);
    expect(calibration.validation.length).toBeGreaterThanOrEqual(6);
    const all = [...ratios(calibration.measurements), ...ratios(calibration.validation)];
    expect(all.filter((m) => m.ratio >= REFUSE_MARGIN)).toEqual([]);
    expect(ratios(calibration.measurements).filter((m) => m.ratio > 1.251)).toEqual([]);
  });
});

describe('wholeConversionRefusal', () => {
  const why = 'its long table has cells merged down rows (vertical merges)';

  it('lets a document through whose prediction is within REFUSE_MARGIN of its time', () => {
    const doc = docx(3000, true);
    const predicted = predictWholeMs(sizeOfDocx(doc)!);
    expect(wholeConversionRefusal(doc, { timeoutMs: Math.ceil(predicted / REFUSE_MARGIN), why })).toBeNull();
    expect(
      wholeConversionRefusal(doc, { timeoutMs: Math.floor(predicted / REFUSE_MARGIN) - 1, why }),
    ).toBeInstanceOf(ConversionBudgetError);
  });

  it('refuses with the typed 413, saying why, the prediction, the limit, and suggesting a job', () => {
    const doc = docx(3000, true);
    const predicted = Math.round(predictWholeMs(sizeOfDocx(doc)!));
    const refusal = wholeConversionRefusal(doc, { timeoutMs: 1000, why, jobId: 'req-1' })!;
    expect(refusal).toBeInstanceOf(ConversionBudgetError);
    expect(refusal.errorType).toBe('payload_too_large');
    expect(refusal.details).toEqual({
      reason: 'conversion_budget',
      whole_because: why,
      predicted_ms: predicted,
      timeout_ms: 1000,
      table_rows: 3000,
      table_cells: 9000,
      jobId: 'req-1',
    });
    expect(refusal.message).toBe(
      `The filled document must be converted whole because ${why}; a document of its size (3,000 table rows, ` +
        `9,000 cells) is predicted to take about ${Math.round(predicted / 1000)} s, beyond the 1 s its conversion ` +
        'may take. Send it as an asynchronous job (POST /api/v1/jobs), which has a longer time limit, or send fewer rows',
    );
  });

  it("suggests no job to a job's item", () => {
    const refusal = wholeConversionRefusal(docx(3000, true), { timeoutMs: 1000, why, background: true })!;
    expect(refusal.message).not.toMatch(/jobs/);
    expect(refusal.message).toMatch(/Send fewer rows, or a layout that can be converted in parts$/);
  });

  it('scales predictions by CONVERSION_BUDGET_SCALE, and never refuses at 0', () => {
    const doc = docx(3000, true);
    const predicted = predictWholeMs(sizeOfDocx(doc)!);
    const timeoutMs = Math.ceil(predicted / REFUSE_MARGIN) + 10;
    expect(wholeConversionRefusal(doc, { timeoutMs, why }, { scalePercent: 100 })).toBeNull();
    const doubled = wholeConversionRefusal(doc, { timeoutMs, why }, { scalePercent: 200 });
    expect(doubled?.details.predicted_ms).toBe(Math.round(predicted * 2));
    expect(wholeConversionRefusal(doc, { timeoutMs: 1, why }, { scalePercent: 0 })).toBeNull();
  });

  it('never refuses a document predicted under MIN_REFUSED_MS, however little time is left', () => {
    const short = docx(200, true);
    expect(predictWholeMs(sizeOfDocx(short)!)).toBeLessThan(MIN_REFUSED_MS);
    expect(wholeConversionRefusal(short, { timeoutMs: 100, why })).toBeNull();
    // The same with a prediction just over it, from a slower machine's scale.
    const scalePercent = Math.ceil((100 * MIN_REFUSED_MS) / predictWholeMs(sizeOfDocx(short)!)) + 1;
    expect(wholeConversionRefusal(short, { timeoutMs: 100, why }, { scalePercent })).toBeInstanceOf(
      ConversionBudgetError,
    );
  });

  it('sizes the document.xml it is given instead of unzipping the docx again', () => {
    const xml = documentXml(3000, true);
    // The buffer is no zip: only the document.xml passed along can have given the size.
    const refusal = wholeConversionRefusal(Buffer.from('not a zip'), {
      timeoutMs: 1000,
      why,
      documentXml: xml,
    });
    expect(refusal?.details).toMatchObject({
      table_rows: 3000,
      predicted_ms: Math.round(predictWholeMs(sizeOfXml(xml))),
    });
  });

  it('leaves what is not a .docx to the converter', () => {
    expect(wholeConversionRefusal(Buffer.from('not a zip'), { timeoutMs: 1, why })).toBeNull();
  });
});
