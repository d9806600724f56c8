/**
 * The one plain tree both of the RM's formats decode to (format.ts, xml-reader.ts), so that
 * mapping.ts reads a single shape.
 */
export type Format = 'json' | 'xml';

export type Tree = string | number | boolean | null | Tree[] | { [key: string]: Tree };
