/**
 * A `template_data` a caller can start from, and a JSON Schema (2020-12) for it, built from the
 * variable paths a template uses: `customer.name` makes an object with a `name` string,
 * `items[].price` a list of objects with a numeric `price` when the template computes with it.
 */
import type { TemplateVariable } from './template-variables';

type Node =
  | { kind: 'object'; props: Map<string, Node>; variable?: TemplateVariable }
  | { kind: 'array'; item: Node | null; variable?: TemplateVariable }
  | { kind: 'leaf'; variable?: TemplateVariable };

function tree(variables: TemplateVariable[]): Node {
  const root: Node = { kind: 'object', props: new Map() };
  // Shorter paths first, so a container's own usage is known before its children arrive.
  for (const v of [...variables].sort((a, b) => a.segments.length - b.segments.length)) {
    let node: Node = root;
    v.segments.forEach((seg, i) => {
      const last = i === v.segments.length - 1;
      const nextIsElement = v.segments[i + 1] === '[]';
      if (seg === '[]') {
        if (node.kind !== 'array') return;
        if (!node.item || (!last && node.item.kind === 'leaf'))
          node.item = last ? { kind: 'leaf', variable: v } : { kind: 'object', props: new Map() };
        node = node.item;
        return;
      }
      if (node.kind !== 'object') return;
      let child = node.props.get(seg);
      const wantArray = nextIsElement || (last && v.usages.includes('looped') && !v.mapping);
      const wantObject = (!last && !nextIsElement) || (last && v.mapping);
      if (!child || (child.kind === 'leaf' && (wantArray || wantObject))) {
        child = wantArray
          ? { kind: 'array', item: null, variable: child?.variable }
          : wantObject
            ? { kind: 'object', props: new Map(), variable: child?.variable }
            : { kind: 'leaf' };
        node.props.set(seg, child);
      }
      if (last) child.variable = v;
      node = child;
    });
  }
  return root;
}

function leafValue(v: TemplateVariable | undefined): unknown {
  if (!v) return '';
  if (v.numeric) return 0;
  if (v.usages.includes('image')) return v.segments.length === 1 ? '' : 'image-name';
  if (v.usages.every((u) => u === 'tested')) return true;
  return '';
}

function skeletonOf(node: Node): unknown {
  if (node.kind === 'leaf') return leafValue(node.variable);
  if (node.kind === 'array') return node.item ? [skeletonOf(node.item)] : [''];
  const out: Record<string, unknown> = {};
  for (const [k, child] of node.props) out[k] = skeletonOf(child);
  return out;
}

function usageNote(v: TemplateVariable | undefined): string | undefined {
  return v ? `${v.usages.join(', ')} (${v.path})` : undefined;
}

function schemaOf(node: Node): Record<string, unknown> {
  const description = usageNote(node.variable);
  const withNote = (s: Record<string, unknown>) => (description ? { ...s, description } : s);
  if (node.kind === 'array') return withNote({ type: 'array', items: node.item ? schemaOf(node.item) : {} });
  if (node.kind === 'object') {
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    for (const [k, child] of node.props) {
      properties[k] = schemaOf(child);
      const v = child.variable;
      const onlyTested = v ? v.usages.every((u) => u === 'tested') : false;
      if (!v || (!v.optional && !onlyTested)) required.push(k);
    }
    return withNote({ type: 'object', properties, ...(required.length ? { required } : {}) });
  }
  const v = node.variable;
  if (v?.numeric) return withNote({ type: 'number' });
  if (v?.usages.includes('image')) return withNote({ type: 'string' }); // the name of an image in `images`
  if (v && v.usages.every((u) => u === 'tested')) return withNote({});
  return withNote({ type: ['string', 'number', 'boolean', 'null'] });
}

/** Image placeholders (`{{ logo }}`) are filled from `images`, not `template_data`. */
function dataVariables(variables: TemplateVariable[], placeholders: ReadonlySet<string>): TemplateVariable[] {
  return variables.filter((v) => !(v.segments.length === 1 && placeholders.has(v.segments[0])));
}

export function dataSkeleton(
  variables: TemplateVariable[],
  placeholders: ReadonlySet<string>,
): Record<string, unknown> {
  return skeletonOf(tree(dataVariables(variables, placeholders))) as Record<string, unknown>;
}

export function dataJsonSchema(
  variables: TemplateVariable[],
  placeholders: ReadonlySet<string>,
): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'template_data',
    ...schemaOf(tree(dataVariables(variables, placeholders))),
  };
}
