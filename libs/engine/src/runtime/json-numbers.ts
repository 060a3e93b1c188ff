/** Moved to @app/contracts (the request parser reads template data with it); re-exported for the engine. */
export { NATIVE_SOURCE_TEXT, parseDataJson, plainNumbers, stringifyDataJson } from '@app/contracts';
