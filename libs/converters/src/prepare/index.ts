export {
  CELL_BUDGET,
  LIBREOFFICE_PREPARE,
  libreOfficePasses,
  packagePasses,
  TABLE_STYLES,
  UNUSED_STYLES,
  preparationOf,
  type PrepareContext,
  type PreparePass,
  type PrepareSettings,
} from './passes';
export { checkTableCells, countTableCells } from './table-cells';
export { resolveTableStyles } from './table-styles';
export { pruneUnusedStyles } from './unused-styles';
