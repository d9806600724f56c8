import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { RmMalformedResponseError } from '../errors/rm-malformed';

/**
 * Body decoding: JSON or XML text to one plain tree, the same for both formats, so that
 * mapping.ts reads a single shape. The XML tree follows the JSON "natural" notation:
 * `<apps><app/><app/></apps>` becomes `{apps:{app:[…]}}`, one repeated element becomes a
 * single object (mapping's `list()` accepts both), text stays a string (mapping's `num()`
 * accepts both), and the `xsi:type` attribute becomes the member `type` (INDEX.md section 5).
 */
export type Format = 'json' | 'xml';

export type Tree = string | number | boolean | null | Tree[] | { [key: string]: Tree };

const xmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Keep `&lt;CPS&gt;` and friends as their characters.
  processEntities: true,
});

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat;
}

/** An HTML page (a proxy's or Jetty's error page, a login form) where data was expected. */
export function looksLikeHtml(text: string, contentType: string | undefined): boolean {
  if (contentType && /text\/html/i.test(contentType)) return true;
  return /^\s*(<!doctype html|<html[\s>])/i.test(text);
}

function normaliseXml(node: unknown): Tree {
  if (node === null || node === undefined) return '';
  if (typeof node === 'string' || typeof node === 'number' || typeof node === 'boolean') return node;
  if (Array.isArray(node)) return node.map(normaliseXml);
  const out: Record<string, Tree> = {};
  let text: string | undefined;
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key === '#text') {
      text = String(value);
    } else if (key.startsWith('@_')) {
      // xsi:type is the one attribute the RM's XML uses for data: the scheduler and queue type.
      const attr = key.slice(2);
      if (attr === 'xsi:type' || attr.endsWith(':type')) out.type = String(value);
    } else {
      out[key] = normaliseXml(value);
    }
  }
  if (text !== undefined && Object.keys(out).length === 0) return text;
  return out;
}

/** Parse XML text into the shared tree; invalid or truncated XML is a typed error. */
export function parseXml(text: string, url?: string): Tree {
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    throw new RmMalformedResponseError(`invalid XML from the RM: ${valid.err.msg} (line ${valid.err.line})`, {
      url,
      excerpt: excerpt(text),
    });
  }
  const parsed = normaliseXml(xmlParser.parse(text));
  if (
    parsed === null ||
    typeof parsed !== 'object' ||
    Array.isArray(parsed) ||
    Object.keys(parsed).length === 0
  ) {
    throw new RmMalformedResponseError('XML from the RM has no root element', {
      url,
      excerpt: excerpt(text),
    });
  }
  return parsed;
}

/** Parse JSON text; truncated or invalid JSON is a typed error. */
export function parseJson(text: string, url?: string): Tree {
  try {
    return JSON.parse(text) as Tree;
  } catch (err) {
    throw new RmMalformedResponseError(`invalid JSON from the RM: ${(err as Error).message}`, {
      url,
      excerpt: excerpt(text),
    });
  }
}

/**
 * Decode a body in the expected format. An HTML page, an empty body or a body that does not
 * parse completely is a RmMalformedResponseError: never a partial object.
 */
export function decodeBody(text: string, format: Format, contentType?: string, url?: string): Tree {
  if (looksLikeHtml(text, contentType)) {
    throw new RmMalformedResponseError(
      `the RM answered an HTML page where ${format.toUpperCase()} was expected`,
      {
        url,
        contentType,
        excerpt: excerpt(text),
      },
    );
  }
  if (text.trim() === '') {
    throw new RmMalformedResponseError(
      `the RM answered an empty body where ${format.toUpperCase()} was expected`,
      {
        url,
        contentType,
      },
    );
  }
  return format === 'xml' ? parseXml(text, url) : parseJson(text, url);
}

export interface RemoteExceptionBody {
  exception: string;
  message: string;
  javaClassName: string;
}

/**
 * Read a RemoteException from an error body in either format (the RM follows the Accept header,
 * but a proxy in between may not), or undefined when the body is something else.
 */
export function readRemoteException(text: string): RemoteExceptionBody | undefined {
  const trimmed = text.trim();
  let tree: Tree | undefined;
  try {
    if (trimmed.startsWith('{')) tree = JSON.parse(trimmed) as Tree;
    else if (trimmed.startsWith('<') && XMLValidator.validate(trimmed) === true) tree = parseXml(trimmed);
  } catch {
    return undefined;
  }
  if (!tree || typeof tree !== 'object' || Array.isArray(tree)) return undefined;
  const body = (tree as Record<string, Tree>).RemoteException;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const field = (k: string): string => {
    const v = (body as Record<string, Tree>)[k];
    return v === undefined || v === null ? '' : String(v);
  };
  return { exception: field('exception'), message: field('message'), javaClassName: field('javaClassName') };
}
