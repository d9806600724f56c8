import { XMLBuilder } from 'fast-xml-parser';

/**
 * The one place the emulator turns answers into text, so JSON and XML never drift apart.
 *
 * Content is a plain tree written once per answer. Lists are arrays; in XML they become
 * repeated elements with no wrapper (`<apps><app/><app/></apps>`), in JSON they stay arrays
 * even with one element, and an empty list disappears (`{"apps":{}}`, as TestRMWebServicesApps
 * expects; INDEX.md section 5). A member keyed XSI_TYPE is the JSON `type` discriminator and the
 * XML `xsi:type` attribute (scheduler and queue infos).
 *
 * Two JSON dialects, as the RM has them (INDEX.md section 5): `natural` (numbers and booleans as
 * such, the types registered in the RM's JAXBContextResolver) and `jersey-default` (every
 * scalar a string, a one-element list a bare object: the reservation list and container bodies).
 */
export type Format = 'json' | 'xml';
export type Dialect = 'natural' | 'jersey-default';

export type Content = string | number | boolean | null | undefined | Content[] | { [key: string]: Content };

export const XSI_TYPE = '@_xsi:type';
const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

const xmlBuilder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  suppressEmptyNode: true,
  format: false,
});

export const CONTENT_TYPE: Record<Format, string> = {
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
};

/**
 * The format an Accept header asks for: XML for application/xml or text/xml, JSON for JSON,
 * a wildcard or no header (the RM's default), undefined for anything else (the RM answers 500).
 */
export function formatFromAccept(accept: string | undefined): Format | undefined {
  if (!accept || accept.trim() === '') return 'json';
  const types = accept.split(',').map((t) => t.split(';')[0]!.trim().toLowerCase());
  for (const t of types) {
    if (t === 'application/json' || t === '*/*' || t === 'application/*') return 'json';
    if (t === 'application/xml' || t === 'text/xml') return 'xml';
  }
  return undefined;
}

function toJson(c: Content, dialect: Dialect): unknown {
  if (c === null || c === undefined) return null;
  if (Array.isArray(c)) {
    const items = c.map((x) => toJson(x, dialect));
    return dialect === 'jersey-default' && items.length === 1 ? items[0] : items;
  }
  if (typeof c === 'object') {
    const out: Record<string, unknown> = {};
    if (XSI_TYPE in c) out.type = c[XSI_TYPE];
    for (const [k, v] of Object.entries(c)) {
      if (k === XSI_TYPE || v === undefined) continue;
      if (Array.isArray(v) && v.length === 0) continue;
      out[k] = toJson(v, dialect);
    }
    return out;
  }
  return dialect === 'jersey-default' ? String(c) : c;
}

function toXml(c: Content): unknown {
  if (c === null || c === undefined) return '';
  if (Array.isArray(c)) return c.map(toXml);
  if (typeof c === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(c)) {
      if (v === undefined) continue;
      out[k] = k === XSI_TYPE ? v : toXml(v);
    }
    if (XSI_TYPE in c) out['@_xmlns:xsi'] = XSI_NS;
    return out;
  }
  return String(c);
}

export interface RenderOptions {
  /** JSON only: false for the RM's unwrapped roots (`{"queue":…}`); XML always has its root. */
  wrapJson?: boolean;
  dialect?: Dialect;
}

/** An answer body: `{root: content}` in JSON (or content alone when unwrapped), `<root>` in XML. */
export function renderBody(
  format: Format,
  root: string,
  content: Content,
  options: RenderOptions = {},
): string {
  if (format === 'xml') return XML_DECLARATION + (xmlBuilder.build({ [root]: toXml(content) }) as string);
  const body = toJson(content, options.dialect ?? 'natural');
  return JSON.stringify(options.wrapJson === false ? body : { [root]: body });
}

/** `{"RemoteException":{exception, message, javaClassName}}` or its XML form (INDEX.md section 6). */
export function renderRemoteException(
  format: Format,
  exception: string,
  message: string,
  javaClassName: string,
): string {
  return renderBody(format, 'RemoteException', { exception, message, javaClassName });
}
