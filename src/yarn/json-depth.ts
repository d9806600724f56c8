import { RmMalformedResponseError } from '../errors/rm-malformed';
import { MAX_ANSWER_DEPTH } from './limits';

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

/**
 * How deeply a JSON text nests, checked as its text arrives, before anything parses or walks it.
 * JSON.parse itself reads any depth, but every walk of its tree that recurses (a message that
 * shows a value, a mapping that descends) overflows the stack on a text nested 100,000 deep,
 * and that RangeError would reach a catch-all as something else. Past `maxDepth` the text is
 * refused: RmMalformedResponseError, reason `too-deep`.
 *
 * Strings are skipped with indexOf (brackets inside them do not count), so the scan costs about
 * a third of JSON.parse of the same text. Only the nesting is checked: the syntax is JSON.parse's.
 */
export class JsonDepthGuard {
  private depth = 0;
  private inString = false;
  /** The next character is escaped (a backslash ended the last chunk inside a string). */
  private escaped = false;

  constructor(private readonly maxDepth = MAX_ANSWER_DEPTH) {}

  write(s: string): void {
    const n = s.length;
    if (n === 0) return;
    let i = 0;
    if (this.escaped) {
      this.escaped = false;
      i = 1;
    }
    while (i < n) {
      if (this.inString) {
        const from = i;
        const q = s.indexOf('"', i);
        if (q < 0) {
          this.escaped = oddBackslashesBefore(s, n, from);
          return;
        }
        i = q + 1;
        if (!oddBackslashesBefore(s, q, from)) this.inString = false;
        continue;
      }
      const c = s.charCodeAt(i++);
      if (c === QUOTE) this.inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (++this.depth > this.maxDepth) throw tooDeep(this.maxDepth);
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) this.depth--;
    }
  }
}

/** Whether the run of backslashes ending at `end` (exclusive, not before `from`) is odd. */
function oddBackslashesBefore(s: string, end: number, from: number): boolean {
  let b = end - 1;
  while (b >= from && s.charCodeAt(b) === BACKSLASH) b--;
  return (end - 1 - b) % 2 === 1;
}

export function tooDeep(maxDepth: number): RmMalformedResponseError {
  return new RmMalformedResponseError(
    `invalid JSON from the RM: nested too deeply to read (more than ${maxDepth} levels)`,
    { reason: 'too-deep' },
  );
}

/** Throws when `text` nests deeper than `maxDepth` (JsonDepthGuard over a whole text). */
export function checkJsonDepth(text: string, maxDepth = MAX_ANSWER_DEPTH): void {
  new JsonDepthGuard(maxDepth).write(text);
}
