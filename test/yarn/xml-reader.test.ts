/**
 * XML read as it arrives (src/yarn/xml-reader.ts, saxes): the same tree the previous parser
 * (fast-xml-parser, kept here as the reference) gave for every XML sample of Hadoop's
 * documentation and tests; a list read item by item gives the same items, or the same error, as
 * the whole tree mapped, in chunks of any size; and every refusal is typed as it arrives.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { XMLParser } from 'fast-xml-parser';
import { RmMalformedResponseError } from '../../src/errors/rm-malformed';
import type { Tree } from '../../src/yarn/format';
import { MAX_ANSWER_DEPTH, MAX_ITEM_CHARS, TooLargeItem, TooManyItems } from '../../src/yarn/limits';
import { appsList, mapApps, nodesList, mapNodes } from '../../src/yarn/mapping';
import { readXml, XmlReader, type XmlList } from '../../src/yarn/xml-reader';

const ROOT = path.join(__dirname, '..', 'fixtures', 'yarn-rm-api');

/** The previous reading: fast-xml-parser's tree in the natural notation. */
const reference = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  processEntities: { enabled: true, maxEntityCount: 1, maxEntitySize: 1, maxExpansionDepth: 1 },
});

function normalise(node: unknown): Tree {
  if (node === null || node === undefined) return '';
  if (typeof node === 'string' || typeof node === 'number' || typeof node === 'boolean') return node;
  if (Array.isArray(node)) return node.map(normalise);
  const out: Record<string, Tree> = {};
  let text: string | undefined;
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key === '#text') text = String(value);
    else if (key.startsWith('@_')) {
      const attr = key.slice(2);
      if (attr === 'xsi:type' || attr.endsWith(':type')) out.type = String(value);
    } else out[key] = normalise(value);
  }
  if (text !== undefined && Object.keys(out).length === 0) return text;
  return out;
}

function xmlFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return xmlFiles(p);
    return e.name.endsWith('.xml') ? [p] : [];
  });
}

function chunked(text: string, sizes: readonly number[]): string[] {
  const out: string[] = [];
  let at = 0;
  for (let k = 0; at < text.length; k++) {
    const n = Math.max(1, sizes[k % sizes.length]!);
    out.push(text.slice(at, at + n));
    at += n;
  }
  return out;
}

function read<T>(reader: XmlReader<T>, chunks: readonly string[]): { tree: Tree } | { error: unknown } {
  try {
    for (const c of chunks) reader.write(c);
    return { tree: reader.end() };
  } catch (error) {
    return { error };
  }
}

const described = (err: unknown): string =>
  err instanceof RmMalformedResponseError ? `${err.reason}: ${err.message}` : String(err);

describe('the tree', () => {
  const files = xmlFiles(ROOT).filter((f) => !/DOCTYPE/.test(fs.readFileSync(f, 'utf8')));

  it('is the previous parser’s for every XML sample', () => {
    expect(files.length).toBeGreaterThan(40);
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8');
      // Character references: the previous parser kept them as written; XML reads them.
      if (/&#/.test(text)) continue;
      expect({ file, tree: readXml(text) }).toEqual({ file, tree: normalise(reference.parse(text)) });
    }
  });

  it.each([
    ['<a/>', { a: '' }],
    ['<a>  </a>', { a: '' }],
    ['<a> x </a>', { a: 'x' }],
    ['<a><b>1</b><c/><b>2</b></a>', { a: { b: ['1', '2'], c: '' } }],
    ['<a x="1"/>', { a: {} }],
    ['<a x="1">t</a>', { a: 't' }],
    ['<a xsi:type="T">t</a>', { a: { type: 'T' } }],
    ['<a xsi:type="T"><type>X</type><b>1</b></a>', { a: { b: '1', type: 'T' } }],
    ['<a>t<b>1</b>u</a>', { a: { b: '1' } }],
    ['<a>p<![CDATA[<x>]]>q</a>', { a: 'p<x>q' }],
    ['<a>&lt;&amp;&gt;&quot;&apos;</a>', { a: '<&>"\'' }],
    ['<a>1<!-- c -->2<?pi x?></a>', { a: '12' }],
    ['<a><constructor>1</constructor><toString/></a>', { a: { constructor: '1', toString: '' } }],
    ['<a>&#233;&#x41;</a>', { a: 'éA' }],
    ['<a>x\u001b[31my</a>', { a: 'x\u001b[31my' }],
  ])('%s', (xml, tree) => {
    expect(readXml(xml)).toEqual(tree);
  });
});

