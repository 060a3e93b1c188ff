/**
 * LibreOffice's preparation of a filled .docx: the passes an output format's row runs on the
 * package before the converter sees it (libs/pipeline's output-formats.ts). They run inside the
 * fill, on the zip the engine has open (RenderOptions.packagePasses), so nothing is zipped twice
 * and a large fill's passes run on its fill thread too.
 */
import { readStylesPart, type StylesPart } from '@app/engine';
import type PizZip from 'pizzip';
import { checkTableCells } from './table-cells';
import { resolveTableStyles } from './table-styles';
import { pruneUnusedStyles } from './unused-styles';

/** The deployment's choices for the preparation (plain data: it crosses to a fill thread). */
export interface PrepareSettings {
  /** Table cells the filled document may hold (MAX_TABLE_CELLS, ASYNC_MAX_TABLE_CELLS). None when unset. */
  maxTableCells?: number;
  /**
   * Write every table style (its conditional formats, tblLook, banding) as direct formatting:
   * LibreOffice imports long tables about twice as fast so (docs/conversion.md; RESOLVE_TABLE_STYLES).
   */
  resolveTableStyles?: boolean;
  /**
   * With resolveTableStyles: a table whose style shades every cell or sets a font size keeps its
   * style (table-styles.ts) unless it has this many rows or more: the converter's SPLIT_MIN_ROWS,
   * as split conversion cuts only tables without a style. Default: always kept.
   */
  resolveAllTableStylesFromRows?: number;
  /**
   * Leave out the styles no part uses, and Word's latent styles: LibreOffice imports every style,
   * a quarter of a one-page Word-made invoice's conversion (unused-styles.ts; PRUNE_UNUSED_STYLES).
   */
  pruneUnusedStyles?: boolean;
}

/**
 * The preparation a deployment's settings ask for (RESOLVE_TABLE_STYLES with the converter's
 * SPLIT_MIN_ROWS, PRUNE_UNUSED_STYLES), as the worker and the command line both hand it to the
 * pipeline. The cell budget is the caller's own: a job's item has another.
 */
export function preparationOf(settings: {
  resolveTableStyles?: boolean;
  resolveAllTableStylesFromRows?: number;
  pruneUnusedStyles?: boolean;
}): PrepareSettings {
  return {
    ...(settings.resolveTableStyles
      ? { resolveTableStyles: true, resolveAllTableStylesFromRows: settings.resolveAllTableStylesFromRows }
      : {}),
    ...(settings.pruneUnusedStyles ? { pruneUnusedStyles: true } : {}),
  };
}

/** What one fill's passes share: the settings, and styles.xml read and hashed once. */
export interface PrepareContext {
  settings: PrepareSettings;
  styles(): StylesPart | undefined;
}

/** One preparation pass: a name (for docs and logs) and what it does to the package. */
export interface PreparePass {
  name: string;
  run(zip: PizZip, ctx: PrepareContext): void;
}

/** Refuses, typed, what LibreOffice could not convert within the budget: before any conversion. */
export const CELL_BUDGET: PreparePass = {
  name: 'cell_budget',
  run: (zip, { settings }) => {
    if (settings.maxTableCells !== undefined) checkTableCells(zip, settings.maxTableCells);
  },
};

/** The look of the table styles as direct formatting, which LibreOffice imports faster. */
export const TABLE_STYLES: PreparePass = {
  name: 'table_styles',
  run: (zip, ctx) => {
    if (ctx.settings.resolveTableStyles)
      resolveTableStyles(zip, ctx.styles(), { allFromRows: ctx.settings.resolveAllTableStylesFromRows });
  },
};

/** After TABLE_STYLES: the table styles it wrote out are no longer named. */
export const UNUSED_STYLES: PreparePass = {
  name: 'unused_styles',
  run: (zip, ctx) => {
    if (ctx.settings.pruneUnusedStyles) pruneUnusedStyles(zip, ctx.styles());
  },
};

/** LibreOffice's preparation, in order: the budget first, so a refusal costs nothing more. */
export const LIBREOFFICE_PREPARE: readonly PreparePass[] = [CELL_BUDGET, TABLE_STYLES, UNUSED_STYLES];

/**
 * The passes bound to one fill's settings, as the engine takes them (RenderOptions.packagePasses).
 * Both style passes key their caches on styles.xml, which neither changes: it is read once.
 */
export function packagePasses(
  passes: readonly PreparePass[],
  settings: PrepareSettings,
): ((zip: PizZip) => void)[] {
  // By package, weakly: the passes may outlive the fill (kept in its options), its document not.
  const read = new WeakMap<PizZip, { part: StylesPart | undefined }>();
  const stylesOf = (zip: PizZip) => {
    let entry = read.get(zip);
    if (!entry) read.set(zip, (entry = { part: readStylesPart(zip) }));
    return entry.part;
  };
  return passes.map((pass) => (zip: PizZip) => pass.run(zip, { settings, styles: () => stylesOf(zip) }));
}

/** LIBREOFFICE_PREPARE bound to `settings`: the engine's packagePasses for a .docx headed to LibreOffice. */
export function libreOfficePasses(settings: PrepareSettings): ((zip: PizZip) => void)[] {
  return packagePasses(LIBREOFFICE_PREPARE, settings);
}
