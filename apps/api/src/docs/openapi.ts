/**
 * OpenAPI document and Swagger UI: /docs (UI) and /docs-json (the document). Built from the
 * controllers' decorators, the request payloads' one definition (REQUEST_SCHEMAS of
 * @app/contracts, which the API validates with) and the answers' schemas (answer-schemas.ts).
 */
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, type SchemaObject, SwaggerModule } from '@nestjs/swagger';
import {
  API_PATHS,
  JOB_REQUEST_SCHEMAS,
  openApiSchemas,
  REQUEST_SCHEMAS,
  TEMPLATE_SCHEMAS,
} from '@app/contracts';
import { ANSWER_SCHEMAS } from './answer-schemas';
import { JOB_STATUS_SCHEMA, WEBHOOK_EVENT_SCHEMA } from './jobs.openapi';

const DESCRIPTION = `Fills a Word template (.docx with Jinja tags, docxtpl dialect) with JSON data and PNG images and
answers with the PDF, synchronously, behind a queue and workers.

Every error is \`application/json\` with the ErrorBody schema. Unknown routes and methods answer 404
\`not_found\`. Every answer carries \`X-Request-Id\` (the caller's, if it is 1–128 characters of
\`A-Z a-z 0-9 . _ -\`, else a new UUID); quote it when reporting a problem.

The specification's endpoints need no authentication unless REQUIRE_API_KEY=true. Stored templates
(\`/api/v1/templates\`, docs/templates.md) need an API key: \`Authorization: Bearer <key>\`; missing or
unknown key 401 \`unauthorized\`, a key without the scope 403 \`forbidden\`. Operators: see docs/operations.md.

Asynchronous jobs, batches (ZIP or merged PDF) and signed webhooks: the \`jobs\` endpoints; see docs/jobs.md.`;

/** The version of the HTTP interface (its paths carry /api/v1/), not of the package. */
const API_VERSION = '1';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('docx → PDF template service')
    .setDescription(DESCRIPTION)
    .setVersion(API_VERSION)
    .addBearerAuth()
    .build();
  const document = SwaggerModule.createDocument(app, config);
  document.components = {
    ...document.components,
    schemas: {
      ...(document.components?.schemas ?? {}),
      ...(openApiSchemas([...REQUEST_SCHEMAS, ...JOB_REQUEST_SCHEMAS, ...TEMPLATE_SCHEMAS]) as Record<
        string,
        SchemaObject
      >),
      ...ANSWER_SCHEMAS,
      JobStatus: JOB_STATUS_SCHEMA,
      WebhookEvent: WEBHOOK_EVENT_SCHEMA,
    },
  };
  return document;
}

export function setupOpenApi(app: INestApplication): void {
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup(API_PATHS.docs.slice(1), app, document, {
    jsonDocumentUrl: `${API_PATHS.docs.slice(1)}-json`,
    yamlDocumentUrl: `${API_PATHS.docs.slice(1)}-yaml`,
  });
}
