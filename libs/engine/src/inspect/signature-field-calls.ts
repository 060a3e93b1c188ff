/**
 * The `signature_field(…)` calls a template's tags make, read without data: for inspect-template
 * (the places a template offers) and lint (a call that fails every render).
 */
import type { Expr } from '../syntax/parser';
import { PyFloat } from '../syntax/literals';
import {
  SIGNATURE_FIELD_DEFAULT_MM,
  SIGNATURE_FIELD_MAX_MM,
  SIGNATURE_FIELD_MIN_MM,
  signatureFieldNameProblem,
} from '../format/signature-fields';
import type { TemplateTag } from './template-outline';

export interface SignatureFieldCall {
  /** The name when written as a literal; null when the template computes it (`'signer_' ~ loop.index`). */
  name: string | null;
  /** Millimetres when literal (or the default); null when computed. */
  width_mm: number | null;
  height_mm: number | null;
  /** What makes every render of this call fail, if anything. */
  problem?: string;
}

type Call = Extract<Expr, { type: 'Call' }>;

/** Every Call node naming signature_field in an expression tree. */
function callsIn(node: unknown, out: Call[]): Call[] {
  if (!node || typeof node !== 'object') return out;
  if (Array.isArray(node)) {
    for (const n of node) callsIn(n, out);
    return out;
  }
  const e = node as Expr;
  if (e.type === 'Call' && e.callee.type === 'Name' && e.callee.name === 'signature_field') out.push(e);
  for (const v of Object.values(node)) callsIn(v, out);
  return out;
}

const constOf = (e: Expr | undefined): { value: unknown } | undefined =>
  e?.type === 'Const' ? { value: e.value instanceof PyFloat ? e.value.value : e.value } : undefined;

function size(e: Expr | undefined, key: string, fallback: number): { mm: number | null; problem?: string } {
  if (!e) return { mm: fallback };
  const c = constOf(e);
  if (!c) return { mm: null };
  const v = c.value;
  if (typeof v !== 'number' || v < SIGNATURE_FIELD_MIN_MM || v > SIGNATURE_FIELD_MAX_MM)
    return {
      mm: null,
      problem: `${key} must be a number from ${SIGNATURE_FIELD_MIN_MM} to ${SIGNATURE_FIELD_MAX_MM} (millimetres)`,
    };
  return { mm: v };
}

function readCall(call: Call): SignatureFieldCall {
  const kw = new Map(call.kwargs);
  const problems: string[] = [];
  for (const [key] of call.kwargs)
    if (key !== 'width_mm' && key !== 'height_mm') problems.push(`unknown argument ${key}`);
  const nameExpr = call.args[0];
  let name: string | null = null;
  if (!nameExpr) problems.push('the field name is missing');
  else {
    const c = constOf(nameExpr);
    if (c) {
      const problem = signatureFieldNameProblem(c.value);
      if (problem) problems.push(problem);
      else name = c.value as string;
    }
  }
  const width = size(call.args[1] ?? kw.get('width_mm'), 'width_mm', SIGNATURE_FIELD_DEFAULT_MM.width);
  const height = size(call.args[2] ?? kw.get('height_mm'), 'height_mm', SIGNATURE_FIELD_DEFAULT_MM.height);
  for (const s of [width, height]) if (s.problem) problems.push(s.problem);
  return {
    name,
    width_mm: width.mm,
    height_mm: height.mm,
    ...(problems.length ? { problem: problems.join('; ') } : {}),
  };
}

/** The signature_field calls of `tag`, in the order written. */
export function signatureFieldCalls(tag: TemplateTag): SignatureFieldCall[] {
  if (tag.syntaxError) return [];
  return callsIn([tag.expr, tag.statement], []).map(readCall);
}
