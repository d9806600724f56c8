import { RmMalformedResponseError } from '../errors/rm-malformed';
import type { Tree } from './format';

/**
 * A comma-separated list as Hadoop writes one (application tags, a query's repeated values) and
 * as the sidecar's environment gives one: each item trimmed, empty items dropped.
 */
export function splitList(text: string): string[] {
  const items = text.split(',');
  // Mostly nothing to trim or drop (the RM writes tags without spaces): no copies then.
  for (const s of items) if (s.length === 0 || s.trim().length !== s.length) return tidy(items);
  return items;
}

function tidy(items: string[]): string[] {
  return items.map((s) => s.trim()).filter((s) => s.length > 0);
}

/**
 * A cursor over a decoded body that knows its path, so a missing or mistyped field is reported
 * as `apps.app[2].startedTime`, and that accepts both of the RM's dialects for every value:
 * numbers as numbers or strings (XML, and the Jersey default notation of the reservation and
 * container bodies), a list as an array or a single object, an empty list as null, `{}`, `''`
 * (an empty XML element) or a missing key (INDEX.md section 5).
 */
export class Node {
  /**
   * The path, built when first asked for (an error, a field path in a message): a member's
   * cursor holds its parent and its key instead, so reading hundreds of reports a cycle does not
   * build a path string for every field it reads.
   */
  private text: string | undefined;
  private parent: Node | undefined = undefined;
  /** The member's key, or its index in a list. */
  private step: string | number | undefined = undefined;

  constructor(
    readonly value: Tree | undefined,
    path: string,
  ) {
    this.text = path;
  }

  static root(value: Tree): Node {
    return new Node(value, '');
  }

  private static under(value: Tree | undefined, parent: Node, step: string | number): Node {
    const n = new Node(value, '');
    n.text = undefined;
    n.parent = parent;
    n.step = step;
    return n;
  }

  /** Where this value is in the body, as `apps.app[2].startedTime` ('' at the root). */
  get path(): string {
    if (this.text === undefined) {
      const base = this.parent!.path;
      const step = this.step!;
      this.text = typeof step === 'number' ? `${base}[${step}]` : base ? `${base}.${step}` : step;
    }
    return this.text;
  }

  private fail(expected: string): never {
    const shown = this.value === undefined ? 'missing' : JSON.stringify(this.value)?.slice(0, 60);
    throw new RmMalformedResponseError(
      `RM body: ${this.path || '(root)'} should be ${expected}, got ${shown}`,
      {
        fieldPath: this.path,
      },
    );
  }

  get present(): boolean {
    return this.value !== undefined && this.value !== null;
  }

  private isObject(): boolean {
    return typeof this.value === 'object' && this.value !== null && !Array.isArray(this.value);
  }

  /** A member; missing members give a cursor whose value is undefined. */
  get(key: string): Node {
    const child = this.isObject() ? (this.value as Record<string, Tree>)[key] : undefined;
    return Node.under(child, this, key);
  }

  /** A member that must be there. */
  req(key: string): Node {
    const child = this.get(key);
    if (!child.present) {
      if (!this.isObject()) this.fail('an object');
      child.fail('present');
    }
    return child;
  }

  /** Object whose only key is `root`, or the object itself: for the RM's unwrapped JSON roots. */
  unwrap(root: string): Node {
    const inner = this.get(root);
    return inner.isObject() ? inner : this;
  }

  keys(): string[] {
    return this.isObject() ? Object.keys(this.value as object) : [];
  }

  /** The elements of a list, whatever form the RM used for it. */
  list(): Node[] {
    const v = this.value;
    if (v === undefined || v === null || v === '') return [];
    if (Array.isArray(v)) return v.map((item, i) => Node.under(item, this, i));
    if (typeof v === 'object' && Object.keys(v).length === 0) return [];
    return [Node.under(v, this, 0)];
  }

  /** `{apps:{app:[…]}}`: the items under `key` of a wrapper that may itself be empty. */
  listOf(key: string): Node[] {
    return this.get(key).list();
  }

  num(): number {
    const v = this.value;
    if (typeof v === 'number') return v;
    if (typeof v === 'string' && v.trim() !== '') {
      if (v === 'NaN') return Number.NaN;
      const n = Number(v);
      if (!Number.isNaN(n)) return n;
    }
    return this.fail('a number');
  }

  numOr(fallback: number): number {
    return this.present && this.value !== '' ? this.num() : fallback;
  }

  /** Members of this object that are numbers, each 0 when the RM leaves it out (`numOr(0)`). */
  nums<K extends string>(...keys: K[]): Record<K, number> {
    const out = {} as Record<K, number>;
    for (const k of keys) out[k] = this.get(k).numOr(0);
    return out;
  }

  /** Members of this object that are strings, each '' when the RM leaves it out (`strOr('')`). */
  strs<K extends string>(...keys: K[]): Record<K, string> {
    const out = {} as Record<K, string>;
    for (const k of keys) out[k] = this.get(k).strOr('');
    return out;
  }

  /**
   * A number the RM may leave out (a field newer than the RM, or one it omits when null): the
   * number, from a number or a string, or undefined when the member is missing, null or an
   * empty XML element. Never a default.
   */
  optNum(): number | undefined {
    return this.present && this.value !== '' ? this.num() : undefined;
  }

  int(): number {
    const n = this.num();
    if (!Number.isInteger(n)) this.fail('an integer');
    return n;
  }

  str(): string {
    const v = this.value;
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    return this.fail('a string');
  }

  strOr(fallback: string): string {
    return this.present ? this.str() : fallback;
  }

  optStr(): string | undefined {
    return this.present ? this.str() : undefined;
  }

  /** A boolean, or its text (`"true"`, `"false"`) as Jersey's default notation and XML write it. */
  bool(): boolean {
    const v = this.value;
    if (typeof v === 'boolean') return v;
    if (typeof v === 'string') {
      const t = v.trim().toLowerCase();
      if (t === 'true') return true;
      if (t === 'false') return false;
    }
    return this.fail('a boolean');
  }

  boolOr(fallback: boolean): boolean {
    return this.present && this.value !== '' ? this.bool() : fallback;
  }

  /** A boolean the RM may leave out: undefined when missing, null or an empty XML element. */
  optBool(): boolean | undefined {
    return this.present && this.value !== '' ? this.bool() : undefined;
  }

  /** A list of strings that may also come as one string (XML `<nodeLabels>x</nodeLabels>`). */
  strings(): string[] {
    return this.list().map((n) => n.str());
  }
}
