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
  // Keep `&lt;CPS&gt;` and friends as their characters. Declared entities never get this far:
  // parseXml refuses a DOCTYPE unread; these limits are a second line behind that.
  processEntities: { enabled: true, maxEntityCount: 1, maxEntitySize: 1, maxExpansionDepth: 1 },
});

/**
 * A DOCTYPE or an entity declaration. The RM, the JobHistory server and WebHDFS never send one;
 * an entity bomb ("billion laughs") or an external entity needs one.
 */
const DECLARATION = /<!\s*(DOCTYPE|ENTITY)/i;

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat;
}

/** An HTML page (a proxy's or Jetty's error page, a login form) where data was expected. */
export function looksLikeHtml(text: string, contentType: string | undefined): boolean {
  if (contentType && /text\/html/i.test(contentType)) return true;
  return /^\s*(<!doctype html|<html[\s>])/i.test(text);
}

/**
 * The few words of an HTML error page worth showing: its title, else its text without tags
 * (`502 Bad Gateway` rather than a screen of markup).
 */
export function htmlSummary(text: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1];
  const plain = (title ?? text.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
  return `HTML page: ${plain.slice(0, 200)}`;
}

/** Whether a Content-Type names the expected format (`application/json`, `text/xml`, `…+xml`). */
/** Whether a Content-Type names JSON (`application/json`, `application/vnd.x+json`, …). */
export function isJsonType(contentType: string): boolean {
  return typeMatches(contentType, 'json');
}

function typeMatches(contentType: string, format: Format): boolean {
  const media = contentType.split(';')[0]!.trim().toLowerCase();
  return format === 'json'
    ? /^[a-z]+\/([\w.-]+\+)?json$/.test(media)
    : /^[a-z]+\/([\w.-]+\+)?xml$/.test(media);
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
  if (DECLARATION.test(text)) {
    throw new RmMalformedResponseError(
      'XML from the RM declares a DOCTYPE or entities: refused unread (the RM never sends one; entity expansion could exhaust memory)',
      { url, excerpt: excerpt(text), reason: 'doctype' },
    );
  }
  let parsed: Tree;
  try {
    const valid = XMLValidator.validate(text);
    if (valid !== true) {
      // Elements still open at the end of the text: the answer was cut short.
      const open = /^Unclosed tag|^Invalid '\[/.test(valid.err.msg)
        ? [...valid.err.msg.matchAll(/"([^"]+)"|'([^'[]+)'/g)].map((m) => `<${m[1] ?? m[2]}>`)
        : [];
      throw new RmMalformedResponseError(
        open.length > 0
          ? `invalid XML from the RM: it ends inside ${open.join('')} (truncated)`
          : `invalid XML from the RM: ${valid.err.msg} (line ${valid.err.line})`,
        { url, excerpt: excerpt(text), reason: open.length > 0 ? 'truncated' : 'syntax' },
      );
    }
    parsed = normaliseXml(xmlParser.parse(text));
  } catch (err) {
    throw unreadable(err, 'XML', text, url);
  }
  if (
    parsed === null ||
    typeof parsed !== 'object' ||
    Array.isArray(parsed) ||
    Object.keys(parsed).length === 0
  ) {
    throw new RmMalformedResponseError('XML from the RM has no root element', {
      url,
      excerpt: excerpt(text),
      reason: 'syntax',
    });
  }
  return parsed;
}

/** Parse JSON text; truncated or invalid JSON is a typed error. */
export function parseJson(text: string, url?: string): Tree {
  try {
    return JSON.parse(text) as Tree;
  } catch (err) {
    throw unreadable(err, 'JSON', text, url);
  }
}

/**
 * Whatever a parser throws (a syntax error, its own limits, a stack overflow on absurd nesting)
 * as a RmMalformedResponseError: never a plain Error.
 */
function unreadable(err: unknown, what: 'JSON' | 'XML', text: string, url: string | undefined): unknown {
  if (err instanceof RmMalformedResponseError) return err;
  const message = err instanceof Error ? err.message : String(err);
  // A parser that runs out of text mid-value was given a cut answer.
  const at = /at position (\d+)/.exec(message)?.[1];
  const cut =
    /end of (JSON )?input/i.test(message) || (at !== undefined && Number(at) >= text.trimEnd().length);
  const deep = err instanceof RangeError || /maximum nested/i.test(message);
  const reason = deep ? 'too-deep' : cut ? 'truncated' : 'syntax';
  const why = reason === 'too-deep' ? 'nested too deeply to read' : message;
  return new RmMalformedResponseError(
    `invalid ${what} from the RM: ${why}`,
    { url, excerpt: excerpt(text), reason },
    { cause: err },
  );
}

/**
 * Decode a body in the expected format. An HTML page, another Content-Type, an empty body or a
 * body that does not parse completely is a RmMalformedResponseError: never a partial object.
 * An answer without a Content-Type is read by its format alone.
 */
export function decodeBody(text: string, format: Format, contentType?: string, url?: string): Tree {
  checkBody(text, format, contentType, url);
  return format === 'xml' ? parseXml(text, url) : parseJson(text, url);
}

/** decodeBody's checks before parsing: not an HTML page, not empty, the Content-Type expected. */
export function checkBody(text: string, format: Format, contentType?: string, url?: string): void {
  const expected = format.toUpperCase();
  if (looksLikeHtml(text, contentType)) {
    throw new RmMalformedResponseError(`the RM answered an HTML page where ${expected} was expected`, {
      url,
      contentType,
      excerpt: excerpt(text),
      reason: 'html',
    });
  }
  if (text.trim() === '') {
    throw new RmMalformedResponseError(`the RM answered an empty body where ${expected} was expected`, {
      url,
      contentType,
      reason: 'empty',
    });
  }
  if (contentType !== undefined && contentType.trim() !== '' && !typeMatches(contentType, format)) {
    throw new RmMalformedResponseError(
      `the RM answered Content-Type ${contentType} where ${expected} was expected`,
      { url, contentType, excerpt: excerpt(text), reason: 'content-type' },
    );
  }
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
