import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { RmMalformedResponseError } from '../errors/rm-malformed';
import { countItem, MAX_ANSWER_DEPTH, MAX_ITEM_CHARS, TooLargeItem, type ItemLimit } from './limits';
import type { Tree } from './tree';

/**
 * XML answers read as their text arrives, with saxes (a strict, streaming XML parser: every
 * well-formedness error is reported, nothing is held but the elements still open). The tree
 * built is the one mapping.ts reads for both formats, in the JSON "natural" notation:
 * `<apps><app/><app/></apps>` becomes `{apps:{app:[…]}}`, one repeated element a single value
 * (mapping's `list()` accepts both), text a trimmed string (mapping's `num()` reads numbers
 * from it), an empty element `''`, an element with attributes and no content `{}`, and the
 * `xsi:type` attribute the member `type` (INDEX.md section 5). Text beside child elements is
 * dropped, as are comments and processing instructions.
 *
 * A list answer (`<apps><app>…</app>…</apps>`) is read item by item: each `<app>` is mapped as
 * soon as it closes and then dropped, so neither the text nor the tree of the whole answer is
 * held, only the items mapped; an item larger than MAX_ITEM_CHARS, or a root of another name,
 * is refused. Any other answer is built whole (its size is bounded by its endpoint's limit,
 * docs/security.md).
 *
 * Refused as they arrive, as RmMalformedResponseError: a DOCTYPE (an entity bomb or an external
 * entity needs one; the RM never sends one), elements nested deeper than MAX_ANSWER_DEPTH, and
 * any well-formedness error. Characters XML 1.0 does not allow in text (control characters an RM
 * may copy into a diagnostic) are kept, as the previous parser kept them.
 */

/** What the text of a refused answer begins with, for the error's excerpt. */
const EXCERPT_CHARS = 120;

interface Frame {
  name: string;
  /** Child elements, once there is one. */
  members: Record<string, Tree> | undefined;
  text: string;
  /** The `xsi:type` (any prefix) attribute, the one attribute the RM's XML uses for data. */
  type: string | undefined;
  attributes: boolean;
}

/** A list answer read item by item: the root's name, its items' name and how to map each. */
export interface XmlList<T> {
  list: string;
  item: string;
  map: (tree: Tree, index: number) => T;
  limit?: ItemLimit;
}

function valueOf(f: Frame): Tree {
  if (f.members !== undefined) {
    if (f.type !== undefined) f.members.type = f.type;
    return f.members;
  }
  if (f.type !== undefined) return { type: f.type };
  const text = f.text.trim();
  if (text !== '' || !f.attributes) return text;
  return {};
}

function attach(parent: Frame, name: string, value: Tree): void {
  if (parent.members === undefined) {
    parent.members = {};
    parent.text = '';
  }
  const members = parent.members;
  if (!Object.hasOwn(members, name)) members[name] = value;
  else {
    // A value is never an array of itself: an array is a repeated element's.
    const current = members[name]!;
    if (Array.isArray(current)) current.push(value);
    else members[name] = [current, value];
  }
}

function typeOf(tag: SaxesTagPlain): string | undefined {
  for (const [name, value] of Object.entries(tag.attributes)) {
    if (name === 'xsi:type' || name.endsWith(':type')) return String(value);
  }
  return undefined;
}

export class XmlReader<T = never> {
  /** The items mapped, in order (a list answer). */
  readonly items: T[] = [];
  private readonly parser = new SaxesParser<{ xmlns: false; position: true }>({
    xmlns: false,
    position: true,
  });
  private readonly stack: Frame[] = [];
  private root: { name: string; value: Tree } | undefined;
  /** Whether the root is the list named in `list` (its items are mapped, not kept). */
  private listRoot = false;
  private itemCount = 0;
  /** Where the item being read began (saxes' position), or -1 between items. */
  private itemFrom = -1;
  private failure: { err: unknown } | undefined;
  private excerpt = '';
  private ended = false;

  constructor(
    private readonly list?: XmlList<T>,
    private readonly maxDepth = MAX_ANSWER_DEPTH,
  ) {
    const p = this.parser;
    p.on('doctype', () => {
      throw new RmMalformedResponseError(
        'XML from the RM declares a DOCTYPE or entities: refused unread (the RM never sends one; entity expansion could exhaust memory)',
        { excerpt: this.shownExcerpt(), reason: 'doctype' },
      );
    });
    p.on('error', (err) => this.onError(err));
    p.on('opentag', (tag) => this.open(tag));
    p.on('closetag', () => this.close());
    p.on('text', (text) => this.text(text));
    p.on('cdata', (text) => this.text(text));
  }

  /** The first error `map` threw for an item, if any (thrown by `end` if the text was sound). */
  get error(): { err: unknown } | undefined {
    return this.failure;
  }

