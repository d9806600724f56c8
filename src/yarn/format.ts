import { RmMalformedResponseError } from '../errors/rm-malformed';
import { checkJsonDepth } from './json-depth';
import type { Format, Tree } from './tree';
import { readXml } from './xml-reader';

/**
 * Body decoding: JSON or XML text to one plain tree, the same for both formats, so that
 * mapping.ts reads a single shape (tree.ts; the XML notation is xml-reader.ts'). Both refuse a
 * text nested deeper than MAX_ANSWER_DEPTH before anything walks it; XML also refuses a DOCTYPE.
 * The transport reads answers as they arrive with the same readers (answer.ts); these functions
 * read a text already whole.
 */
export type { Format, Tree } from './tree';

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

/** Parse XML text into the shared tree; invalid, truncated or too deep XML is a typed error. */
export function parseXml(text: string, url?: string): Tree {
  try {
    return readXml(text);
  } catch (err) {
    throw unreadable(err, 'XML', text, url);
  }
}

/**
 * Parse JSON text; truncated, invalid or too deep JSON is a typed error. `depthChecked`: its
 * nesting was checked as it arrived (answer.ts), not scanned again.
 */
export function parseJson(text: string, url?: string, opts: { depthChecked?: boolean } = {}): Tree {
  try {
    if (!opts.depthChecked) checkJsonDepth(text);
    return JSON.parse(text) as Tree;
  } catch (err) {
    throw unreadable(err, 'JSON', text, url);
  }
}

/**
 * Whatever a parser throws (a syntax error, its own limits, a stack overflow on absurd nesting)
 * as a RmMalformedResponseError: never a plain Error.
 */
export function unreadable(
  err: unknown,
  what: 'JSON' | 'XML',
  text: string,
  url: string | undefined,
): unknown {
  if (err instanceof RmMalformedResponseError) return url === undefined ? err : err.at(url);
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
    if (trimmed.startsWith('{')) tree = parseJson(trimmed);
    else if (trimmed.startsWith('<')) tree = parseXml(trimmed);
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
