/** A workbook's package checks (docx/format-package.ts): its words and the parts it must hold. */
import { openFormatPackage, type PackageChecks, type PackageOpenOptions } from '../docx/format-package';
import { SPREADSHEET, SPREADSHEET_PARTS } from '../package/formats';
import type { DocxPackage } from '../docx/package';

export type SpreadsheetOpenOptions = PackageOpenOptions;

const WORKBOOK_CHECKS: PackageChecks = {
  format: SPREADSHEET,
  parts: SPREADSHEET_PARTS,
  extension: '.xlsx',
  application: 'Excel',
  xmlLabel: 'spreadsheet XML',
  xmlDetail: 'sheet_xml_bytes',
  notMain: {
    message: 'The file is not a spreadsheet (.xlsx): its main part is not a workbook',
    reason: 'not_spreadsheet',
  },
  // A worksheet (a chartsheet or dialog sheet alone is no table to fill).
  contentTypes: new Set(['application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml']),
  empty: {
    message: 'The workbook has no worksheet: there is nothing to fill or print',
    reason: 'no_worksheet',
  },
  macrosRefused: 'Macro-enabled workbooks (.xlsm) are not accepted here; save the template as .xlsx',
};

export function openSpreadsheetPackage(template: Buffer, options: SpreadsheetOpenOptions = {}): DocxPackage {
  return openFormatPackage(template, WORKBOOK_CHECKS, options);
}
