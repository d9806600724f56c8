import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/**
 * Reading a stream of concatenated JSON objects (`{...}{...}` or one per line, pretty-printed
 * over many lines, as Hadoop's Rumen and SLS files are) a piece at a time: the scanner is fed
 * text in chunks and hands back each complete object with the line it starts on, so a file is
 * never held whole. `//` comments outside strings are skipped (SLS's documentation writes its
 * examples with them). Objects at the top level may be separated by whitespace, commas or
 * brackets (a JSON array of objects reads the same).
 */
export interface ScannedObject {
  text: string;
  /** 1-based line of the object's opening brace. */
  line: number;
}

export type ScanProblem =
  | { kind: 'stray'; line: number }
  | { kind: 'too-large'; line: number; chars: number }
  | { kind: 'unclosed'; line: number };

/** One object may hold at most this many characters (64 Mi): memory stays bounded. */
export const MAX_OBJECT_CHARS = 64 * 1024 * 1024;

const NL = 10;
const QUOTE = 34;
const BACKSLASH = 92;
const SLASH = 47;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const COMMA = 44;

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === NL || c === 13 || c === 0xfeff;
}

export class JsonObjectScanner {
  private line = 1;
  private depth = 0;
  private inString = false;
  private escape = false;
  private inComment = false;
  /** A '/' ended the previous chunk: the next character decides whether it opens a comment. */
  private pendingSlash = false;
  private parts: string[] = [];
  private chars = 0;
  private startLine = 0;
  private oversized = false;
  private skipLine = false;

  constructor(private readonly maxObjectChars = MAX_OBJECT_CHARS) {}

  /** Feeds the next piece of text; calls `onObject` for each object it completes, `onProblem` for each fault. */
  push(chunk: string, onObject: (o: ScannedObject) => void, onProblem: (p: ScanProblem) => void): void {
    let segStart = this.depth > 0 && !this.inComment ? 0 : -1;
    let i = 0;
    if (this.pendingSlash) {
      this.pendingSlash = false;
      if (chunk.charCodeAt(0) === SLASH) {
        this.inComment = true;
        segStart = -1;
        i = 1;
      } else if (this.depth === 0) {
        onProblem({ kind: 'stray', line: this.line });
        this.skipLine = true;
      } else this.keep('/');
    }
    for (; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (this.inComment) {
        if (c !== NL) continue;
        this.inComment = false;
        if (this.depth > 0) segStart = i;
      }
      if (c === NL) this.line++;
      if (this.inString) {
        if (this.escape) this.escape = false;
        else if (c === BACKSLASH) this.escape = true;
        else if (c === QUOTE) this.inString = false;
        continue;
      }
      if (c === SLASH) {
        if (i + 1 === chunk.length) {
          if (this.depth > 0 && segStart >= 0) this.keep(chunk.slice(segStart, i));
          segStart = -1;
          this.pendingSlash = true;
          break;
        }
        if (chunk.charCodeAt(i + 1) === SLASH) {
          if (this.depth > 0 && segStart >= 0) this.keep(chunk.slice(segStart, i));
          segStart = -1;
          this.inComment = true;
          i++;
          continue;
        }
      }
      if (this.depth === 0) {
        if (this.skipLine) {
          if (c === NL) this.skipLine = false;
          continue;
        }
        if (c === OPEN_BRACE) {
          this.depth = 1;
          this.startLine = this.line;
          this.parts = [];
          this.chars = 0;
          this.oversized = false;
          segStart = i;
        } else if (!isSpace(c) && c !== COMMA && c !== OPEN_BRACKET && c !== CLOSE_BRACKET) {
          onProblem({ kind: 'stray', line: this.line });
          // Skip to the end of the line: one report per stray line, not per character.
          this.skipLine = true;
        }
        continue;
      }
      if (segStart < 0) segStart = i;
      if (c === QUOTE) this.inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) this.depth++;
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        this.depth--;
        if (this.depth === 0) {
          this.keep(chunk.slice(segStart, i + 1));
          segStart = -1;
          if (this.oversized) onProblem({ kind: 'too-large', line: this.startLine, chars: this.chars });
          else onObject({ text: this.parts.join(''), line: this.startLine });
          this.parts = [];
        }
      }
    }
    if (this.depth > 0 && segStart >= 0 && !this.pendingSlash) this.keep(chunk.slice(segStart));
  }

  /** After the last chunk: reports an object still open. */
  end(onProblem: (p: ScanProblem) => void): void {
    if (this.pendingSlash && this.depth === 0) onProblem({ kind: 'stray', line: this.line });
    if (this.depth > 0) onProblem({ kind: 'unclosed', line: this.startLine });
  }

  private keep(text: string): void {
    this.chars += text.length;
    if (this.oversized) return;
    if (this.chars > this.maxObjectChars) {
      this.oversized = true;
      this.parts = [];
      return;
    }
    this.parts.push(text);
  }
}

/** Reads a file as UTF-8 text in chunks of `chunkBytes`, without holding it whole. */
export function readTextChunks(file: string, onChunk: (text: string) => void, chunkBytes = 1 << 20): void {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(chunkBytes);
    const decoder = new StringDecoder('utf8');
    for (;;) {
      const n = readSync(fd, buf, 0, chunkBytes, null);
      if (n === 0) break;
      const text = decoder.write(buf.subarray(0, n));
      if (text) onChunk(text);
    }
    const rest = decoder.end();
    if (rest) onChunk(rest);
  } finally {
    closeSync(fd);
  }
}

/** Splits a whole text (a small file, a test) into its objects and problems. */
export function scanJsonObjects(text: string): { objects: ScannedObject[]; problems: ScanProblem[] } {
  const objects: ScannedObject[] = [];
  const problems: ScanProblem[] = [];
  const scanner = new JsonObjectScanner();
  scanner.push(
    text,
    (o) => objects.push(o),
    (p) => problems.push(p),
  );
  scanner.end((p) => problems.push(p));
  return { objects, problems };
}
