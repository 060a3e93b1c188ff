/**
 * The benchmark's bank statement (bench/fixtures/statement.docx, the long document of issue 28's
 * measurements, bench:bigdocs): its data adds up, docxtpl fills the template to the same text as
 * renderDocx does, and its PDF, converted by the real LibreOffice pool after the fill the worker
 * does, has what a statement's pages need: the header row on every page, "Page i of N" from the
 * footer's PAGE and NUMPAGES fields, and every transaction on one line of its own.
 */
import { execFileSync } from 'node:child_process';
import { libreOfficePasses, LibreOfficePool } from '@app/converters';
import { renderDocx, type RenderRequest } from '@app/engine';
import { corpusRequest, corpusTemplate } from '../bench/corpus';
import { pdfPageCount } from './support/converter-fixtures';
import { renderWithDocxtpl } from './support/docxtpl';
import { docxText } from './support/docx-text';

interface Transaction {
  date: string;
  description: string;
  amount: string;
  balance: string;
}

function statement(rows: number): { data: Record<string, unknown>; transactions: Transaction[] } {
  const data = corpusRequest('statement', { rows }).template_data;
  return { data, transactions: data.transactions as Transaction[] };
}

/** "-1,234.56", "+1,234.56" or "1,234.56" as cents. */
function cents(money: string): number {
  const m = /^([-+]?)(\d{1,3}(?:,\d{3})*)\.(\d\d)$/.exec(money);
  if (!m) throw new Error(`not money: ${money}`);
  const value = Number(m[2].replaceAll(',', '')) * 100 + Number(m[3]);
  return m[1] === '-' ? -value : value;
}

describe('the statement data', () => {
  it.each([1, 7, 1000])(
    '%i rows: dates ascending in 2024, one-line descriptions, a running balance',
    (rows) => {
      const { data, transactions } = statement(rows);
      expect(transactions).toHaveLength(rows);
      expect(transactions[0].date).toBe('2024-01-01');
      let balance = cents(data.opening_balance as string);
      let previous = '';
      for (const t of transactions) {
        expect(t.date >= previous && t.date <= '2024-12-31').toBe(true);
        previous = t.date;
        expect(t.description.length).toBeLessThanOrEqual(38);
        balance += cents(t.amount);
        expect(cents(t.balance)).toBe(balance);
      }
      expect(cents(data.closing_balance as string)).toBe(balance);
    },
  );

  it('spans the year at 1,000 rows, with XML-special characters in some descriptions', () => {
    const { transactions } = statement(1000);
    expect(transactions.at(-1)!.date).toBe('2024-12-31');
    for (const ch of ['&', '<', '>', '"'])
      expect(transactions.some((t) => t.description.includes(ch))).toBe(true);
  });
});

describe('docxtpl', () => {
  it('fills the template to the same text as renderDocx (body, header, footer)', () => {
    // docxtpl's InlineImage needs its own object: the logo as text here; the rest as sent.
    const { data, transactions } = statement(60);
    const context = { ...data, logo: '[logo]' };
    const theirs = docxText(renderWithDocxtpl(corpusTemplate('statement'), context));
    const ours = docxText(renderDocx(corpusTemplate('statement'), { template_data: context }));
    expect(ours).toEqual(theirs);
    const body = ours.body.join('\n');
    for (const t of [transactions[0], transactions[59]]) expect(body).toContain(t.description);
    expect(ours.headers.flat().join('\n')).toContain('[logo]  Nordbank Ørestad A/S');
  });
});

describe('the PDF', () => {
  let pool: LibreOfficePool;

  beforeAll(async () => {
    pool = new LibreOfficePool({ instances: 1 });
    await pool.start();
  }, 120_000);

  afterAll(async () => {
    await pool?.close();
  });

  it('repeats the header row on every page, numbers pages "i of N", one line per transaction', async () => {
    const rows = 150;
    const request = corpusRequest('statement', { rows }) as RenderRequest;
    // As the worker fills for a PDF: table styles resolved into direct formatting.
    const docx = renderDocx(corpusTemplate('statement'), request, {
      packagePasses: libreOfficePasses({ resolveTableStyles: true }),
    });
    const pdf = await pool.convert(docx, { jobId: 'statement-150', timeoutMs: 120_000 });
    const pageCount = pdfPageCount(pdf);
    expect(pageCount).toBeGreaterThanOrEqual(3);
    const pages = execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', '-', '-'], {
      input: pdf,
      maxBuffer: 1 << 26,
    })
      .toString('utf8')
      .split('\f')
      .slice(0, pageCount);
    const transactions = request.template_data.transactions as Transaction[];
    let seen = 0;
    pages.forEach((page, i) => {
      expect({ page: i + 1, header: /^\s*Date\s+Description\s+Amount\s+Balance\s*$/m.test(page) }).toEqual({
        page: i + 1,
        header: true,
      });
      expect(page).toContain(`Page ${i + 1} of ${pageCount}`);
      // A transaction's four cells on one line, in order.
      for (const line of page.split('\n')) {
        const m = /^\s*(2024-\d\d-\d\d)\s{2,}(.+?)\s{2,}([-+][\d,]+\.\d\d)\s{2,}([\d,]+\.\d\d)\s*$/.exec(
          line,
        );
        if (!m) continue;
        const t = transactions[seen++];
        expect([m[1], m[2], m[3], m[4]]).toEqual([t.date, t.description, t.amount, t.balance]);
      }
    });
    expect(seen).toBe(rows);
    expect(pages.at(-1)).toContain(`(${rows} transactions)`);
  }, 300_000);
});
