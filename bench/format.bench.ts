/**
 * Formatting and barcode filters: what one code or one formatted value costs in a render, and a
 * document of many. Each code is drawn anew (the cache is per render), as a render would draw it.
 *
 *   npm run bench:format -- [--iterations 20] [--warmup 3]
 */
import { buildDocx, p, table } from '../test/support/docx-builder';
import { renderDocx } from '../libs/engine/src';
import { drawBarcode } from '../libs/engine/src/format/barcodes';
import { formatCurrency } from '../libs/engine/src/format/numbers';
import { formatDatetime } from '../libs/engine/src/format/dates';
import { intArg } from './args';
import { elapsedMs, formatMs, machineLine, summarize } from './report';

const ITERATIONS = intArg('iterations', 20);
const WARMUP = intArg('warmup', 3);

const draw = (type: string, text: string, widthMm: number, heightMm?: number) => () =>
  drawBarcode({ filter: 'bench', type, text, widthMm, heightMm, value: text });

const rows = Array.from({ length: 100 }, (_, i) => ({
  name: `Ticket ${i}`,
  url: `https://example.org/t/${100000 + i}`,
  when: `2026-11-${String((i % 28) + 1).padStart(2, '0')}T18:30:00Z`,
  price: 10 + i * 1.25,
}));
const ticketTemplate = buildDocx([
  p('Tickets'),
  table([
    ['Name', 'When', 'Price', 'Code'],
    ['{%tr for r in rows %}', '', '', ''],
    [
      '{{ r.name }}',
      '{{ r.when | format_datetime("EEE d MMM y, HH:mm", tzinfo="Europe/Berlin") }}',
      '{{ r.price | format_currency("EUR") }}',
      '{{ r.url | qrcode(size_mm=20) }}',
    ],
    ['{%tr endfor %}', '', '', ''],
  ]),
]);
const plainTemplate = buildDocx([
  p('Tickets'),
  table([
    ['Name', 'When', 'Price', 'Code'],
    ['{%tr for r in rows %}', '', '', ''],
    ['{{ r.name }}', '{{ r.when }}', '{{ r.price }}', '{{ r.url }}'],
    ['{%tr endfor %}', '', '', ''],
  ]),
]);

const contenders: [string, () => unknown][] = [
  [
    'format_currency, 1 value (de-DE)',
    () =>
      formatCurrency(1234.5, 'EUR', null, 'de-DE', {
        groupSeparator: true,
        decimalQuantization: true,
        currencyDigits: true,
        formatType: 'standard',
      }),
  ],
  [
    'format_datetime pattern, 1 value',
    () => formatDatetime('2026-11-25T14:30:00Z', 'EEEE, dd.MM.yyyy HH:mm', 'Europe/Berlin', 'de-DE'),
  ],
  ['qrcode 30 mm, 37-char URL', draw('qrcode', 'https://example.org/invoice/2026-0042', 30)],
  ['qrcode 200 mm, 2,000 chars (limit)', draw('qrcode', 'x'.repeat(2000), 200)],
  ['datamatrix 25 mm, 16 chars', draw('datamatrix', 'LOT 42 / SIZE M.', 25)],
  ['pdf417 70 mm, 35 chars', draw('pdf417', 'BOARDING PASS M1DOE/JANE 2026-11-25', 70)],
  ['ean13 40 × 25 mm', draw('ean13', '4006381333931', 40, 25)],
  ['code128 50 × 15 mm', draw('code128', 'PARCEL-123456', 50, 15)],
  ['100-row table, plain values (.docx)', () => renderDocx(plainTemplate, { template_data: { rows } })],
  [
    '100-row table, dates, money, 100 QR codes (.docx)',
    () => renderDocx(ticketTemplate, { template_data: { rows } }),
  ],
];

console.log(machineLine());
for (const [name, fn] of contenders) {
  for (let i = 0; i < WARMUP; i++) fn();
  const n = name.includes('100-row') || name.includes('limit') ? Math.max(3, ITERATIONS >> 2) : ITERATIONS;
  console.log(`${name.padEnd(52)} ${formatMs(summarize(Array.from({ length: n }, () => elapsedMs(fn))))}`);
}
