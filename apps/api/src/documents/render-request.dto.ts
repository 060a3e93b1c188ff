/**
 * The form fields of POST /api/v1/process-template-document, validated with class-validator:
 * `data` (legacy: a JSON object of template variables) or `request_data` (enhanced: JSON with
 * `template_data`, optional `images` and optional `options`). Every problem becomes a typed error
 * with the interface specification's error type.
 */
import 'reflect-metadata';
import { plainToInstance, Type } from 'class-transformer';
import {
  Allow,
  IsIn,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsOptional,
  IsPositive,
  IsString,
  validateSync,
  ValidateNested,
  ValidationError,
} from 'class-validator';
import {
  InvalidRequestError,
  MissingTemplateDataError,
  type ImageData,
  type RenderRequest,
} from '@app/rendering';
import type { OutputFormat } from '../queue/render-job';

/** One image of `images`: base64 PNG (no data-URL prefix) and an optional size. */
export class ImageDataDto implements ImageData {
  @IsString()
  @IsNotEmpty()
  data!: string;

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive()
  width_mm?: number;

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive()
  height_mm?: number;

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive()
  width_px?: number;

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive()
  height_px?: number;
}

/** Extras of this implementation (docs/api.md). */
export class RequestOptionsDto {
  /** "empty" (default): an undefined variable renders as nothing; "strict": it is an error (422). */
  @IsOptional()
  @IsIn(['empty', 'strict'])
  undefined?: 'empty' | 'strict';

  /** "pdf" (default) or "docx": the filled Word document, without conversion. */
  @IsOptional()
  @IsIn(['pdf', 'docx'])
  output?: OutputFormat;
}

export class RequestDataDto {
  /** Checked before the DTO: its absence is `missing_template_data`, not a structure error. */
  @Allow()
  template_data!: Record<string, unknown>;

  @IsOptional()
  @IsObject()
  images?: Record<string, unknown>;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => RequestOptionsDto)
  options?: RequestOptionsDto;
}

export interface ParsedRenderRequest {
  mode: 'legacy' | 'enhanced';
  request: RenderRequest;
  options: RequestOptionsDto;
}

const STRICT = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true } as const;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The text of one form field; a field sent twice is an error. */
function field(fields: Record<string, unknown>, name: string): string | undefined {
  const v = fields[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') {
    throw new InvalidRequestError(`The form field '${name}' must be sent once, as text`, { field: name });
  }
  return v;
}

function parseJson(text: string, name: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new InvalidRequestError(`The form field '${name}' is not valid JSON: ${(e as Error).message}`, {
      field: name,
    });
  }
}

/** `[{ field: 'images.logo.width_mm', problems: ['width_mm must be a positive number'] }]` */
function describe(errors: ValidationError[], path = ''): { field: string; problems: string[] }[] {
  return errors.flatMap((e) => {
    const name = path ? `${path}.${e.property}` : e.property;
    const own = e.constraints ? [{ field: name, problems: Object.values(e.constraints) }] : [];
    return own.concat(describe(e.children ?? [], name));
  });
}

function fail(where: string, errors: ValidationError[], path: string): never {
  const problems = describe(errors, path);
  const first = problems[0];
  throw new InvalidRequestError(
    `Invalid ${where}: ${first ? `${first.field}: ${first.problems.join(', ')}` : 'unexpected structure'}`,
    { errors: problems },
  );
}

/**
 * Reads the text fields of the multipart form (multer's `req.body`). Throws InvalidRequestError
 * (400 invalid_request_structure) or MissingTemplateDataError (400 missing_template_data).
 */
export function parseRenderFields(fields: Record<string, unknown> | undefined): ParsedRenderRequest {
  const form = fields ?? {};
  const data = field(form, 'data');
  const requestData = field(form, 'request_data');
  if (data !== undefined && requestData !== undefined) {
    throw new InvalidRequestError(
      "Send either 'data' (legacy mode) or 'request_data' (enhanced mode), not both",
      { fields: ['data', 'request_data'] },
    );
  }
  if (data !== undefined) {
    const parsed = parseJson(data, 'data');
    if (!isPlainObject(parsed)) {
      throw new InvalidRequestError("The form field 'data' must be a JSON object of template variables", {
        field: 'data',
      });
    }
    return { mode: 'legacy', request: { template_data: parsed }, options: {} };
  }
  if (requestData === undefined) {
    throw new MissingTemplateDataError(
      "The form needs 'data' (a JSON object of template variables) or 'request_data' (JSON with template_data)",
      { fields: ['data', 'request_data'] },
    );
  }

  const parsed = parseJson(requestData, 'request_data');
  if (!isPlainObject(parsed)) {
    throw new InvalidRequestError("The form field 'request_data' must be a JSON object", {
      field: 'request_data',
    });
  }
  if (!isPlainObject(parsed.template_data)) {
    throw new MissingTemplateDataError(
      parsed.template_data === undefined
        ? 'request_data has no template_data'
        : 'request_data.template_data must be an object of template variables',
      { field: 'template_data' },
    );
  }
  const dto = plainToInstance(RequestDataDto, parsed);
  const errors = validateSync(dto, STRICT);
  if (errors.length > 0) fail('request_data', errors, '');

  const images: Record<string, ImageData> = {};
  for (const [name, value] of Object.entries(parsed.images ?? {})) {
    if (!isPlainObject(value)) {
      throw new InvalidRequestError(`Invalid request_data: images.${name} must be an object with 'data'`, {
        errors: [{ field: `images.${name}`, problems: ['must be an object'] }],
        image_name: name,
      });
    }
    const image = plainToInstance(ImageDataDto, value);
    const imageErrors = validateSync(image, STRICT);
    if (imageErrors.length > 0) fail('request_data', imageErrors, `images.${name}`);
    images[name] = value as unknown as ImageData;
  }

  const request: RenderRequest = { template_data: parsed.template_data };
  if (parsed.images !== undefined) request.images = images;
  return { mode: 'enhanced', request, options: dto.options ?? {} };
}
