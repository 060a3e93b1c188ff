import { Value } from '@sinclair/typebox/value';
import { PdfOptionsSchema } from '../pdf-options';
import {
  EnhancedRequestSchema,
  ImageDataSchema,
  REQUEST_SCHEMAS,
  RenderOptionsSchema,
} from './render-request';
import { checkPayload, fieldsOf, openApiSchemas, toOpenApi } from './schema';

describe('one definition per payload', () => {
  it('names each problem by its field, an own __proto__ key included', () => {
    const value = JSON.parse('{"width_mm":0,"__proto__":{"data":"x"},"dpi":3}');
    expect(checkPayload(ImageDataSchema, value, 'images.logo')).toEqual([
      { field: 'images.logo.data', problems: ['data must be a non-empty string'] },
      { field: 'images.logo.__proto__', problems: ['__proto__ should not exist'] },
      { field: 'images.logo.dpi', problems: ['dpi should not exist'] },
      { field: 'images.logo.width_mm', problems: ['width_mm must be a positive number'] },
    ]);
    expect(checkPayload(ImageDataSchema, 'x', 'images.logo')).toEqual([
      { field: 'images.logo', problems: ["logo must be an object with 'data'"] },
    ]);
    expect(checkPayload(ImageDataSchema, { data: 'iVBOR', width_px: 3 }, 'images.a')).toEqual([]);
  });

  it('documents in OpenAPI exactly the fields the validation accepts', () => {
    const documented = openApiSchemas(REQUEST_SCHEMAS);
    for (const schema of REQUEST_SCHEMAS) {
      if (schema.type !== 'object') continue; // PdfFiles: a list of PDFs
      const name = String((schema as { $id?: string }).$id);
      const doc = documented[name] as { properties: object; additionalProperties: boolean };
      expect(Object.keys(doc.properties)).toEqual(fieldsOf(schema));
      expect(doc.additionalProperties).toBe(false);
      // A value with one more key is refused: what is documented is all there is.
      const extra = checkPayload(schema, { zz_unknown: 1 }, 'x');
      expect(extra.map((p) => p.field)).toContain('x.zz_unknown');
    }
  });

  it('writes OpenAPI 3.0: enums, references to named schemas, maps, exclusive minimums', () => {
    const options = toOpenApi(RenderOptionsSchema) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(options.properties.undefined).toMatchObject({
      type: 'string',
      enum: ['empty', 'strict', 'debug', 'property_missing'],
    });
    expect(options.properties.pdf).toEqual({ $ref: '#/components/schemas/PdfOptions' });
    expect(options).not.toHaveProperty('problem');
    const request = toOpenApi(EnhancedRequestSchema) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(request.required).toEqual(['template_data']);
    expect(request.properties.images.additionalProperties).toEqual({
      $ref: '#/components/schemas/ImageData',
    });
    expect(request.properties.template_data.additionalProperties).toBe(true);
    const image = toOpenApi(ImageDataSchema) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(image.properties.width_mm).toEqual({ type: 'number', minimum: 0, exclusiveMinimum: true });
    const pdf = toOpenApi(PdfOptionsSchema) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(pdf.properties.max_image_resolution).toMatchObject({
      type: 'integer',
      enum: [75, 150, 300, 600, 1200],
    });
  });

  it('accepts what its example shows', () => {
    expect(Value.Check(EnhancedRequestSchema, { template_data: {}, options: { output: 'docx' } })).toBe(true);
  });
});
