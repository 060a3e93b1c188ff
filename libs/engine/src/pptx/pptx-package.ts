/** A deck's package checks (docx/format-package.ts): its words and the parts it must hold. */
import { SLIDE_TYPE } from '@app/ooxml';
import { openFormatPackage, type PackageChecks, type PackageOpenOptions } from '../docx/format-package';
import { PRESENTATION, PRESENTATION_PARTS } from '../package/formats';
import type { DocxPackage } from '../docx/package';

export type PresentationOpenOptions = PackageOpenOptions;

const DECK_CHECKS: PackageChecks = {
  format: PRESENTATION,
  parts: PRESENTATION_PARTS,
  extension: '.pptx',
  application: 'PowerPoint',
  xmlLabel: 'slide XML',
  xmlDetail: 'slide_xml_bytes',
  notMain: {
    message: 'The file is not a slide deck (.pptx): its main part is not a presentation',
    reason: 'not_presentation',
  },
  contentTypes: new Set([SLIDE_TYPE]),
  empty: { message: 'The deck has no slide: there is nothing to fill or print', reason: 'no_slide' },
  macrosRefused: 'Macro-enabled decks (.pptm) are not accepted here; save the template as .pptx',
};

export function openPresentationPackage(
  template: Buffer,
  options: PresentationOpenOptions = {},
): DocxPackage {
  return openFormatPackage(template, DECK_CHECKS, options);
}
