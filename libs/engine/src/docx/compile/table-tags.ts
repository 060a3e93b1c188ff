/**
 * Compile pass: docxtpl's table-cell tags, rewritten as docxtpl's patch_xml rewrites them.
 *
 * - `{% colspan n %}`: the cell's `w:gridSpan` becomes n.
 * - `{% cellbg 'FF0000' %}`: the cell's `w:shd` becomes that fill.
 * - `{% vm %}` in a loop: `w:vMerge` restart on the first iteration, continue after; the text
 *   up to the tag's end of text shows only on the first iteration.
 * - `{% hm %}` in a `{%tc for %}` loop: the first iteration's cell spans the loop's length (times
 *   its own span), the others are left out.
 *
 * The tag moves into the cell's `w:tcPr`, where it renders the property; `loop.first` tests are
 * added as synthetic if-blocks that the block tree folds like the author's own.
 */
import type { Expr } from '../../syntax/parser';
import { enclosing, isJinja, MODULE, type JinjaPart, type Part, type Report } from '../parts';
import { WORD } from '../../package/formats';

/** Word's elements (the package description's). */
const ELEMENTS = WORD.elements;

const CELL_TAGS = new Set(['vm', 'hm', 'colspan', 'cellbg']);
const LOOP_FIRST: Expr = { type: 'Attr', obj: { type: 'Name', name: 'loop' }, name: 'first' };

function isCellTag(p: Part): p is JinjaPart {
  return isJinja(p) && p.kind === 'block' && !!p.statement && CELL_TAGS.has(p.statement.type);
}

/** A block tag the compiler adds (it is nobody's text: never takes its paragraph away). */
function synthetic(from: JinjaPart, type: 'if' | 'endif'): JinjaPart {
  return {
    type: 'placeholder',
    module: MODULE,
    kind: 'block',
    value: '',
    source: from.source,
    context: from.context,
    filePath: from.filePath,
    trimLeft: false,
    trimRight: false,
    synthetic: true,
    statement: type === 'if' ? { type: 'if', test: LOOP_FIRST } : { type: 'endif' },
  };
}

const isTag = (p: Part, tag: string, position: string) =>
  p.type === 'tag' && p.tag === tag && p.position === position;

/** Removes the first element matching `re` from the content inside the cell's w:tcPr; returns it. */
function takeFromTcPr(parts: Part[], from: number, to: number, re: RegExp): string | undefined {
  for (let k = from; k < to; k++) {
    const p = parts[k];
    if (p.type !== 'content') continue;
    const m = re.exec(p.value);
    if (m) {
      parts[k] = { ...p, value: p.value.replace(re, '') };
      return m[0];
    }
  }
  return undefined;
}

/**
 * Where the text holding the tag ends, as docxtpl sees it: docxtpl first joins every tag split
 * across runs into the run it starts in, so the text after a split tag (and any tag starting
 * there) belongs to that first run's text. A placeholder's lIndex is where its tag ends.
 */
function endOfTagText(parts: Part[], index: number, limit: number): number {
  let bound = Number(parts[index].lIndex ?? -1);
  for (let k = index + 1; k < limit; k++) {
    const p = parts[k];
    if (isTag(p, ELEMENTS.text, 'end') && Number(p.lIndex ?? Infinity) > bound) return k;
    if (isJinja(p) && typeof p.lIndex === 'number') bound = Math.max(bound, p.lIndex);
  }
  return -1;
}

function rewriteCell(input: Part[], index: number, report: Report): Part[] {
  const tag = input[index] as JinjaPart;
  const type = tag.statement!.type;
  const tc = enclosing(input, index, ELEMENTS.cell);
  if (!tc) {
    report(tag, `a {% ${type} %} tag must be inside a table cell`);
    return input.filter((_p, i) => i !== index);
  }
  const parts = [...input];
  // The cell's w:tcPr, created when the cell has none.
  let tcPrStart = parts.findIndex((p, k) => k > tc[0] && k < tc[1] && isTag(p, 'w:tcPr', 'start'));
  if (tcPrStart < 0 || parts.slice(tc[0] + 1, tcPrStart).some((p) => p.type === 'tag')) {
    parts.splice(
      tc[0] + 1,
      0,
      { type: 'tag', tag: 'w:tcPr', position: 'start', text: false, value: '<w:tcPr>' },
      { type: 'tag', tag: 'w:tcPr', position: 'end', text: false, value: '</w:tcPr>' },
    );
    tcPrStart = tc[0] + 1;
    index += 2;
    tc[1] += 2;
  }
  const tcPrEnd = parts.findIndex((p, k) => k > tcPrStart && isTag(p, 'w:tcPr', 'end'));
  if (type === 'colspan') takeFromTcPr(parts, tcPrStart, tcPrEnd, /<w:gridSpan[^/]*\/>/);
  if (type === 'cellbg') takeFromTcPr(parts, tcPrStart, tcPrEnd, /<w:shd[^/]*\/>/);
  if (type === 'hm') {
    const span = takeFromTcPr(parts, tcPrStart, tcPrEnd, /<w:gridSpan w:val="(\d+)"\/>/);
    tag.cellSpan = span ? Number(/\d+/.exec(span)![0]) : 1;
  }
  const inserts: [number, Part][] = [[tcPrStart + 1, tag]];
  if (type === 'vm') {
    // As docxtpl: from the cell's first text to the end of the tag's text, first iteration only.
    const firstText = parts.findIndex((p, k) => k > tcPrEnd && k < tc[1] && isTag(p, ELEMENTS.text, 'start'));
    const textEnd = endOfTagText(parts, index, tc[1]);
    if (firstText >= 0 && textEnd >= 0) {
      inserts.push([firstText + 1, synthetic(tag, 'if')], [textEnd, synthetic(tag, 'endif')]);
    }
  }
  if (type === 'hm') inserts.push([tc[0], synthetic(tag, 'if')], [tc[1] + 1, synthetic(tag, 'endif')]);
  parts[index] = { type: 'content', value: '', position: 'insidetag' }; // the tag leaves its text
  inserts.sort((a, b) => b[0] - a[0]);
  for (const [at, p] of inserts) parts.splice(at, 0, p);
  return parts;
}

export function applyTableTags(parsed: Part[], report: Report): Part[] {
  let parts = parsed;
  const done = new Set<Part>();
  for (;;) {
    const i = parts.findIndex((p) => isCellTag(p) && !done.has(p));
    if (i < 0) return parts;
    done.add(parts[i]);
    parts = rewriteCell(parts, i, report);
  }
}
