/**
 * The benchmark corpus: four templates shaped like the documents customers send (committed in
 * bench/fixtures/, made by bench/fixtures/make_corpus.py; see bench/fixtures/README.md) and the
 * request for each, in the service's enhanced form ({ template_data, images }).
 *
 * The data is deterministic (a 32-bit LCG, fixed dates), has XML-special characters (& < > ")
 * and non-ASCII text in a few values, and carries money preformatted as strings, so every
 * engine does the same lookups and no arithmetic.
 *
 *   invoice   Word default styles, a row loop over `rows` items (default 20; 20 … 10000 are used)
 *   contract  20-40 pages, header/footer fields, TOC, nested paragraph loops over `rows` clauses
 *             (default 15), tags split across runs as Word writes them
 *   writer    a certificate saved by LibreOffice Writer, `rows` table rows (default 5)
 *   gallery   10 images ({{ img0 }} … {{ img9 }}) and a table of `rows` rows (default 2000)
 *   statement a bank statement: one 4-column table in a Word table style, header row repeated on
 *             each page, `rows` transactions (default 1000; 10,000 and 50,000 in bench:bigdocs)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import PizZip from 'pizzip';

export type CorpusName = 'invoice' | 'contract' | 'writer' | 'gallery' | 'statement';

export const CORPUS_NAMES: readonly CorpusName[] = ['invoice', 'contract', 'writer', 'gallery', 'statement'];

export interface CorpusImage {
  data: string;
  width_mm?: number;
}

export interface CorpusRequest {
  template_data: Record<string, unknown>;
  images?: Record<string, CorpusImage>;
}

/** Rows (items, clauses, table rows) when `opts.rows` is not given. */
const DEFAULT_ROWS: Readonly<Record<CorpusName, number>> = {
  invoice: 20,
  contract: 15,
  writer: 5,
  gallery: 2000,
  statement: 1000,
};

const FIXTURES_DIR = join(__dirname, 'fixtures');

/** The gallery's images in placeholder order: img0 … img9 (make_corpus.py GALLERY_IMAGES). */
export const GALLERY_IMAGES: readonly string[] = [
  'photo-alps.png',
  'photo-sunset.png',
  'photo-sea.png',
  'photo-forest.png',
  'photo-desert.png',
  'photo-city.png',
  'logo.png',
  'signature.png',
  'stamp.png',
  'chart.png',
];

export function corpusFile(name: CorpusName): string {
  if (!CORPUS_NAMES.includes(name)) throw new Error(`unknown corpus document: ${String(name)}`);
  return join(FIXTURES_DIR, `${name}.docx`);
}

/** The template bytes: bench/fixtures/<name>.docx. */
export function corpusTemplate(name: CorpusName): Buffer {
  return readFileSync(corpusFile(name));
}

/** The request for a corpus document; `rows` scales its loop (see DEFAULT_ROWS). */
export function corpusRequest(name: CorpusName, opts: { rows?: number } = {}): CorpusRequest {
  const rows = opts.rows ?? DEFAULT_ROWS[name];
  if (!Number.isInteger(rows) || rows < 0)
    throw new Error(`rows must be a non-negative integer, got ${rows}`);
  switch (name) {
    case 'invoice':
      return { template_data: invoiceData(rows), images: { logo: image('logo.png', 40) } };
    case 'contract':
      return { template_data: contractData(rows) };
    case 'writer':
      return { template_data: writerData(rows) };
    case 'gallery':
      return {
        template_data: galleryData(rows),
        images: Object.fromEntries(
          GALLERY_IMAGES.map((file, i) => [`img${i}`, image(file, file.startsWith('photo-') ? 75 : 45)]),
        ),
      };
    case 'statement':
      return { template_data: statementData(rows), images: { logo: image('logo.png', 12) } };
    default:
      throw new Error(`unknown corpus document: ${String(name)}`);
  }
}

