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

export type Content =
  string | number | boolean | null | undefined | EntryMap | Content[] | { [key: string]: Content };

/**
 * A JAXB-bound HashMap as the RM writes it (AppInfo's `resourceSecondsMap`): in XML repeated
 * `<entry><key/><value/></entry>` elements, in JSON the same `entry` member repeated in one
 * object with string values, `{"entry":{"key":"memory-mb","value":"20"},"entry":{…}}`
 * (measured on 3.4.3; a JSON reader keeps the last one), and `{}` when empty.
 */
export class EntryMap {
  constructor(readonly entries: ReadonlyArray<readonly [string, string | number]>) {}
}

export const XSI_TYPE = '@_xsi:type';
const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

const xmlBuilder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  suppressEmptyNode: true,
  format: false,
});

/** As the RM 3.4.3 writes them: no space before the JSON charset, one before the XML one. */
export const CONTENT_TYPE: Record<Format, string> = {
  json: 'application/json;charset=utf-8',
  xml: 'application/xml; charset=utf-8',
};

/** The media types of an Accept header, best first (by quality, then as listed); none is `*` + `/*`. */
export function acceptedTypes(accept: string | undefined): string[] {
  if (accept === undefined || accept.trim() === '') return ['*/*'];
  return accept
    .split(',')
    .map((part, i) => {
      const [type, ...params] = part.split(';').map((x) => x.trim());
      const q = params.find((p) => p.startsWith('q='));
      return { type: (type ?? '').toLowerCase(), q: q ? Number(q.slice(2)) : 1, i };
    })
    .filter((t) => t.type !== '' && t.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .map((t) => t.type);
}

/**
 * The format a resource method answers in: the best type of the Accept header it produces.
 * JSON for application/json, a wildcard or no header (the RM's default), XML for
 * application/xml; undefined when none is acceptable (text/xml, text/html...): Jersey then
 * refuses the request before any method runs (preResourceFormat).
 */
export function formatFromAccept(accept: string | undefined): Format | undefined {
  for (const t of acceptedTypes(accept)) {
    if (t === 'application/json' || t === '*/*' || t === 'application/*') return 'json';
    if (t === 'application/xml') return 'xml';
  }
  return undefined;
}

/**
 * The type of the exception mapper's answer when Jersey refused a request before a resource
 * method chose one (no reader for the body's type, a method the path does not have, an
 * Accept no method produces): the first writer the Accept allows, JAXB's XML before JSON, so
 * a wildcard or no Accept gets XML (measured on 3.4.3). Undefined when no writer can: Jetty's
 * 500 page then.
 */
export function preResourceFormat(
  accept: string | undefined,
): { format: Format; mediaType: string } | undefined {
  for (const t of acceptedTypes(accept)) {
    if (t === 'application/json') return { format: 'json', mediaType: t };
    if (t === 'application/xml' || t === 'text/xml') return { format: 'xml', mediaType: t };
    if (t === '*/*' || t === 'application/*') return { format: 'xml', mediaType: 'application/xml' };
  }
  return undefined;
}

/** Raw JSON texts that JSON.stringify cannot write (repeated keys), by placeholder. */
type RawJson = Map<string, string>;

function toJson(c: Content, dialect: Dialect, raw: RawJson): unknown {
  if (c === null || c === undefined) return null;
  if (c instanceof EntryMap) {
    const token = `@@raw${raw.size}@@`;
    raw.set(
      token,
      `{${c.entries.map(([k, v]) => `"entry":${JSON.stringify({ key: k, value: String(v) })}`).join(',')}}`,
    );
    return token;
  }
  if (Array.isArray(c)) {
    const items = c.map((x) => toJson(x, dialect, raw));
    return dialect === 'jersey-default' && items.length === 1 ? items[0] : items;
  }
  if (typeof c === 'object') {
    const out: Record<string, unknown> = {};
    if (XSI_TYPE in c) out.type = c[XSI_TYPE];
    for (const [k, v] of Object.entries(c)) {
      if (k === XSI_TYPE || v === undefined) continue;
      if (Array.isArray(v) && v.length === 0) continue;
      out[k] = toJson(v, dialect, raw);
    }
    return out;
  }
  return dialect === 'jersey-default' ? String(c) : c;
}

function toXml(c: Content): unknown {
  if (c === null || c === undefined) return '';
  if (c instanceof EntryMap)
    return c.entries.length === 0
      ? ''
      : { entry: c.entries.map(([key, value]) => ({ key, value: String(value) })) };
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
  if (format === 'xml') {
    // JAXB escapes &, <, > and " in text, not ' (measured on 3.4.3); the builder escapes all five.
    const xml = (xmlBuilder.build({ [root]: toXml(content) }) as string).replace(/&apos;/g, "'");
    return XML_DECLARATION + xml;
  }
  const raw: RawJson = new Map();
  const body = toJson(content, options.dialect ?? 'natural', raw);
  let text = JSON.stringify(options.wrapJson === false ? body : { [root]: body });
  for (const [token, json] of raw) text = text.replace(`"${token}"`, json);
  return text;
}

/**
 * `{"RemoteException":{exception, message, javaClassName}}` or its XML form (INDEX.md section
 * 6). An exception without a message (UndeclaredThrowableException) has no `message` member.
 */
export function renderRemoteException(
  format: Format,
  exception: string,
  message: string,
  javaClassName: string,
): string {
  return renderBody(format, 'RemoteException', {
    exception,
    message: message === '' ? undefined : message,
    javaClassName,
  });
}
