/**
 * The OpenAPI document's examples: the render form's three modes and one error body per
 * error_type, shaped like what the code sends (the schemas come from the payload definitions of
 * @app/contracts and answer-schemas.ts).
 */
import type { ExampleObject } from '@nestjs/swagger';
import { ENHANCED_EXAMPLE, ERROR_CATALOGUE, type ErrorType } from '@app/contracts';

/** status → error types, from the one catalogue (@app/contracts). */
export const ERROR_TYPES_BY_STATUS: Record<number, ErrorType[]> = {};
for (const [type, status] of Object.entries(ERROR_CATALOGUE) as [ErrorType, number][])
  (ERROR_TYPES_BY_STATUS[status] ??= []).push(type);

export const ERROR_TYPES = Object.values(ERROR_TYPES_BY_STATUS).flat();

export const RENDER_BODY_EXAMPLES: Record<string, ExampleObject> = {
  legacy: {
    summary: 'Legacy mode (data)',
    value: { file: '(binary .docx)', data: '{"name": "Ada", "items": [{"label": "Widget"}]}' },
  },
  enhanced: {
    summary: 'Enhanced mode (request_data) with an image and options',
    value: { file: '(binary .docx)', request_data: JSON.stringify(ENHANCED_EXAMPLE) },
  },
  v16: {
    summary: 'v1.6+ form: data, images, undefined_behavior and linter_options as form fields',
    value: {
      file: '(binary .docx)',
      data: '{"customer": {"name": "Ada"}}',
      images: JSON.stringify({ logo: ENHANCED_EXAMPLE.images!.logo }),
      undefined_behavior: 'debug',
      linter_options: '{"enabled": true, "response_format": "json"}',
    },
  },
};

/** One example body per error_type, shaped like what the code sends. */
const ERROR_EXAMPLES: Record<ErrorType, { message: string; details: Record<string, unknown> }> = {
  invalid_request_structure: {
    message: "Send either 'data' (legacy mode) or 'request_data' (enhanced mode), not both",
    details: { fields: ['data', 'request_data'] },
  },
  missing_template_data: { message: 'request_data must contain a template_data object', details: {} },
  missing_file: { message: "The form field 'file' (the .docx template) is missing", details: {} },
  invalid_template: {
    message: 'The file is not a Word document (.docx): it is not a zip package',
    details: {},
  },
  image_processing_error: {
    message: "Image 'logo' could not be processed: the data is not a PNG image (PNG signature missing)",
    details: {
      image_name: 'logo',
      error: 'the data is not a PNG image (PNG signature missing)',
      error_class: 'InvalidPngSignature',
      suggestion: 'Send PNG images only; convert JPEG, GIF or SVG to PNG first.',
    },
  },
  unsupported_output: {
    message:
      'options.output "odt" needs the embedded LibreOffice pool; this worker converts through Gotenberg, which writes PDF only',
    details: { field: 'options.output', output: 'odt', route: 'gotenberg' },
  },
  invalid_webhook_url: {
    message: 'webhook_url resolves to a private address, which the service does not call',
    details: {
      reason: 'address_not_allowed',
      host: 'intranet.example',
      address: '10.0.0.7',
      range: 'private',
    },
  },
  invalid_deliver_to: {
    message: 'deliver_to.headers may not set Host: the service sets it, or it belongs to the connection',
    details: { field: 'deliver_to.headers.Host', reason: 'header_not_allowed', header: 'Host' },
  },
  unauthorized: { message: 'A valid API key is required (Authorization: Bearer <key>)', details: {} },
  forbidden: {
    message: "This API key lacks the scope 'templates:write'",
    details: { required_scope: 'templates:write' },
  },
  not_found: { message: 'Cannot GET /api/v1/unknown', details: {} },
  template_not_found: { message: 'No such template', details: {} },
  job_not_found: { message: 'No job has this id, or its result has expired', details: {} },
  job_not_finished: {
    message: 'The job is not finished yet',
    details: { status: 'active', progress: { done: 3, total: 20 } },
  },
  method_not_allowed: {
    message: 'GET is not allowed on /api/v1/process-template-document; use POST',
    details: { allow: ['POST'] },
  },
  payload_too_large: {
    message: 'The template file is too large',
    details: { field: 'file', code: 'LIMIT_FILE_SIZE', limit: 10485760, max_bytes: 10485760 },
  },
  template_syntax_error: {
    message: 'The template has 1 syntax error',
    details: {
      errors: [
        { message: "unexpected '}'", tag: '{{ name }', context: 'Dear {{ name }', part: 'word/document.xml' },
      ],
    },
  },
  undefined_variable: {
    message: 'Undefined variable in template: customer',
    details: { variables: ['customer'] },
  },
  template_runtime_error: { message: "'total' is not a number", details: { tag: '{{ total + 1 }}' } },
  invalid_pdf_input: {
    message: 'options.pdf.append[0].data is encrypted: send it without a password',
    details: { field: 'options.pdf.append[0].data' },
  },
  invalid_einvoice: {
    message:
      'options.pdf.facturx.xml must have the root rsm:CrossIndustryInvoice in urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
    details: { field: 'options.pdf.facturx.xml' },
  },
  signing_not_configured: {
    message: 'options.pdf.signature: this service has no signing profiles configured',
    details: { field: 'options.pdf.signature' },
  },
  signature_field_not_found: {
    message:
      'options.pdf.signature.field: the document has no signature field "buyer"; it holds "seller", "witness"',
    details: { field: 'options.pdf.signature.field', requested: 'buyer', fields: ['seller', 'witness'] },
  },
  unknown_signing_profile: {
    message: 'options.pdf.signature.profile "sales" is not a signing profile of this deployment',
    details: { field: 'options.pdf.signature.profile', profile: 'sales' },
  },
  signing_certificate_invalid: {
    message:
      'The certificate of signing profile "company" is expired (valid 2024-01-01T00:00:00.000Z to 2025-01-01T00:00:00.000Z)',
    details: {
      profile: 'company',
      not_before: '2024-01-01T00:00:00.000Z',
      not_after: '2025-01-01T00:00:00.000Z',
    },
  },
  signing_service_failed: {
    message: 'TSA http://tsa.example.com/ did not answer within 10000 ms',
    details: { retryable: true, service: 'tsa', reason: 'timeout' },
  },
  page_out_of_range: {
    message: 'options.image.pages names page 4, but the document has 3 pages',
    details: { field: 'options.image.pages', pageCount: 3, pages: [4] },
  },
  missing_alt_text: {
    message: 'options.pdf.pdfua: image "logo" has no alt text; give images.logo.alt or mark it decorative',
    details: { field: 'images.logo.alt', image: 'logo' },
  },
  chart_data_error: {
    message: "Chart 'sales': series 1 ('2025') value 3 is not a number: 'n/a'",
    details: { chart: 'sales', series: 1, series_name: '2025', index: 3, field: 'values' },
  },
  internal_error: { message: 'Internal server error', details: {} },
  conversion_failed: {
    message: 'The PDF converter is unreachable',
    details: { retryable: true },
  },
  service_unavailable: { message: 'No worker is running', details: { live_workers: 0 } },
  processing_timeout: {
    message: 'The document was not processed within 60000 ms',
    details: { timeout_ms: 60000 },
  },
};

export function errorExamples(status: keyof typeof ERROR_TYPES_BY_STATUS): Record<string, ExampleObject> {
  return Object.fromEntries(
    ERROR_TYPES_BY_STATUS[status].map((t) => [
      t,
      { summary: t, value: { status: 'error', error_type: t, ...ERROR_EXAMPLES[t] } },
    ]),
  );
}