  /** Whether the answer was a list read item by item (`items`), rather than a tree. */
  get itemwise(): boolean {
    return this.listRoot;
  }

  write(chunk: string): void {
    if (this.excerpt.length < EXCERPT_CHARS) this.excerpt += chunk.slice(0, EXCERPT_CHARS);
    this.parser.write(chunk);
    if (this.itemFrom >= 0 && this.parser.position - this.itemFrom > MAX_ITEM_CHARS) {
      throw new TooLargeItem(this.parser.position - this.itemFrom);
    }
  }

  /**
   * The end of the text: the whole tree (for a list read item by item, its root without the
   * items). Throws what is wrong: the text cut short, a well-formedness error, no root, or the
   * first error an item's mapping threw.
   */
  end(): Tree {
    if (this.stack.length > 0) {
      const open = this.stack.map((f) => `<${f.name}>`).join('');
      throw new RmMalformedResponseError(`invalid XML from the RM: it ends inside ${open} (truncated)`, {
        excerpt: this.shownExcerpt(),
        reason: 'truncated',
      });
    }
    this.ended = true;
    this.parser.close();
    if (this.root === undefined) {
      throw new RmMalformedResponseError('XML from the RM has no root element', {
        excerpt: this.shownExcerpt(),
        reason: 'syntax',
      });
    }
    if (this.failure) throw this.failure.err;
    return { [this.root.name]: this.root.value };
  }

  private shownExcerpt(): string {
    const flat = this.excerpt.replace(/\s+/g, ' ').trim();
    return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat;
  }

  private onError(err: Error): void {
    // saxes reports `line:column: message`.
    const m = /^(\d+):(\d+): (.*?)\.?$/s.exec(err.message);
    const message = m?.[3] ?? err.message;
    // A control character in text: not XML 1.0, but harmless, and what an RM may write.
    if (message === 'disallowed character') return;
    // A text without a root element: end() says so in its own words.
    if (this.ended && this.root === undefined) return;
    const where = m ? ` (line ${m[1]}, column ${m[2]})` : '';
    throw new RmMalformedResponseError(`invalid XML from the RM: ${message}${where}`, {
      excerpt: this.shownExcerpt(),
      reason: 'syntax',
    });
  }

  private open(tag: SaxesTagPlain): void {
    const depth = this.stack.length + 1;
    if (depth > this.maxDepth) {
      throw new RmMalformedResponseError(
        `invalid XML from the RM: nested too deeply to read (more than ${this.maxDepth} levels)`,
        { excerpt: this.shownExcerpt(), reason: 'too-deep' },
      );
    }
    if (tag.name === '__proto__') {
      throw new RmMalformedResponseError('invalid XML from the RM: an element named __proto__', {
        excerpt: this.shownExcerpt(),
        reason: 'syntax',
      });
    }
    if (depth === 1 && this.list !== undefined) {
      // A list endpoint answers its list; anything else would be built whole, unbounded.
      if (tag.name !== this.list.list) {
        throw new RmMalformedResponseError(
          `the RM answered <${tag.name}> where the list <${this.list.list}> was expected`,
          { excerpt: this.shownExcerpt(), reason: 'shape' },
        );
      }
      this.listRoot = true;
    } else if (depth === 2 && this.listRoot && tag.name === this.list!.item) {
      this.itemCount++;
      countItem(this.list!.limit, this.itemCount);
      this.itemFrom = this.parser.position;
    }
    const parent = this.stack[this.stack.length - 1];
    // Text beside a child element is dropped: none is kept once the first child opens.
    if (parent !== undefined && parent.members === undefined) {
      parent.members = {};
      parent.text = '';
    }
    let attributes = false;
    for (const _ in tag.attributes) {
      attributes = true;
      break;
    }
    this.stack.push({
      name: tag.name,
      members: undefined,
      text: '',
      type: attributes ? typeOf(tag) : undefined,
      attributes,
    });
  }

  private close(): void {
    const frame = this.stack.pop()!;
    const value = valueOf(frame);
    const parent = this.stack[this.stack.length - 1];
    if (parent === undefined) {
      this.root = { name: frame.name, value };
      return;
    }
    if (this.stack.length === 1 && this.listRoot && frame.name === this.list!.item) {
      const index = this.itemCount - 1;
      this.itemFrom = -1;
      if (!this.failure) {
        try {
          this.items.push(this.list!.map(value, index));
        } catch (err) {
          this.failure = { err };
        }
      }
      return;
    }
    attach(parent, frame.name, value);
  }

  private text(text: string): void {
    const top = this.stack[this.stack.length - 1];
    if (top !== undefined && top.members === undefined) top.text += text;
  }
}

/** Parse a whole XML text into the tree (XmlReader, for a text already read). */
export function readXml(text: string): Tree {
  const reader = new XmlReader();
  reader.write(text);
  return reader.end();
}
