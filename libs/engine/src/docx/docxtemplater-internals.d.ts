/**
 * docxtemplater's own render steps and Word content types, used by render-compiled.ts and
 * join-uncorrupt.ts (its package declares types for the Docxtemplater class only).
 */
declare module 'docxtemplater/js/render.js' {
  function render(options: object): { errors: unknown[]; parts: Array<string | Uint8Array> };
  export = render;
}
declare module 'docxtemplater/js/postrender.js' {
  function postrender(parts: Array<string | Uint8Array>, options: object): Uint8Array;
  export = postrender;
}
declare module 'docxtemplater/js/join-uncorrupt.js' {
  function joinUncorrupt<T>(parts: T[], options: object): T[];
  export = joinUncorrupt;
}
declare module 'docxtemplater/js/modules/space-preserve.js' {
  function spacePreserve(): {
    postrender(parts: Array<string | Uint8Array>, options?: object): Array<string | Uint8Array>;
  };
  export = spacePreserve;
}
declare module 'docxtemplater/js/doc-utils.js' {
  export function xml2str(xml: unknown): string;
}
declare module 'docxtemplater/js/filetypes.js' {
  const filetypes: { main: string[]; docx: string[]; pptx: string[]; xlsx: string[] };
  export = filetypes;
}
