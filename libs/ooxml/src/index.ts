/**
 * The OOXML package conventions the engine and split conversion share: content types,
 * relationships, custom properties, styles. A library of its own, below both: converters edit packages
 * without loading the template engine, and the engine may not import converters.
 */
export * from './content-types';
export * from './relationships';
export * from './custom-properties';
export * from './styles';
