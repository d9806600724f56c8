import { countItem, MAX_ITEM_CHARS, type ItemLimit, TooLargeItem } from './limits';

/**
 * The RM's list answers, `{"nodes":{"node":[{…},{…}]}}`, read item by item as their text
 * arrives (JsonListSink, below): each item is parsed on its own and mapped before the next, so
 * neither the whole text nor the tree of the whole answer is held. 5,000 node reports are about
 * 10 MB of JSON and five times that as one tree, which outlived the collections run while it
 * was built and raised the heap's high-water mark; one item's tree dies young.
 */

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

/** A cursor over the opening of a list answer: its wrappers' names and brackets. */
class Scan {
  private i = 0;

  constructor(private readonly s: string) {}

  /** How far the text has been read. */
  get position(): number {
    return this.i;
  }

  private space(): void {
    const s = this.s;
    let c = s.charCodeAt(this.i);
    while (c === 32 || c === 10 || c === 13 || c === 9) c = s.charCodeAt(++this.i);
  }

  /** Whether a check failed because the text ended before it could be decided. */
  ranOut = false;

  /** Whether the next character (after whitespace) is `c`, consumed if so. */
  peek(c: number): boolean {
    this.space();
    if (this.i >= this.s.length) this.ranOut = true;
    if (this.s.charCodeAt(this.i) !== c) return false;
    this.i++;
    return true;
  }

  /** The index after the string that opens at `at`: its first quote not escaped. */
  private stringEnd(at: number): number {
    const s = this.s;
    let from = at + 1;
    for (;;) {
      const q = s.indexOf('"', from);
      if (q < 0) return -1;
      let b = q - 1;
      while (s.charCodeAt(b) === BACKSLASH) b--;
      // An even run of backslashes before the quote escapes only themselves.
      if ((q - 1 - b) % 2 === 0) return q + 1;
      from = q + 1;
    }
  }

  /** `"name":` exactly (no escapes: the RM writes its member names plain). */
  member(name: string): boolean {
    this.space();
    const s = this.s;
    if (this.i >= s.length) this.ranOut = true;
    if (s.charCodeAt(this.i) !== QUOTE) return false;
    const end = this.stringEnd(this.i);
    if (end < 0) this.ranOut = true;
    if (end < 0 || end - this.i - 2 !== name.length || !s.startsWith(name, this.i + 1)) return false;
    this.i = end;
    return this.peek(COLON);
  }
}

/**
 * Reads a JSON answer's text as it arrives (the transport's `sink`). Below `streamFromChars` it
 * only keeps the text, which `end` returns, for the caller to read as before. Past it, if the
 * text so far opens the plain list shape (`{"<list>":{"<item>":[`), it reads the list item by
 * item as the text arrives: each item parsed on its own and given to `map` (which may throw:
 * the first error is kept, for the caller to throw once the whole text has been read, so that a
 * text also broken further on gives JSON.parse's error instead), the text read dropped, so
 * neither the whole text nor its tree is ever held (a nodes answer of 5,000 nodes is about
 * 10 MB); the event loop turns between the answer's chunks. `end` then returns ''. Anything the plain shape does not allow after that (a syntax
 * error, another member, the text cut short) makes the outcome `fault`: the caller reads the
 * answer again whole, and its errors stay those of JSON.parse.
 */
export class JsonListSink<T> {
  /** The items `map` gave, in order (an outcome of 'items'). */
  readonly items: T[] = [];
  private mode: 'text' | 'items' | 'fault' = 'text';
  private decided = false;
  /** Text mode: everything so far. Items mode: what is not read yet. */
  private text = '';
  /** Items mode: where the plain shape is (what comes next). */
  private next: 'first' | 'item' | 'separator' | 'close-list' | 'close-wrapper' | 'end' = 'first';
  /** Items mode, inside an item: where it starts, how far it was scanned, and the scan's state. */
  private itemStart = -1;
  private scanned = 0;
  private depth = 0;
  private inString = false;
  private index = 0;
  /** Items begun, counted against `limit`. */
  private opened = 0;
  private failure: { err: unknown } | undefined;

  constructor(
    private readonly list: string,
    private readonly item: string,
    private readonly map: (tree: unknown, index: number) => T,
    private readonly streamFromChars: number,
    /** Items past this many throw TooManyItems as they are read (items mode). */
    private readonly limit?: ItemLimit,
    /** A pending item, or a text not in the plain shape, past this many characters throws TooLargeItem. */
    private readonly maxItemChars = MAX_ITEM_CHARS,
  ) {}

  /** 'text': the answer is in `end`'s text; 'items': every item was mapped (`items`); 'fault'. */
  get outcome(): 'text' | 'items' | 'fault' {
    if (this.mode === 'items' && this.next !== 'end') return 'fault';
    return this.mode;
  }

  /** The first error `map` threw, if any (for an outcome of 'items'). */
  get error(): { err: unknown } | undefined {
    return this.failure;
  }

