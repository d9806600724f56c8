/**
 * A list answer of the RM, `{"nodes":{"node":[{…},{…}]}}`, read item by item: each item is
 * parsed on its own and handed to `each` before the next is parsed, so the tree of the whole
 * answer is never built. 5,000 node reports are about 10 MB of JSON and five times that as one
 * tree, which outlives the collections that run while it is built and raises the heap's
 * high-water mark; one item's tree dies young.
 *
 * Only the plain shape is read this way: the two wrapping objects with one member each, an
 * array of objects, nothing after it but whitespace. Anything else (an empty list as `null` or
 * `{}`, a single item not in an array, another member, a syntax error anywhere) answers false
 * before `each` has seen anything it would not see from the whole tree, and the caller parses
 * the text whole: its errors, and what it reads of the other shapes, stay those of JSON.parse.
 * `each` may still have been called for the items before a fault found later in the text: the
 * caller starts again from the whole tree.
 *
 * After each `yieldEveryChars` of text read it lets the event loop turn (setImmediate) before the
 * next item: the nodes answer of 5,000 nodes took about 140 ms to read in one block, during which
 * the sidecar answered no submission and no probe.
 */
export async function eachJsonListItem(
  text: string,
  list: string,
  item: string,
  each: (tree: unknown, index: number) => void,
  yieldEveryChars = YIELD_EVERY_CHARS,
): Promise<boolean> {
  const s = new Scan(text);
  if (!s.peek(OPEN_BRACE) || !s.member(list) || !s.peek(OPEN_BRACE) || !s.member(item)) return false;
  if (!s.peek(OPEN_BRACKET)) return false;
  let index = 0;
  let turnedAt = s.position;
  if (!s.peek(CLOSE_BRACKET)) {
    for (;;) {
      const value = s.object();
      if (value === NOT_READ) return false;
      each(value, index++);
      if (s.position - turnedAt >= yieldEveryChars) {
        turnedAt = s.position;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      if (s.peek(COMMA)) continue;
      if (s.peek(CLOSE_BRACKET)) break;
      return false;
    }
  }
  return s.peek(CLOSE_BRACE) && s.peek(CLOSE_BRACE) && s.atEnd();
}

/** Text read between two turns of the event loop: half a MiB, a few milliseconds of parsing. */
export const YIELD_EVERY_CHARS = 512 * 1024;

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

const NOT_READ = Symbol('not read');

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

  /** Whether the next character (after whitespace) is `c`, consumed if so. */
  peek(c: number): boolean {
    this.space();
    if (this.s.charCodeAt(this.i) !== c) return false;
    this.i++;
    return true;
  }

  atEnd(): boolean {
    this.space();
    return this.i === this.s.length;
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
    if (s.charCodeAt(this.i) !== QUOTE) return false;
    const end = this.stringEnd(this.i);
    if (end < 0 || end - this.i - 2 !== name.length || !s.startsWith(name, this.i + 1)) return false;
    this.i = end;
    return this.peek(COLON);
  }

  /**
   * The object at the cursor, parsed alone: its end is the brace that closes it, strings
   * skipped; JSON.parse checks what lies between. NOT_READ for anything else, or a fault.
   */
  object(): unknown {
    this.space();
    const s = this.s;
    const start = this.i;
    if (s.charCodeAt(start) !== OPEN_BRACE) return NOT_READ;
    let depth = 0;
    for (let j = start; j < s.length; j++) {
      const c = s.charCodeAt(j);
      if (c === QUOTE) {
        const end = this.stringEnd(j);
        if (end < 0) return NOT_READ;
        j = end - 1;
      } else if (c === OPEN_BRACE) depth++;
      else if (c === CLOSE_BRACE && --depth === 0) {
        this.i = j + 1;
        try {
          return JSON.parse(s.slice(start, j + 1)) as unknown;
        } catch {
          return NOT_READ;
        }
      }
    }
    return NOT_READ;
  }
}
