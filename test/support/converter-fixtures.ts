/**
 * Test and benchmark helpers for the conversion layer: real .docx files made with python-docx
 * (Debian's python3-docx) and PDF text read back with poppler's pdftotext. Not used in
 * production code.
 */
import { execFileSync } from 'node:child_process';

import { DEFAULT_PYTHON } from '@app/converters';

export interface InvoiceData {
  number: string;
  customer: string;
  lines: Array<{ item: string; qty: number; price: number }>;
}

export const SAMPLE_INVOICE: InvoiceData = {
  number: 'INV-2024-0042',
  customer: 'Müller & Söhne GmbH',
  lines: [
    { item: 'Widget, blue', qty: 3, price: 12.5 },
    { item: 'Gear assembly', qty: 1, price: 249 },
    { item: 'Service hour', qty: 4, price: 85 },
  ],
};

const MAKE_INVOICE = `
import json, sys, docx
from docx.shared import Pt
data = json.load(sys.stdin)
d = docx.Document()
d.styles['Normal'].font.name = 'Carlito'
d.styles['Normal'].font.size = Pt(11)
d.add_heading('Invoice ' + data['number'], 1)
d.add_paragraph('Customer: ' + data['customer'])
t = d.add_table(rows=1, cols=4)
t.style = 'Table Grid'
for cell, text in zip(t.rows[0].cells, ['Item', 'Qty', 'Price', 'Amount']):
    cell.text = text
total = 0
for line in data['lines']:
    amount = line['qty'] * line['price']
    total += amount
    for cell, text in zip(t.add_row().cells, [line['item'], str(line['qty']), '%.2f' % line['price'], '%.2f' % amount]):
        cell.text = text
d.add_paragraph('Total: %.2f EUR' % total)
d.save(sys.stdout.buffer)
`;

/** A one-page invoice .docx filled with `data`, made by python-docx. */
export function makeInvoiceDocx(data: InvoiceData = SAMPLE_INVOICE): Buffer {
  return execFileSync(DEFAULT_PYTHON, ['-c', MAKE_INVOICE], {
    input: JSON.stringify(data),
    maxBuffer: 1 << 26,
  });
}

/** The text of a PDF, as pdftotext (poppler-utils) reads it. */
export function pdfToText(pdf: Buffer): string {
  return execFileSync('pdftotext', ['-enc', 'UTF-8', '-', '-'], { input: pdf, maxBuffer: 1 << 26 }).toString(
    'utf8',
  );
}

/** Page count, from pdfinfo. */
export function pdfPageCount(pdf: Buffer): number {
  const info = execFileSync('pdfinfo', ['-'], { input: pdf }).toString('utf8');
  const match = /^Pages:\s+(\d+)/m.exec(info);
  if (!match) throw new Error(`pdfinfo printed no page count:\n${info}`);
  return Number(match[1]);
}

/** True while a process with this pid exists (zombies count as gone). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)])
      .toString()
      .trim();
    return stat !== '' && !stat.startsWith('Z');
  } catch {
    return false; // ps exits 1 when the pid is gone
  }
}
