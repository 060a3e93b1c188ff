/**
 * What a template expects, without data: its variables and how each is used, its loops,
 * conditions and images, a `template_data` skeleton to start from and a JSON Schema for it
 * (what docxtpl's get_undeclared_template_variables and docxtemplater's Inspect module give).
 */
import { checkDocxTemplate, type TemplateLimits } from '../docx/package';
import { dataJsonSchema, dataSkeleton } from './data-skeleton';
import { templateOutline } from './template-outline';
import type { TemplateInspection } from './inspection-schema';
import { templateVariables } from './template-variables';
import { signatureFieldCalls } from './signature-field-calls';

export type { TemplateInspection };

/** A 1×1 transparent PNG: the skeleton's stand-in for an image the caller supplies. */
const PLACEHOLDER_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export function inspectTemplate(template: Buffer, limits: Partial<TemplateLimits> = {}): TemplateInspection {
  const outline = templateOutline(checkDocxTemplate(template, limits));
  const found = templateVariables(outline);
  const placeholders = new Set(found.images.filter((i) => i.kind === 'placeholder').map((i) => i.name));
  const images: Record<string, unknown> = {};
  for (const name of placeholders) images[name] = { data: PLACEHOLDER_PNG, width_mm: 40 };
  return {
    variables: found.variables.map(({ segments: _segments, ...v }) => v),
    loops: found.loops,
    conditions: found.conditions,
    images: found.images,
    signature_fields: outline.tags.flatMap((t) =>
      signatureFieldCalls(t).map(({ problem: _problem, ...call }) => ({
        ...call,
        tag: t.source,
        location: t.location,
      })),
    ),
    skeleton: { template_data: dataSkeleton(found.variables, placeholders), images },
    json_schema: dataJsonSchema(found.variables, placeholders),
    summary: {
      tags: outline.tags.length,
      variables: found.variables.length,
      loops: found.loops.length,
      conditions: found.conditions.length,
      images: found.images.length,
      parts: [...new Set(outline.paragraphs.map((p) => p.part))],
    },
  };
}
