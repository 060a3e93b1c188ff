/**
 * A statement whose bookings take two table rows each, the booking date merged down both
 * (`w:vMerge`): a shape split conversion cannot cut (a part could start between the two rows of a
 * merge), so the document is always converted whole. For the conversion budget's e2e test and
 * its calibration (bench/budget.bench.ts).
 */
import PizZip from 'pizzip';
import { buildDocx, p, table } from './docx-builder';

/**
 * The template: header row, then `{%tr for b in bookings %}` over two rows, "Seite X von Y" in the
 * footer. `merged` false: the same rows without the merge (the calibration's control).
 */
export function mergedStatementTemplate(merged = true): Buffer {
  const template = buildDocx({
    body: [
      p('Kontoauszug {{ account }}', { style: 'Heading1' }),
      p('Inhaber: {{ holder }}'),
      table(
        [
          ['Datum', 'Buchungstext', 'Betrag'],
          ['{%tr for b in bookings %}', '', ''],
          [
            { blocks: ['{{ b.date }}'], ...(merged ? { vMerge: 'restart' } : {}) },
            '{{ b.text }}',
            '{{ b.amount }}',
          ],
          [{ blocks: [''], ...(merged ? { vMerge: 'continue' } : {}) }, '{{ b.detail }}', ''],
          ['{%tr endfor %}', '', ''],
        ],
        { widthsMm: [25, 105, 30] },
      ),
      p('Ende des Auszugs, {{ bookings|length }} Buchungen.'),
    ],
    footer: [
      { runs: ['Seite ', { field: 'PAGE', result: '1' }, ' von ', { field: 'NUMPAGES', result: '1' }] },
    ],
  });
  // Without the builder's table style: the merge is then the first thing split conversion refuses.
  const zip = new PizZip(template);
  const xml = zip.file('word/document.xml')!.asText();
  zip.file('word/document.xml', xml.replace('<w:tblStyle w:val="TableGrid"/>', ''));
  return zip.generate({ type: 'nodebuffer' });
}

/** Its data: `bookings` bookings, two table rows each (deterministic). */
export function mergedStatementRequest(bookings: number): { template_data: Record<string, unknown> } {
  const names = [
    'Überweisung Müller GmbH',
    'Lastschrift Stadtwerke',
    'Kartenzahlung Café Œuvre',
    'Gutschrift',
  ];
  return {
    template_data: {
      account: 'DE89 3704 0044 0532 0130 00',
      holder: 'Zoë Ørsted',
      bookings: Array.from({ length: bookings }, (_, i) => ({
        date: `${String((i % 28) + 1).padStart(2, '0')}.${String((i % 12) + 1).padStart(2, '0')}.2026`,
        text: names[i % names.length],
        detail: `Ref. ${100000 + ((i * 7919) % 900000)} / Verwendungszweck ${i + 1}`,
        amount: `${(i * 37) % 1000},${String(i % 100).padStart(2, '0')} €`,
      })),
    },
  };
}
