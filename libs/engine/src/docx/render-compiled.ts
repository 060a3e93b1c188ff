/**
 * Renders a template compiled before (compiled-templates.ts) without constructing docxtemplater.
 *
 * docxtemplater's constructor re-reads the package on every fill even when the module hands back
 * kept parts: it parses [Content_Types].xml three times and _rels/.rels twice with xmldom, builds
 * a template class per part and runs every module's passes over empty parts. On the corpus invoice
 * (20 rows, kept compile) that was 1.2 of a 3.8 ms fill. What a render needs from it is small and
 * the same for identical template bytes, so the first compile records it (RenderContext) and later
 * renders run docxtemplater's own render and postrender functions over the kept parts, with the
 * modules that act on them:
 *
 * - render: only the Jinja module renders a part. Every tag is ours (our delimiters mark only
 *   Jinja tags), the base modules return nothing for a part that is not theirs, and docxtemplater's
 *   render module only records runs with `linebreaks`, which we turn off; so only the options our
 *   module, docxtemplater's render and its joinUncorrupt read are given.
 * - postrender: docxtemplater's space-preserve module, then ours; the others are the identity.
 * - the zip: each part written as docxtemplater's render writes it, then its syncZip: the XML
 *   documents it parsed ([Content_Types].xml) written back as xmldom serialised them (where that
 *   entry sits in the zip does not matter: DocxPackage writes it first).
 *
 * render-compiled.spec.ts checks that this gives docxtemplater's package byte for byte on every
 * corpus document and test template; a docxtemplater upgrade that changes its render shows there.
 */
import type { CompiledTemplate, RenderContext } from './compiled-templates';
import type { JinjaModule } from './jinja-module';
import type { ShouldContainRule } from './join-uncorrupt';
import type { Part } from './parts';
// docxtemplater's own steps (its package has no exports map, so its files are its API too).
import dxtRender from 'docxtemplater/js/render.js';
import dxtPostrender from 'docxtemplater/js/postrender.js';
import dxtJoinUncorrupt from 'docxtemplater/js/join-uncorrupt.js';
import spacePreserveModule from 'docxtemplater/js/modules/space-preserve.js';
import { xml2str } from 'docxtemplater/js/doc-utils.js';
import type Docxtemplater from 'docxtemplater';

interface ZipLike {
  file(name: string, data: string | Uint8Array, options?: { createFolders?: boolean }): unknown;
}

/** docxtemplater's state after compiling (the fields we read; not in its type declarations). */
interface CompiledDocxtemplater {
  compiled: Record<string, { contentType?: string; postparsed: Part[] }>;
  fileTypeConfig: { tagShouldContain?: ShouldContainRule[] };
  xmlDocuments: Record<string, unknown>;
}

/** What a render of these kept parts needs from the docxtemplater that compiled them. */
export function renderContextOf(doc: Docxtemplater): RenderContext {
  const d = doc as unknown as CompiledDocxtemplater;
  return {
    contentTypes: new Map(Object.entries(d.compiled).map(([path, c]) => [path, c.contentType])),
    // A copy: the kept entry is frozen, and this array belongs to the compiling instance.
    tagShouldContain: structuredClone(d.fileTypeConfig.tagShouldContain ?? []),
    xmlDocuments: new Map(Object.entries(d.xmlDocuments).map(([name, xml]) => [name, xml2str(xml)])),
  };
}

/** Renders `compiled` into `zip` as docxtemplater's render would; throws what it would. */
export function renderCompiled(zip: ZipLike, compiled: CompiledTemplate, module: JinjaModule): void {
  const context = compiled.render;
  const fileTypeConfig = { tagShouldContain: context.tagShouldContain };
  const renderModules = [module];
  const postrenderModules = [spacePreserveModule(), module];
  // docxtemplater's render resolves an id per part from the scope path; ours are never resolved.
  const scopeManager = { scopePathItem: [] as string[] };
  for (const [filePath, postparsed] of compiled.parts) {
    const options = {
      filePath,
      compiled: postparsed,
      modules: renderModules,
      contentType: context.contentTypes.get(filePath),
      fileTypeConfig,
      scopeManager,
      render: dxtRender,
      joinUncorrupt: dxtJoinUncorrupt,
    };
    const { errors, parts } = dxtRender(options);
    if (errors.length) {
      // As docxtemplater's errorChecker reports them (none of our parts returns errors today).
      for (const e of errors as Array<{ properties?: Record<string, unknown> }>)
        (e.properties ??= {}).file = filePath;
      const err = new Error('Multi error') as Error & { properties: Record<string, unknown> };
      err.properties = { id: 'multi_error', errors };
      throw err;
    }
    const content = dxtPostrender(parts, { ...options, modules: postrenderModules });
    zip.file(filePath, content, { createFolders: true });
  }
  for (const [name, xml] of context.xmlDocuments) zip.file(name, xml, { createFolders: true });
}
