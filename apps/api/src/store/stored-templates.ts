/**
 * Renders by id (docs/templates.md): which stored version a request names, in its key's namespace,
 * and its bytes on demand. A request by id needs an API key (its namespace says which templates it
 * sees); PostgreSQL down: 503 with Retry-After, while uploads keep working.
 */
import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { TemplateSource } from '@app/contracts';
import { templateFormatOf } from '@app/engine';
import type { ResolvedTemplate } from '@app/store';
import { requiredApiKeyOf } from './api-key.guard';
import { TemplateStoreProvider } from './template-store.provider';

export const TEMPLATE_VERSION_HEADER = 'X-Template-Version';

export interface StoredTemplate extends ResolvedTemplate {
  /** digestOf() of the bytes (SHA-256, base64), the queue's and the workers' key. */
  queueDigest: string;
  /** The template (.docx, .xlsx or .pptx), read from PostgreSQL when called. */
  load: () => Promise<Buffer>;
}

@Injectable()
export class StoredTemplates {
  constructor(private readonly stores: TemplateStoreProvider) {}

  async resolve(
    req: Request,
    source: Extract<TemplateSource, { kind: 'stored' }>,
    res?: Response,
  ): Promise<StoredTemplate> {
    const key = requiredApiKeyOf(req);
    const store = await this.stores.get();
    const resolved = await store.resolve(key.namespace, source.templateId, source.version);
    res?.setHeader(TEMPLATE_VERSION_HEADER, String(resolved.version));
    return {
      ...resolved,
      queueDigest: Buffer.from(resolved.digest, 'hex').toString('base64'),
      load: () => store.content(resolved.digest),
    };
  }
}

/** A stored template as if uploaded (the batch, job and lint paths take an upload). */
export async function uploadOf(
  stored: StoredTemplate,
): Promise<{ buffer: Buffer; originalname: string; size: number }> {
  const buffer = await stored.load();
  // Named as its format: the lint report's and a batch's file names follow it.
  return { buffer, originalname: `${stored.name}.${templateFormatOf(buffer)}`, size: buffer.length };
}