describe('refused as it arrives', () => {
  it.each([
    ['a DOCTYPE', '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>', 'doctype', /DOCTYPE/],
    ['a mismatched tag', '<a><b>x</c></a>', 'syntax', /invalid XML from the RM: .* \(line 1, column \d+\)/],
    ['two roots', '<a/><b/>', 'syntax', /only one root/],
    ['text after the root', '<a/>junk', 'syntax', /outside of root/],
    ['an undefined entity', '<a>&foo;</a>', 'syntax', /undefined entity/],
    ['an element named __proto__', '<a><__proto__>1</__proto__></a>', 'syntax', /__proto__/],
    ['nothing but a declaration', '<?xml version="1.0"?>', 'syntax', /no root element/],
  ])('%s', (_name, xml, reason, says) => {
    let err: unknown;
    try {
      readXml(xml);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RmMalformedResponseError);
    expect((err as RmMalformedResponseError).reason).toBe(reason);
    expect((err as Error).message).toMatch(says);
  });

  it('a text cut short, saying inside which elements', () => {
    expect(() => readXml('<?xml version="1.0"?><clusterInfo><id>1</id><haState>ACT')).toThrow(
      'invalid XML from the RM: it ends inside <clusterInfo><haState> (truncated)',
    );
  });

  it(`nesting past ${MAX_ANSWER_DEPTH} levels, at the element that passes it (not after the text)`, () => {
    const reader = new XmlReader();
    const deep = '<a>'.repeat(MAX_ANSWER_DEPTH);
    reader.write(deep);
    expect(() => reader.write('<a>')).toThrow(/nested too deeply to read \(more than 128 levels\)/);
    expect(() => readXml(`${deep}${'</a>'.repeat(MAX_ANSWER_DEPTH)}`)).not.toThrow();
    expect(() => readXml(`${'<a>'.repeat(1e5)}${'</a>'.repeat(1e5)}`)).toThrow(RmMalformedResponseError);
  });
});

const sample = fs.readFileSync(path.join(ROOT, 'samples-xml', 'cluster-apps.response.xml'), 'utf8');
const oneApp = /<app>[\s\S]*?<\/app>/.exec(sample)![0];

function appsXml(n: number, change: (i: number, app: string) => string = (_i, a) => a): string {
  const apps = Array.from({ length: n }, (_, i) =>
    change(i, oneApp.replace(/application_\d+_\d+/g, `application_1_${String(i).padStart(4, '0')}`)),
  );
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<apps>\n${apps.join('\n')}\n</apps>`;
}

function itemwise<T>(list: XmlList<T>, text: string, sizes: number[]) {
  const reader = new XmlReader<T>(list);
  const out = read(reader, chunked(text, sizes));
  return 'error' in out
    ? { error: described(out.error) }
    : { items: reader.items, itemwise: reader.itemwise };
}

function whole<T>(map: (t: Tree) => T[], text: string) {
  try {
    return { items: map(readXml(text)), itemwise: true };
  } catch (err) {
    return { error: described(err) };
  }
}

describe('a list read item by item', () => {
  it('gives the items of the whole tree, in chunks of any size, holding one item at a time', () => {
    const text = appsXml(30);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 900 }), { minLength: 1, maxLength: 6 }), (sizes) => {
        expect(itemwise(appsList.xml(), text, sizes)).toEqual(whole(mapApps, text));
      }),
      { numRuns: 60 },
    );
    const nodes = fs.readFileSync(path.join(ROOT, 'samples-xml', 'cluster-nodes.response.xml'), 'utf8');
    expect(itemwise(nodesList.xml(), nodes, [37])).toEqual(whole(mapNodes, nodes));
    expect(itemwise(appsList.xml(), '<apps/>', [3])).toEqual({ items: [], itemwise: true });
  });

  it('gives the first item’s mapping error, with its path, when the text is sound', () => {
    const text = appsXml(5, (i, app) =>
      i === 3 ? app.replace(/<startedTime>\d+/, '<startedTime>soon') : app,
    );
    const r = itemwise(appsList.xml(), text, [100]);
    expect(r).toEqual(whole(mapApps, text));
    expect(r).toEqual({ error: expect.stringMatching(/apps\.app\[3\]\.startedTime should be a number/) });
  });

  it('gives the syntax error over a mapping error, as the whole parse does', () => {
    const text = appsXml(5, (i, app) =>
      i === 1 ? app.replace(/<startedTime>\d+/, '<startedTime>soon') : app,
    );
    const r = itemwise(appsList.xml(), `${text.slice(0, -10)}</app>`, [64]);
    expect(r).toEqual({ error: expect.stringMatching(/^syntax: /) });
  });

  it('refuses a root of another name than the list’s, at once', () => {
    const reader = new XmlReader(appsList.xml());
    expect(() => reader.write('<nodes><node>')).toThrow(
      /answered <nodes> where the list <apps> was expected/,
    );
  });

  it('stops at the item past its limit, and at an item past MAX_ITEM_CHARS', () => {
    const reader = new XmlReader(appsList.xml({ maxItems: 3 }));
    const text = appsXml(10);
    let err: unknown;
    try {
      for (const c of chunked(text, [200])) reader.write(c);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TooManyItems);
    expect((err as TooManyItems).items).toBe(4);
    expect(reader.items).toHaveLength(3);

    const big = new XmlReader(appsList.xml());
    big.write('<apps><app><diagnostics>');
    const block = 'x'.repeat(1024 * 1024);
    expect(() => {
      for (let i = 0; i <= MAX_ITEM_CHARS / block.length; i++) big.write(block);
    }).toThrow(TooLargeItem);
  });
});
