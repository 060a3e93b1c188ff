/**
 * Stored templates and API keys (docs/templates.md): the forms and bodies their routes take and
 * the answers they give, defined once (type, validation, OpenAPI).
 */
import { Type, type Static } from '@sinclair/typebox';

export const TemplateFormSchema = Type.Object(
  {
    file: Type.String({ format: 'binary', description: 'The .docx template' }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    labels: Type.Optional(
      Type.String({
        description: 'A JSON array of strings, or labels separated by commas',
        examples: ['["billing"]'],
      }),
    ),
    sample_data: Type.Optional(
      Type.String({ description: 'JSON: a request_data (or template_data) the playground previews with' }),
    ),
  },
  { $id: 'TemplateForm' },
);

export const TemplateVersionFormSchema = Type.Object(
  {
    file: Type.String({ format: 'binary', description: 'The .docx template' }),
    publish: Type.Optional(
      Type.String({
        enum: ['true', 'false'],
        description: '`true`: make it current if lint finds no errors',
      }),
    ),
  },
  { $id: 'TemplateVersionForm' },
);

export const TemplateVersionRefSchema = Type.Object(
  {
    number: Type.Integer({ minimum: 1 }),
    digest: Type.String({ description: 'SHA-256 of the .docx, hex' }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'TemplateVersionRef' },
);

export const TemplateVersionSchema = Type.Object(
  {
    number: Type.Integer({ minimum: 1 }),
    digest: Type.String(),
    size: Type.Integer(),
    media_type: Type.String({
      description:
        "The file's format, told by its package's content types: a Word document, a workbook (.xlsx) or a slide deck (.pptx)",
      example: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    }),
    created_at: Type.String({ format: 'date-time' }),
    created_by: Type.Union([
      Type.String({ description: 'The id of the API key (never the key)' }),
      Type.Null(),
    ]),
  },
  { $id: 'TemplateVersion' },
);

export const TemplateUploadAnswerSchema = Type.Object(
  {
    template_id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    version: TemplateVersionRefSchema,
    published: Type.Boolean({ description: 'Whether this version is now the current one' }),
    lint: Type.Object(
      {},
      { additionalProperties: true, description: 'As POST /api/v1/lint-docx-template (JSON)' },
    ),
    inspection: Type.Object(
      {},
      { additionalProperties: true, description: 'As POST /api/v1/inspect-template' },
    ),
  },
  { $id: 'TemplateUploadAnswer' },
);

export const TemplateSummarySchema = Type.Object(
  {
    template_id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    description: Type.String(),
    labels: Type.Array(Type.String()),
    current_version: Type.Union([Type.Integer(), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'TemplateSummary' },
);

export const TemplateListSchema = Type.Object(
  {
    templates: Type.Array(TemplateSummarySchema),
    next_cursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as `cursor` for the next page',
    }),
  },
  { $id: 'TemplateList' },
);

export const TemplateDetailSchema = Type.Intersect(
  [
    TemplateSummarySchema,
    Type.Object({ sample_data: Type.Unknown(), versions: Type.Array(TemplateVersionSchema) }),
  ],
  { $id: 'TemplateDetail' },
);

export const API_KEY_SCOPES = ['render', 'templates:read', 'templates:write', 'admin'] as const;

export const ApiKeyRequestSchema = Type.Object(
  {
    namespace: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' }),
    scopes: Type.Array(Type.Union(API_KEY_SCOPES.map((s) => Type.Literal(s))), {
      minItems: 1,
      uniqueItems: true,
    }),
  },
  { $id: 'ApiKeyRequest', additionalProperties: false },
);
export type ApiKeyRequest = Static<typeof ApiKeyRequestSchema>;

export const ApiKeyAnswerSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    key: Type.String({ description: 'Shown once: only its SHA-256 is kept' }),
    namespace: Type.String(),
    scopes: Type.Array(Type.String()),
  },
  { $id: 'ApiKeyAnswer' },
);

export const TEMPLATE_SCHEMAS = [
  TemplateFormSchema,
  TemplateVersionFormSchema,
  TemplateVersionRefSchema,
  TemplateVersionSchema,
  TemplateUploadAnswerSchema,
  TemplateSummarySchema,
  TemplateListSchema,
  TemplateDetailSchema,
  ApiKeyRequestSchema,
  ApiKeyAnswerSchema,
];
