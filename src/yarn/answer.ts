import { RmMalformedResponseError } from '../errors/rm-malformed';
import { checkBody, looksLikeHtml, unreadable } from './format';
import { JsonDepthGuard } from './json-depth';
import type { JsonListSink } from './json-list';
import type { Format, Tree } from './tree';
import { XmlReader, type XmlList } from './xml-reader';

/**
 * A 2xx answer read as its text arrives (the transport's `sink`), checked before it can cost
 * anything: another Content-Type than the format asked for, an HTML page (a proxy's error page or
 * a login form with 200), an empty body, a text nested deeper than MAX_ANSWER_DEPTH, a DOCTYPE or
 * any XML well-formedness error, each RmMalformedResponseError as soon as it is seen, so the
 * transport stops reading there. The text itself goes to a reader of its format: a JSON text
 * kept for one JSON.parse, a JSON list read item by item (json-list.ts), an XML tree or an XML
 * list read item by item (xml-reader.ts).
 */

/** What a refused answer keeps for its error's excerpt and an HTML page's title. */
const REFUSED_CHARS = 8 * 1024;
/** Characters enough to tell an HTML page from data (`<!doctype html`, `<html `). */
const SNIFF_CHARS = 16;

/** The text of one format: written as it arrives, ended once (which may throw what is wrong). */
export interface FormatReader {
  write(text: string): void;
  /** The text to give the caller as the answer's `text` ('' when none was kept). */
  end(): string;
}

/** The answer as the transport sees it when its headers have come. */
export interface AnswerHead {
  contentType: string | undefined;
  url: string;
}

export class AnswerSink<R extends FormatReader = FormatReader> {
  private mode: 'sniff' | 'refuse' | 'read';
  /** Sniff and refuse modes: the text so far. */
  private head = '';

  constructor(
    private readonly format: Format,
    private readonly answer: AnswerHead,
    readonly reader: R,
  ) {
    const ct = answer.contentType;
    let refused = false;
    try {
      // The Content-Type alone can refuse it: HTML, or another format (text/plain, …).
      if (ct !== undefined && ct.trim() !== '') checkBody('x', format, ct);
    } catch {
      refused = true;
    }
    this.mode = refused ? 'refuse' : 'sniff';
  }

  /** Refused from the headers already (another Content-Type): its text is only for the excerpt. */
  get refusing(): boolean {
    return this.mode === 'refuse';
  }

  write(text: string): void {
    if (this.mode === 'read') return this.reader.write(text);
    this.head += text;
    if (this.mode === 'refuse') {
      if (this.head.length >= REFUSED_CHARS) this.refuse();
      return;
    }
    const start = this.head.search(/\S/);
    // Leading whitespace is dropped once there is much of it: it tells nothing.
    if (start < 0 && this.head.length > REFUSED_CHARS) this.head = '';
    if (start < 0 || this.head.length - start < SNIFF_CHARS) return;
    this.decide();
  }

  end(): string {
    if (this.mode === 'refuse') this.refuse();
    if (this.mode === 'sniff') {
      // Whitespace only, or too short to sniff: checkBody says what is wrong, if anything.
      this.check(this.head);
      this.decide();
    }
    try {
      return this.reader.end();
    } catch (err) {
      throw this.named(err);
    }
  }

  private decide(): void {
    if (looksLikeHtml(this.head, undefined)) {
      this.mode = 'refuse';
      if (this.head.length >= REFUSED_CHARS) this.refuse();
      return;
    }
    this.mode = 'read';
    const head = this.head;
    this.head = '';
    try {
      this.reader.write(head);
    } catch (err) {
      throw this.named(err);
    }
  }

  /** The error checkBody gives for what was kept of a refused answer. */
  private refuse(): never {
    this.check(this.head.slice(0, REFUSED_CHARS));
    throw new RmMalformedResponseError(
      `the RM answered Content-Type ${this.answer.contentType} where ${this.format.toUpperCase()} was expected`,
      { url: this.answer.url, contentType: this.answer.contentType, reason: 'content-type' },
    );
  }

  private check(text: string): void {
    checkBody(text, this.format, this.answer.contentType, this.answer.url);
  }

  private named(err: unknown): unknown {
    return err instanceof RmMalformedResponseError ? err.at(this.answer.url) : err;
  }
}

/** A JSON answer kept whole for one JSON.parse once it has all come, its depth checked as it comes. */
export class JsonTreeReader implements FormatReader {
  private readonly guard = new JsonDepthGuard();
  private text = '';
  private parsed: Tree | undefined;

  write(text: string): void {
    this.guard.write(text);
    this.text += text;
  }

  end(): string {
    try {
      this.parsed = JSON.parse(this.text) as Tree;
    } catch (err) {
      throw unreadable(err, 'JSON', this.text, undefined);
    }
    return this.text;
  }

  get tree(): Tree {
    return this.parsed!;
  }
}

/** An XML answer read into its tree as it comes. */
export class XmlTreeReader implements FormatReader {
  private readonly xml = new XmlReader();
  private parsed: Tree | undefined;

  write(text: string): void {
    this.xml.write(text);
  }

  end(): string {
    this.parsed = this.xml.end();
    return '';
  }

  get tree(): Tree {
    return this.parsed!;
  }
}

/** A JSON list answer (JsonListSink), its depth checked as it comes. */
export class JsonListReader<T> implements FormatReader {
  private readonly guard = new JsonDepthGuard();

  constructor(readonly sink: JsonListSink<T>) {}

  write(text: string): void {
    this.guard.write(text);
    this.sink.write(text);
  }

  end(): string {
    return this.sink.end();
  }
}

/** An XML list answer read item by item (a root of another name is read whole). */
export class XmlListReader<T> implements FormatReader {
  readonly xml: XmlReader<T>;
  private parsed: Tree | undefined;

  constructor(list: XmlList<T>) {
    this.xml = new XmlReader(list);
  }

  write(text: string): void {
    this.xml.write(text);
  }

  end(): string {
    this.parsed = this.xml.end();
    return '';
  }

  get tree(): Tree {
    return this.parsed!;
  }
}

/** The reader of a whole answer in `format`, for its tree. */
export function treeReader(format: Format): JsonTreeReader | XmlTreeReader {
  return format === 'xml' ? new XmlTreeReader() : new JsonTreeReader();
}
