/**
 * API keys on the routes (docs/templates.md): `Authorization: Bearer <key>`, looked up by its
 * SHA-256 in the template store. No key or an unknown one: 401 `unauthorized`; a key without the
 * route's scope: 403 `forbidden`. The specification's endpoints stay open without a key unless
 * REQUIRE_API_KEY=true; a key sent to them is checked all the same (a render by template_id needs
 * one: its namespace says which templates it sees).
 */
import {
  type CanActivate,
  type ExecutionContext,
  Injectable,
  SetMetadata,
  applyDecorators,
  UseGuards,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiBearerAuth } from '@nestjs/swagger';
import type { Request } from 'express';
import { ForbiddenError, UnauthorizedError } from '@app/contracts';
import { hasScope, type ApiKeyRecord, type Scope } from '@app/store';
import { ApiSettings } from '../config/settings';
import { TemplateStoreProvider } from './template-store.provider';

interface KeyRule {
  scope: Scope;
  /** The specification's endpoints: open without a key unless REQUIRE_API_KEY=true. */
  openByDefault: boolean;
}

const KEY_RULE = 'apiKeyRule';

/** The key a request was authenticated with, if any. */
export function apiKeyOf(req: Request): ApiKeyRecord | undefined {
  return (req as Request & { apiKey?: ApiKeyRecord }).apiKey;
}

/** The key of a request that must have one (a render by template_id, the template routes). */
export function requiredApiKeyOf(req: Request): ApiKeyRecord {
  const unchecked = (req as Request & { apiKeyError?: Error }).apiKeyError;
  if (unchecked) throw unchecked;
  const key = apiKeyOf(req);
  if (!key)
    throw new UnauthorizedError('Rendering by template_id needs an API key (Authorization: Bearer <key>)');
  return key;
}

function bearer(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw new UnauthorizedError('The Authorization header must be "Bearer <key>"');
  return m[1];
}

@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly settings: ApiSettings,
    private readonly stores: TemplateStoreProvider,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.reflector.getAllAndOverride<KeyRule | undefined>(KEY_RULE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!rule) return true;
    const req = context.switchToHttp().getRequest<Request>();
    const key = bearer(req);
    if (key === undefined) {
      if (rule.openByDefault && !this.settings.store.requireApiKey) return true;
      throw new UnauthorizedError();
    }
    let record: ApiKeyRecord | undefined;
    try {
      record = await (await this.stores.get()).findKey(key);
    } catch (e) {
      // PostgreSQL down: an open endpoint still renders an upload; a render by id then answers
      // this 503 (requiredApiKeyOf).
      if (!(rule.openByDefault && !this.settings.store.requireApiKey)) throw e;
      (req as Request & { apiKeyError?: unknown }).apiKeyError = e;
      return true;
    }
    if (!record) throw new UnauthorizedError('Unknown API key');
    if (!hasScope(record.scopes, rule.scope)) {
      throw new ForbiddenError(`This API key lacks the scope '${rule.scope}'`, {
        required_scope: rule.scope,
      });
    }
    (req as Request & { apiKey?: ApiKeyRecord }).apiKey = record;
    return true;
  }
}

/** The route needs a key with `scope`. */
export function RequiresKey(scope: Scope) {
  return applyDecorators(
    SetMetadata(KEY_RULE, { scope, openByDefault: false } satisfies KeyRule),
    UseGuards(ApiKeyGuard),
    ApiBearerAuth(),
  );
}

/** A specification endpoint: open unless REQUIRE_API_KEY=true; a key sent is checked for `render`. */
export function AcceptsKey() {
  return applyDecorators(
    SetMetadata(KEY_RULE, { scope: 'render', openByDefault: true } satisfies KeyRule),
    UseGuards(ApiKeyGuard),
  );
}
