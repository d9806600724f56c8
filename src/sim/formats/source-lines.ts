import { LineCounter, isCollection, parseDocument, type Document } from 'yaml';
import type { ValidationIssue } from '../../errors/validation';

/**
 * A parsed YAML or JSON document that can say on which line a value sits, so a problem
 * found by validation is reported as `file:line: path: message`.
 */
export interface LocatedDocument {
  value: unknown;
  /** 1-based line of the value at `path`, or of its nearest existing ancestor. */
  lineOf(path: readonly PropertyKey[]): number;
  syntaxIssues: ValidationIssue[];
}

export function parseLocated(text: string, file: string): LocatedDocument {
  const lineCounter = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter, prettyErrors: false });
  const syntaxIssues: ValidationIssue[] = doc.errors.map((e) => ({
    path: '(syntax)',
    message: e.message.split('\n')[0] ?? e.message,
    file,
    line: e.linePos?.[0]?.line ?? lineCounter.linePos(e.pos[0]).line,
  }));
  const lineOf = (path: readonly PropertyKey[]): number => {
    for (let n = path.length; n >= 0; n--) {
      const node = doc.getIn(path.slice(0, n) as unknown[], true) as
        { range?: [number, number, number] } | undefined;
      if (node && typeof node === 'object' && node.range) return lineCounter.linePos(node.range[0]).line;
      if (n === 0 && isCollection(doc.contents) && doc.contents.range) {
        return lineCounter.linePos(doc.contents.range[0]).line;
      }
    }
    return 1;
  };
  return { value: syntaxIssues.length ? undefined : doc.toJS(), lineOf, syntaxIssues };
}

export function pathText(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out || '(root)';
}
