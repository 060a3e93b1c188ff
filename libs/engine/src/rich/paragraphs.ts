/**
 * The JSON forms `{"$rich": [run, …]}` and `{"$paragraphs": [{style, align, runs}, …]}` as the
 * model, from a closed list of properties: every value is checked (colours, sizes, underline and
 * highlight names, link schemes); an unknown property is an error, so a typo is not silently lost.
 */
import { JinjaRuntimeError } from '../runtime/ops';
import { getOwn, isDict, isNumber, num, type Value } from '../runtime/values';
import type { Align, Inline, ParagraphBlock, RunProps } from './model';

const UNDERLINES = new Set([
  'single',
  'words',
  'double',
  'thick',
  'dotted',
  'dottedHeavy',
  'dash',
  'dashedHeavy',
  'dashLong',
  'dashLongHeavy',
  'dotDash',
  'dashDotHeavy',
  'dotDotDash',
  'dashDotDotHeavy',
  'wave',
  'wavyHeavy',
  'wavyDouble',
  'none',
]);
export const HIGHLIGHTS = new Set([
  'black',
  'blue',
  'cyan',
  'green',
  'magenta',
  'red',
  'yellow',
  'white',
  'darkBlue',
  'darkCyan',
  'darkGreen',
  'darkMagenta',
  'darkRed',
  'darkYellow',
  'darkGray',
  'lightGray',
  'none',
]);
const ALIGNS: Record<string, Align> = {
  left: 'left',
  center: 'center',
  right: 'right',
  justify: 'both',
  both: 'both',
};
const RUN_KEYS = new Set([
  'text',
  'bold',
  'italic',
  'underline',
  'strike',
  'color',
  'highlight',
  'size',
  'font',
  'style',
  'superscript',
  'subscript',
  'url',
  'rtl',
  'lang',
]);
const PARAGRAPH_KEYS = new Set(['style', 'align', 'runs']);
const MAX_NAME = 100;

function fail(message: string): never {
  throw new JinjaRuntimeError(message);
}

/** `RRGGBB` (a leading `#` is tolerated, as docxtpl does), upper case; else an error. */
export function checkColor(v: Value, where: string): string {
  if (typeof v === 'string' && /^#?[0-9A-Fa-f]{6}$/.test(v)) return v.replace('#', '').toUpperCase();
  return fail(`${where} must be a colour "RRGGBB"`);
}

/** http, https and mailto only: anything else (javascript:, file:, data:, relative) is refused. */
export function checkUrl(v: Value, where: string): string {
  if (typeof v !== 'string' || v.length > 2048)
    return fail(`${where} must be a link of at most 2048 characters`);
  const url = v.trim();
  if (!/^(https?:\/\/[^\s]+|mailto:[^\s]+)$/i.test(url))
    fail(`${where}: only http, https and mailto links are allowed (got '${url.slice(0, 60)}')`);
  return url;
}

function name(v: Value, where: string): string {
  // eslint-disable-next-line no-control-regex -- names with control characters are refused
  if (typeof v !== 'string' || !v.trim() || v.length > MAX_NAME || /[\u0000-\u001f]/.test(v))
    fail(`${where} must be a name of 1 to ${MAX_NAME} characters`);
  return v.trim();
}

function bool(v: Value, where: string): boolean {
  if (typeof v !== 'boolean') fail(`${where} must be true or false`);
  return v;
}

/** One run object (or a plain string) of `$rich` / `runs`. */
export function parseRun(v: Value, where: string): Inline {
  if (typeof v === 'string') return { kind: 'text', text: v, props: {} };
  if (!isDict(v)) return fail(`${where} must be an object with "text"`);
  const props: RunProps = {};
  let text = '';
  for (const key of Object.keys(v)) {
    const x = getOwn(v, key)!;
    const at = `${where}.${key}`;
    if (!RUN_KEYS.has(key)) fail(`${where} has an unknown property '${key.slice(0, 40)}'`);
    if (x === null) continue;
    switch (key) {
      case 'text':
        if (typeof x !== 'string' && !isNumber(x)) fail(`${at} must be a string`);
        text = typeof x === 'string' ? x : String(num(x));
        break;
      case 'bold':
      case 'italic':
      case 'strike':
      case 'rtl':
        props[key] = bool(x, at);
        break;
      case 'superscript':
      case 'subscript':
        if (bool(x, at)) props.vertAlign = key;
        break;
      case 'underline':
        if (x === true) props.underline = 'single';
        else if (typeof x === 'string' && UNDERLINES.has(x)) props.underline = x;
        else if (x !== false) fail(`${at} must be true or a Word underline name (single, double, wave, …)`);
        break;
      case 'color':
        props.color = checkColor(x, at);
        break;
      case 'highlight':
        if (typeof x !== 'string' || !HIGHLIGHTS.has(x))
          fail(`${at} must be a Word highlight colour (yellow, green, cyan, lightGray, …)`);
        props.highlight = x;
        break;
      case 'size': {
        const pt = isNumber(x) ? num(x) : NaN;
        if (!(pt >= 1 && pt <= 1638)) fail(`${at} must be a size in points between 1 and 1638`);
        props.halfPoints = Math.round(pt * 2);
        break;
      }
      case 'font':
        props.font = name(x, at);
        break;
      case 'style':
        props.style = name(x, at);
        break;
      case 'url':
        props.url = checkUrl(x, at);
        break;
      case 'lang':
        if (typeof x !== 'string' || !/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8}){0,4}$/.test(x))
          fail(`${at} must be a language tag such as "en-GB"`);
        props.lang = x;
        break;
    }
  }
  return { kind: 'text', text, props };
}

export function parseRuns(v: Value, where: string): Inline[] {
  if (!Array.isArray(v)) return fail(`${where} must be a list of runs`);
  return v.map((run, i) => parseRun(run, `${where}[${i}]`));
}

export function parseParagraphs(v: Value): ParagraphBlock[] {
  if (!Array.isArray(v)) return fail('$paragraphs must be a list of paragraphs');
  return v.map((para, i): ParagraphBlock => {
    const where = `$paragraphs[${i}]`;
    if (typeof para === 'string')
      return { kind: 'paragraph', inlines: [{ kind: 'text', text: para, props: {} }] };
    if (!isDict(para)) return fail(`${where} must be an object with "runs"`);
    const block: ParagraphBlock = { kind: 'paragraph', inlines: [] };
    for (const key of Object.keys(para)) {
      const x = getOwn(para, key)!;
      if (!PARAGRAPH_KEYS.has(key)) fail(`${where} has an unknown property '${key.slice(0, 40)}'`);
      if (x === null) continue;
      if (key === 'style') block.style = name(x, `${where}.style`);
      else if (key === 'runs') block.inlines = parseRuns(x, `${where}.runs`);
      else if (typeof x === 'string' && Object.prototype.hasOwnProperty.call(ALIGNS, x))
        block.align = ALIGNS[x];
      else fail(`${where}.align must be left, center, right or justify`);
    }
    return block;
  });
}
