import { Global, Module } from '@nestjs/common';
import { ApiKeyGuard } from './api-key.guard';
import { StoredTemplates } from './stored-templates';
import { TemplateStoreProvider } from './template-store.provider';

/** The template store and the API-key guard, for every module (the guard sits on many routes). */
@Global()
@Module({
  providers: [TemplateStoreProvider, ApiKeyGuard, StoredTemplates],
  exports: [TemplateStoreProvider, ApiKeyGuard, StoredTemplates],
})
export class StoreModule {}