/** invoice.dxt.docx: the invoice in docxtemplater's own syntax (default parser, paragraphLoop). */
export function docxtemplaterInvoice(): Buffer {
  return readFileSync(join(FIXTURES_DIR, 'invoice.dxt.docx'));
}

/**
 * The data for invoice.dxt.docx. Same shape as the Jinja invoice's template_data (the dxt
 * template scopes objects with sections: `{#company}{name}{/company}`), without the logo,
 * which bare docxtemplater cannot place; both documents then read the same.
 */
export function docxtemplaterInvoiceData(rows: number = DEFAULT_ROWS.invoice): Record<string, unknown> {
  return invoiceData(rows);
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** Numerical Recipes' 32-bit LCG; `int(n)` uses the high bits. */
class Lcg {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (Math.imul(this.state, 1664525) + 1013904223) >>> 0;
    return this.state;
  }
  int(n: number): number {
    return (this.next() >>> 8) % n;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
}

/** Cents as "12,345.67". */
function money(cents: number): string {
  const whole = Math.floor(cents / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${whole}.${String(cents % 100).padStart(2, '0')}`;
}

function image(file: string, widthMm: number): CorpusImage {
  return { data: readFileSync(join(FIXTURES_DIR, 'images', file)).toString('base64'), width_mm: widthMm };
}

const PRODUCTS: readonly string[] = [
  'Consulting & support, phase II',
  'Widget <XL> with mounting kit',
  'Cable "Cat 6" 5 m, grey',
  'Crème brûlée set (4 pcs.)',
  'Straßenkarte & Atlas Süddeutschland',
  'Ærø ferry ticket, return',
  'Müsli bar × 12',
  'Œuvres complètes, vol. 3',
  'Tom\'s "Special" sauce',
  'Bolts M8 > 50 mm, zinc-plated',
  'On-site installation (hours)',
  'Licence: Office Suite, 1 year',
  'Ersatzteil Nr. 4711 – Dichtung',
  'Café au lait mugs, set of 6',
];

// ---------------------------------------------------------------------------------------------
// invoice
// ---------------------------------------------------------------------------------------------

function invoiceData(rows: number): Record<string, unknown> {
  const rnd = new Lcg(20240301);
  let subtotal = 0;
  const items = Array.from({ length: rows }, () => {
    const qty = 1 + rnd.int(12);
    const unit = 150 + rnd.int(250000); // cents
    const amount = qty * unit;
    subtotal += amount;
    return {
      description: `${rnd.pick(PRODUCTS)}, batch ${1000 + rnd.int(9000)}`,
      qty,
      unit_price: money(unit),
      amount: money(amount),
    };
  });
  const vat = Math.round((subtotal * 19) / 100);
  return {
    company: {
      name: 'Müller & Söhne GmbH',
      street: 'Hauptstraße 1',
      city: '10115 Berlin',
      vat_id: 'DE123456789',
      iban: 'DE89 3704 0044 0532 0130 00',
    },
    customer: {
      name: 'Café "Zur Börse" <Filiale Nord>',
      street: '12 Rue de la Paix',
      city: '75002 Paris, France',
    },
    invoice: {
      number: 'INV-2024-0042',
      date: '2024-03-01',
      due: '2024-03-31',
      order_ref: 'PO 7/2024 <urgent>',
      paid_on: '2024-03-15',
    },
    items,
    subtotal: money(subtotal),
    vat: money(vat),
    total: money(subtotal + vat),
    paid: false,
    notes: [
      'Payment terms: 30 days net; 2 % discount if paid within 10 days.',
      'Questions? Write to "Buchhaltung" <billing@mueller-soehne.example>.',
      'Goods remain our property until paid in full (§ 449 BGB) & all claims are settled.',
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// contract
// ---------------------------------------------------------------------------------------------

const CLAUSE_TITLES: readonly string[] = [
  'Scope of Services',
  'Service Levels',
  'Fees & Payment',
  'Term and Termination',
  'Confidentiality',
  'Data Protection (GDPR)',
  'Intellectual Property',
  'Warranties',
  'Limitation of Liability',
  'Indemnification',
  'Force Majeure',
  'Subcontractors',
  'Insurance',
  'Audit Rights',
  'Non-Solicitation',
  'Change Control',
  'Notices',
  'Assignment',
];

const SECTION_TITLES: readonly string[] = [
  'General',
  'Obligations of the Supplier',
  'Obligations of the Customer',
  'Procedure',
  'Exceptions',
  'Consequences of Breach',
  'Notification',
  'Duration',
];

const SUBJECTS: readonly string[] = ['The Supplier', 'The Customer', 'Each Party'];
const VERBS: readonly string[] = [
  'shall provide',
  'shall maintain',
  'may suspend',
  'shall not disclose',
  'shall indemnify the other Party against',
  'shall promptly notify the other Party of',
  'undertakes to document',
  'shall use reasonable endeavours to deliver',
  'may terminate, by written notice,',
  'shall bear the costs of',
];
const OBJECTS: readonly string[] = [
  'the Services described in Schedule A',
  'all Confidential Information received from the other Party',
  'the Deliverables & associated documentation',
  'records of all Fees < EUR 10,000 invoiced per month',
  'any claim that a Deliverable infringes the rights of a third party',
  'the agreed Service Levels',
  'backups of the “Customer Data” in a data centre within the EU',
  'the personnel and equipment required for the Services',
  'any change to the Supplier’s subcontractors',
  'reports on incidents with a severity > 2',
];
const CONDITIONS: readonly string[] = [
  'in accordance with the Service Levels',
  'within thirty (30) days of receipt of a written notice',
  'subject to Clause 12 ("Limitation of Liability")',
  'unless otherwise agreed in writing',
  'to the extent permitted by applicable law (e.g. §§ 305 ff. BGB)',
  'at its own expense',
  'during the term of this Agreement and for three (3) years thereafter',
  'without undue delay, and in any case within 48 hours',
  'provided that the other Party is not in breach',
  'in a manner that is both “reasonable” & proportionate',
];

function sentence(rnd: Lcg): string {
  return `${rnd.pick(SUBJECTS)} ${rnd.pick(VERBS)} ${rnd.pick(OBJECTS)} ${rnd.pick(CONDITIONS)}.`;
}

function contractData(clauses: number): Record<string, unknown> {
  const rnd = new Lcg(1508);
  return {
    party: {
      name: 'Müller & Söhne GmbH',
      short: 'Supplier',
      address: 'Hauptstraße 1, 10115 Berlin, Germany',
      signatory: 'Dr. Jürgen Weiß',
      signatory_title: 'Geschäftsführer',
    },
    counterparty: {
      name: 'Société Générale d’Équipements S.A. "SGE"',
      short: 'Customer',
      address: '12 Rue de la Paix, 75002 Paris, France',
      signatory: 'Hélène Dubois-Lefèvre',
      signatory_title: 'Directrice générale',
    },
    contract: {
      number: 'MSA-2024-0815',
      date: '1. März 2024',
      territory: 'France & the Benelux',
      tender_ref: 'AO-2023/117 <lot 2>',
      governing_law: 'the Federal Republic of Germany',
      venue: 'Berlin',
      arbitration: true,
      arbitration_rules: 'DIS Arbitration Rules 2018 <as amended>',
      term_months: 36,
    },
    clauses: Array.from({ length: clauses }, (_, c) => {
      const number = String(c + 4);
      const sections = 2 + rnd.int(3);
      return {
        number,
        title:
          CLAUSE_TITLES[c % CLAUSE_TITLES.length] +
          (c >= CLAUSE_TITLES.length ? ` (${Math.floor(c / CLAUSE_TITLES.length) + 1})` : ''),
        optional: c % 4 === 3,
        schedule: String.fromCharCode(65 + (c % 26)),
        sections: Array.from({ length: sections }, (_, s) => ({
          number: `${number}.${s + 1}`,
          title: SECTION_TITLES[(c + s) % SECTION_TITLES.length],
          paragraphs: Array.from({ length: 2 + rnd.int(3) }, () =>
            Array.from({ length: 4 + rnd.int(3) }, () => sentence(rnd)).join(' '),
          ),
        })),
      };
    }),
  };
}

// ---------------------------------------------------------------------------------------------
// writer
// ---------------------------------------------------------------------------------------------

const MODULES: readonly string[] = [
  'Formation & validity of contracts',
  'Standard terms <AGB> under §§ 305–310 BGB',
  'Drafting "boilerplate" clauses',
  'Liability, warranties & indemnities',
  'Cross-border contracts: CISG, Rome I',
  'Négociation et rédaction en français',
  'Data-protection clauses (Art. 28 GDPR)',
  'Dispute resolution & arbitration',
];
const GRADES: readonly string[] = [
  'sehr gut (1.0)',
  'sehr gut (1.3)',
  'gut (1.7)',
  'gut (2.0)',
  'befriedigend (2.7)',
];

function writerData(rows: number): Record<string, unknown> {
  const rnd = new Lcg(77);
  let hours = 0;
  const table = Array.from({ length: rows }, (_, i) => {
    const h = 8 + 4 * rnd.int(5);
    hours += h;
    return {
      module:
        MODULES[i % MODULES.length] + (i >= MODULES.length ? ` (${Math.floor(i / MODULES.length) + 1})` : ''),
      hours: h,
      grade: rnd.pick(GRADES),
    };
  });
  return {
    recipient: {
      name: 'Zoë O’Brien-Müller',
      salutation: 'Ms O’Brien-Müller',
      organisation: 'Ærø & Partner <Rechtsanwälte>',
      street: 'Königsallee 27',
      city: '40212 Düsseldorf',
    },
    place: 'Köln',
    date: '15. Mai 2024',
    course: {
      title: 'Advanced Contract Drafting "Module III"',
      number: 'ACD-3/2024',
      end_date: '10. Mai 2024',
    },
    rows: table,
    total_hours: hours,
    distinction: true,
    distinction_percent: 5,
    final_grade: 'gut (2.0)',
    signatory: { name: 'Prof. Dr. Élodie Straßburger', title: 'Studienleiterin & Direktorin' },
  };
}

// ---------------------------------------------------------------------------------------------
// gallery
// ---------------------------------------------------------------------------------------------

function galleryData(rows: number): Record<string, unknown> {
  const rnd = new Lcg(2000);
  let total = 0;
  const table = Array.from({ length: rows }, (_, i) => {
    const qty = 1 + rnd.int(50);
    const price = 99 + rnd.int(99900);
    total += qty * price;
    return {
      n: i + 1,
      sku: `SKU-${String(100000 + rnd.int(900000))}`,
      name: rnd.pick(PRODUCTS),
      qty,
      price: money(price),
      amount: money(qty * price),
    };
  });
  return {
    title: 'Product catalogue "Spring 2024" – Müller & Söhne',
    catalogue: {
      number: 'CAT-2024-03',
      valid_from: '1. März 2024',
      note: 'errors & omissions excepted <E&OE>.',
    },
    rows: table,
    total: money(total),
    footer_note: 'All prices subject to change; delivery ex works Berlin (Incoterms® 2020 EXW).',
  };
}

// ---------------------------------------------------------------------------------------------
// statement
// ---------------------------------------------------------------------------------------------

/** Counterparties as a bank prints them: short, a reference after them, some with & < > ". */
const PAYEES: readonly string[] = [
  'REWE Markt Köln-Ehrenfeld',
  'H&M Store 0417',
  'Amazon EU S.à r.l.',
  'Deutsche Bahn <online>',
  'SEPA DD Stadtwerke Düsseldorf',
  'Café "Zur Börse"',
  'Salary Müller & Söhne GmbH',
  'ATM withdrawal Ørestad',
  'Standing order: rent',
  'Card fee Q1 > 3 cards',
  'PayPal *Ærø Ferries',
  'Apotheke am Dom',
  'Transfer to Ångström, Zoë',
  'Interest credit',
];

const MONTHS: readonly string[] = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** Signed cents as "-1,234.56" / "+1,234.56". */
function signedMoney(cents: number): string {
  return `${cents < 0 ? '-' : '+'}${money(Math.abs(cents))}`;
}

/**
 * `rows` transactions spread over 2024 (dates ascending, so the period is the year whatever the
 * count), a running balance, descriptions kept to one line of the 88 mm column (at most 38
 * characters, as banks truncate them).
 */
function statementData(rows: number): Record<string, unknown> {
  const rnd = new Lcg(4242);
  const opening = 1_254_317; // cents
  let balance = opening;
  const start = Date.UTC(2024, 0, 1);
  const transactions = Array.from({ length: rows }, (_, i) => {
    const day = new Date(start + Math.floor((i * 366) / Math.max(rows, 1)) * 86_400_000);
    const payee = rnd.pick(PAYEES);
    // Salaries in, rent and card payments out: the balance drifts up slowly and stays positive.
    const cents = payee.startsWith('Salary')
      ? 200_000 + rnd.int(100_000)
      : payee.startsWith('Interest')
        ? 100 + rnd.int(2_000)
        : payee.startsWith('Standing order')
          ? -95_000
          : -(100 + rnd.int(25_000));
    balance += cents;
    return {
      date: day.toISOString().slice(0, 10),
      description: `${payee} ${String(100000 + rnd.int(900000))}`.slice(0, 38),
      amount: signedMoney(cents),
      balance: (balance < 0 ? '-' : '') + money(Math.abs(balance)),
    };
  });
  return {
    bank: {
      name: 'Nordbank Ørestad A/S',
      address: 'Ørestads Boulevard 7, 2300 København S, Danmark',
      bic: 'NORDDKKKXXX',
    },
    holder: {
      name: 'Zoë Ångström',
      street: 'Königsallee 27',
      city: '40212 Düsseldorf, Germany',
      joint: 'Joint holder: 山田 花子 (Yamada Hanako)',
      agent: 'Authorised agent: Пётр Ильич Чайковский',
    },
    account: {
      number: '4711 0815 42',
      iban: 'DK50 0040 0440 1162 43',
      product: 'Current account "Plus"',
      currency: 'EUR',
    },
    statement: {
      number: '2024/12',
      period_from: `1 ${MONTHS[0]} 2024`,
      period_to: `31 ${MONTHS[11]} 2024`,
    },
    opening_balance: money(opening),
    closing_balance: (balance < 0 ? '-' : '') + money(Math.abs(balance)),
    transactions,
    notes:
      'Please check this statement & tell us of any error within 30 days. Deposits are protected up to ' +
      'EUR 100,000 per depositor <Directive 2014/49/EU>. Questions? "Kundenservice" +45 70 12 34 56.',
  };
}

/**
 * The corpus deck (issue 41): the Impress-written slide-deck template of the tests
 * (test/fixtures/slides/deck.impress.pptx) with a `{%slide for item in items %}` loop of
 * `items` items (30 by default: 32 slides with the cover and the closing slide), each copy with
 * its own text, notes and photo (the gallery's six photographs in turn), the cover's table with
 * `items` rows, and the logo.
 */
export const DECK_ITEMS = 30;

export function deckTemplate(): Buffer {
  return readFileSync(join(__dirname, '../test/fixtures/slides/deck.impress.pptx'));
}

export function deckRequest(items = DECK_ITEMS): CorpusRequest {
  const photos = GALLERY_IMAGES.filter((f) => f.startsWith('photo-'));
  const list = Array.from({ length: items }, (_, i) => ({
    name: PRODUCTS[i % PRODUCTS.length],
    price: (9.5 + i * 3.25).toFixed(2),
    photo: photos[i % photos.length],
  }));
  return {
    template_data: {
      title: 'Quarterly review',
      customer: { name: 'Bench & Co' },
      date: '2026-03-15',
      rows: list.map((it) => ({ name: it.name, price: it.price })),
      items: list,
      closing: true,
    },
    images: Object.fromEntries(
      [...photos, 'logo.png'].map((f) => [f === 'logo.png' ? 'logo' : f, image(f, 40)]),
    ),
  } as CorpusRequest;
}

/**
 * The price list (.xlsx, issue 41): test/fixtures/spreadsheets/price-list.calc.xlsx (written by
 * openpyxl, saved by LibreOffice Calc; make-fixtures.py there), copied to bench/fixtures: a row
 * loop over `items` with a formula per row, a total below, a table, a conditional format, a
 * validation, defined names and a second sheet naming the total.
 */
export function priceListTemplate(): Buffer {
  return readFileSync(join(FIXTURES_DIR, 'price-list.xlsx'));
}

/** The price list's request: `rows` items (default 2,000), numbers as numbers (cells keep their type). */
export function priceListRequest(rows = 2000): CorpusRequest {
  const rnd = new Lcg(20260315);
  return {
    template_data: {
      customer: 'Café "Zur Börse" & Co',
      issued: '2026-03-15',
      vip: false,
      currency: 'EUR',
      items: Array.from({ length: rows }, (_, i) => ({
        name: `${rnd.pick(PRODUCTS)} ${1000 + i}`,
        qty: 1 + rnd.int(40),
        price: (150 + rnd.int(250000)) / 100,
      })),
    },
  };
}

/**
 * The chart deck (issue 41's charts in decks): PowerPoint's chart deck from python-pptx's tests
 * (test/fixtures/slides/python-pptx/shp-access-chart.pptx, a column chart with its embedded
 * workbook) with slide 1 in a `{%slide for item in regions %}` loop and its chart bound by its
 * alternative text, `{{ chart(item.history) }}`: one chart part and workbook per copy. Without
 * `withChart`, the same loop with the chart's frame taken out: the fill without charts.
 */
export function deckChartsTemplate(withChart = true): Buffer {
  const zip = new PizZip(
    readFileSync(join(__dirname, '../test/fixtures/slides/python-pptx/shp-access-chart.pptx')),
  );
  const text = ['{%slide for item in regions %}', 'Region {{ item.name }}', '{%slide endfor %}']
    .map((p) => `<a:p><a:r><a:rPr lang="en-US"/><a:t>${p}</a:t></a:r></a:p>`)
    .join('');
  let slide = zip
    .file('ppt/slides/slide1.xml')!
    .asText()
    .replace(
      '<p:cNvPr id="2" name="Chart 1"/>',
      '<p:cNvPr id="2" name="Chart 1" descr="{{ chart(item.history) }}"/>',
    )
    .replace(
      '</p:spTree>',
      `<p:sp><p:nvSpPr><p:cNvPr id="9" name="Text 9"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr/>` +
        `<p:txBody><a:bodyPr/><a:lstStyle/>${text}</p:txBody></p:sp></p:spTree>`,
    );
  if (!withChart) slide = slide.replace(/<p:graphicFrame>[\s\S]*?<\/p:graphicFrame>/, '');
  zip.file('ppt/slides/slide1.xml', slide);
  return zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** `items` regions, each with a chart of three series over twelve months. */
export function deckChartsRequest(items = DECK_ITEMS): CorpusRequest {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const regions = Array.from({ length: items }, (_, i) => ({
    name: `Region ${i + 1}`,
    history: {
      categories: months,
      series: ['2024', '2025', '2026'].map((name, s) => ({
        name,
        values: months.map((_, m) => 100 + ((i * 37 + s * 11 + m * 7) % 90)),
      })),
      title: `Region ${i + 1} sales`,
    },
  }));
  return { template_data: { regions } } as CorpusRequest;
}
