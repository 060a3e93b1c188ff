/**
 * Lints templates from the command line: every problem at once, without data.
 *
 *   npm run lint-template -- TEMPLATE.docx [MORE.docx …] [--json] [--pdf REPORT.pdf] [--verbose] [--fail-on-warnings]
 *
 * Prints each finding as `file:line:column: error_type: message` with its location and a
 * suggestion (or the JSON report with --json), and writes the PDF report with --pdf (one template
 * only; the configured converter). Exits 0 when every template passes, 1 when one fails, 2 for
 * wrong usage or an unreadable file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { isTypedError } from '@app/contracts';
import { converterConfigFromEnv, createConverter } from '@app/converters';
import {
  lintDocxTemplate,
  lintReportData,
  lintReportTemplate,
  renderDocx,
  type LintError,
  type LintReport,
  type LintWarning,
} from '@app/engine';

const USAGE =
  'usage: npm run lint-template -- TEMPLATE.docx [MORE.docx …] [--json] [--pdf REPORT.pdf] [--verbose] [--fail-on-warnings]\n';

interface Args {
  files: string[];
  json: boolean;
  pdf?: string;
  verbose: boolean;
  failOnWarnings: boolean;
}

function parseArgs(argv: string[]): Args | null {
  const args: Args = { files: [], json: false, verbose: false, failOnWarnings: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') args.json = true;
    else if (a === '--verbose') args.verbose = true;
    else if (a === '--fail-on-warnings') args.failOnWarnings = true;
    else if (a === '--pdf') {
      args.pdf = argv[++i];
      if (!args.pdf) return null;
    } else if (a.startsWith('--')) return null;
    else args.files.push(a);
  }
  if (!args.files.length || (args.pdf && args.files.length > 1)) return null;
  return args;
}

function describe(file: string, f: LintError | LintWarning): string {
  const kind = 'error_type' in f ? f.error_type : f.warning_type;
  const l = f.location;
  const cell = l?.table ? `, table ${l.table.table} row ${l.table.row} cell ${l.table.cell}` : '';
  const where = !l
    ? ''
    : l.sheet !== undefined
      ? `    in sheet ${l.sheet}, cell ${l.cell}\n`
      : l.slide !== undefined
        ? `    in slide ${l.slide}${l.shape ? `, shape ${l.shape}${l.shape_name ? ` (${l.shape_name})` : ''}` : ''} (${l.part}, paragraph ${l.paragraph}${cell})\n`
        : `    in ${l.part}, paragraph ${l.paragraph}${cell}\n`;
  return (
    `${file}:${f.line_number ?? '?'}:${f.column ?? '?'}: ${kind}: ${f.message}\n` +
    where +
    (f.context ? `    ${f.context}\n` : '') +
    (f.suggestion ? `    suggestion: ${f.suggestion}\n` : '')
  );
}

function printText(file: string, report: LintReport): void {
  for (const e of report.errors) process.stdout.write(describe(file, e));
  for (const w of report.warnings) process.stdout.write(describe(file, w));
  const s = report.summary;
  process.stdout.write(
    `${file}: ${report.success ? 'passed' : 'FAILED'} — ${s.total_errors} errors, ${s.total_warnings} warnings, ${s.jinja_tags_count} tags\n`,
  );
}

async function writePdf(report: LintReport, file: string, out: string): Promise<void> {
  const docx = renderDocx(lintReportTemplate(), { template_data: lintReportData(report, basename(file)) });
  const converter = createConverter(converterConfigFromEnv());
  try {
    writeFileSync(out, await converter.convert(docx));
  } finally {
    await converter.close();
  }
}

export async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (!args) {
    process.stderr.write(USAGE);
    return 2;
  }
  let failed = false;
  const reports: Record<string, LintReport> = {};
  for (const file of args.files) {
    let report: LintReport;
    try {
      report = lintDocxTemplate(readFileSync(file), {
        verbose: args.verbose,
        failOnWarnings: args.failOnWarnings,
      });
    } catch (e) {
      if (isTypedError(e)) {
        process.stderr.write(`${file}: ${JSON.stringify(e.toBody())}\n`);
        return 2;
      }
      const err = e as NodeJS.ErrnoException;
      if (err.code === 'ENOENT' || err.code === 'EACCES' || err.code === 'EISDIR') {
        process.stderr.write(`${err.message}\n`);
        return 2;
      }
      throw e;
    }
    failed ||= !report.success;
    reports[file] = report;
    if (!args.json) printText(file, report);
    if (args.pdf) await writePdf(report, file, args.pdf);
  }
  if (args.json) {
    const only = args.files.length === 1 ? reports[args.files[0]] : reports;
    process.stdout.write(JSON.stringify(only, null, 2) + '\n');
  }
  return failed ? 1 : 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`internal error: ${(e as Error).stack ?? e}\n`);
      process.exit(3);
    },
  );
}