  write(chunk: string): void {
    if (this.mode === 'fault' || chunk === '') return;
    this.text += chunk;
    if (this.mode === 'text') {
      // A list answer not in the plain shape is an RM's only when small (an empty list as
      // null, a single report): past this, it is no RM's answer, and is not held.
      if (this.decided && this.text.length > this.maxItemChars) throw new TooLargeItem(this.text.length);
      if (this.decided || this.text.length < this.streamFromChars) return;
      const s = new Scan(this.text);
      const plain =
        s.peek(OPEN_BRACE) &&
        s.member(this.list) &&
        s.peek(OPEN_BRACE) &&
        s.member(this.item) &&
        s.peek(OPEN_BRACKET);
      // An opening not all there yet is decided when more of it comes.
      if (!plain && s.ranOut) return;
      this.decided = true;
      if (!plain) return;
      this.mode = 'items';
      this.text = this.text.slice(s.position);
    }
    this.read();
  }

  /** The text kept (text mode), else ''. */
  end(): string {
    return this.mode === 'text' ? this.text : '';
  }

  /** Reads what it can of `text`, then keeps only what is not read yet. */
  private read(): void {
    const s = this.text;
    let i = 0;
    // The items closed in this text: from the start of the first to the end of the last, with
    // the separators between them (checked by `structure`, and again by JSON.parse).
    let batchFrom = -1;
    let batchTo = -1;
    for (;;) {
      if (this.itemStart >= 0) {
        const closed = this.closeOfItem(s);
        if (closed < 0) break;
        // Parsed with the other items closed in this text, as one array (one JSON.parse).
        if (batchFrom < 0) batchFrom = this.itemStart;
        batchTo = closed;
        i = closed + 1;
        this.itemStart = -1;
        this.next = 'separator';
        continue;
      }
      while (i < s.length) {
        const c = s.charCodeAt(i);
        if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
        i++;
      }
      if (i >= s.length) break;
      i = this.structure(s, i);
      if (i < 0) return this.toFault();
    }
    if (batchFrom >= 0 && !this.mapItems(s.slice(batchFrom, batchTo + 1))) return this.toFault();
    // An item begun and not closed: keep it from its start (its scan goes on where it stopped).
    if (this.itemStart >= 0) {
      this.text = s.slice(this.itemStart);
      this.scanned -= this.itemStart;
      this.itemStart = 0;
    } else this.text = s.slice(i);
  }

  /** Anything the plain shape does not allow: the caller reads the answer again whole. */
  private toFault(): void {
    this.mode = 'fault';
    this.text = '';
  }

  /**
   * Inside an item: the index of the brace that closes it, strings skipped, scanned from where
   * the last chunk left off; -1 while it is not in `s` yet (TooLargeItem past maxItemChars).
   */
  private closeOfItem(s: string): number {
    let j = this.scanned;
    while (j < s.length) {
      if (this.inString) {
        // To its closing quote at once: one not escaped by an odd run of backslashes (the
        // item's text is kept from its start, so a run is all in `s`).
        const q = s.indexOf('"', j);
        if (q < 0) {
          j = s.length;
          break;
        }
        let b = q - 1;
        while (s.charCodeAt(b) === BACKSLASH) b--;
        if ((q - 1 - b) % 2 === 0) this.inString = false;
        j = q + 1;
        continue;
      }
      const c = s.charCodeAt(j);
      if (c === QUOTE) this.inString = true;
      else if (c === OPEN_BRACE) this.depth++;
      else if (c === CLOSE_BRACE && --this.depth === 0) return j;
      j++;
    }
    this.scanned = j;
    if (j - this.itemStart > this.maxItemChars) throw new TooLargeItem(j - this.itemStart);
    return -1;
  }

  /**
   * Between items: the character at `i` (not blank) read as the plain shape allows there (an
   * item opened, a separator, the list's and its wrapper's closings). The index to read on
   * from, or -1 for a character the shape does not allow.
   */
  private structure(s: string, i: number): number {
    const c = s.charCodeAt(i);
    if (this.next === 'first' || this.next === 'item') {
      if (c === CLOSE_BRACKET && this.next === 'first') {
        this.next = 'close-list';
        return i + 1;
      }
      if (c !== OPEN_BRACE) return -1;
      countItem(this.limit, ++this.opened);
      this.itemStart = i;
      this.scanned = i + 1;
      this.depth = 1;
      this.inString = false;
      return i;
    }
    if (this.next === 'separator') {
      if (c === COMMA) this.next = 'item';
      else if (c === CLOSE_BRACKET) this.next = 'close-list';
      else return -1;
      return i + 1;
    }
    if (this.next === 'close-list' || this.next === 'close-wrapper') {
      if (c !== CLOSE_BRACE) return -1;
      this.next = this.next === 'close-list' ? 'close-wrapper' : 'end';
      return i + 1;
    }
    return -1;
  }

  /** The items of `batch` (their text with the separators) parsed and mapped; false if not JSON. */
  private mapItems(batch: string): boolean {
    let trees: unknown[];
    try {
      trees = JSON.parse(`[${batch}]`) as unknown[];
    } catch {
      return false;
    }
    for (const tree of trees) {
      if (!this.failure) {
        try {
          this.items.push(this.map(tree, this.index));
        } catch (err) {
          this.failure = { err };
        }
      }
      this.index++;
    }
    return true;
  }
}
