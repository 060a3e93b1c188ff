/**
 * What the API checked before in this process, so a template or image sent again is not checked
 * again: templates that passed checkDocxTemplate (3.5 ms for a Word-made invoice with its 800 KB
 * of styles, which inflates and scans every part) and PNGs whose pixels decoded (pngjs; ~60 ms for
 * a 3.6 MB photo). Remembered by SHA-256 of their bytes (libs/engine's RecentDigests), passes
 * only, bounded.
 */
import { RecentDigests } from '@app/engine';

export class CheckedTemplates extends RecentDigests {}

export class DecodedImages extends RecentDigests {}
