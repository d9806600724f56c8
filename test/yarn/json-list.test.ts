/**
 * A list answer read item by item (src/yarn/json-list.ts, mapping.ts' listOfJsonText) gives what
 * the whole tree gives: the same reports for every text JSON.parse reads, the same error for every
 * text it refuses or mapping refuses, and declines (undefined) every shape but the plain one.
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { RmMalformedResponseError } from '../../src/errors/rm-malformed';
import { HttpResourceManagerClient, ITEMWISE_MIN_CHARS } from '../../src/yarn/client';
import { parseJson } from '../../src/yarn/format';
import * as jsonList from '../../src/yarn/json-list';
import { eachJsonListItem } from '../../src/yarn/json-list';
import { mapApps, mapAppsJsonText, mapNodes, mapNodesJsonText } from '../../src/yarn/mapping';

const SAMPLES = join(__dirname, '..', 'fixtures', 'yarn-rm-api', 'samples');

/** What the whole-tree path gives for `text`: the value, or the error's class and message. */
function whole<T>(map: (t: never) => T, text: string): { value: T } | { error: string } {
  try {
    return { value: map(parseJson(text) as never) };
  } catch (err) {
    return { error: `${(err as Error).constructor.name}: ${(err as Error).message}` };
  }
}

/** What the item-by-item path gives, falling back to the whole tree when it declines. */
async function itemwise<T>(
  mapText: (text: string) => Promise<T | undefined>,
  map: (t: never) => T,
  text: string,
): Promise<{ value: T } | { error: string }> {
  try {
    const v = await mapText(text);
    return v === undefined ? whole(map, text) : { value: v };
  } catch (err) {
    return { error: `${(err as Error).constructor.name}: ${(err as Error).message}` };
  }
}

const app = (i: number, extra: Record<string, unknown> = {}) => ({
  id: `application_1_${String(i).padStart(4, '0')}`,
  state: 'RUNNING',
  name: `job "${i}" \\ {braces} [and] "quotes"`,
  applicationTags: 'a,b',
  startedTime: 1_700_000_000_000 + i,
  resourceInfo: { resourceUsagesByPartition: [{ partitionName: '', used: { memory: 1, vCores: 1 } }] },
  ...extra,
});

describe('a list answer read item by item', () => {
  it('reads the plain shape item by item, with whitespace anywhere JSON allows it', async () => {
    const text = ` { "apps" :\n{ "app" : [ ${JSON.stringify(app(1))} ,\n\t${JSON.stringify(app(2))} ] } }\n`;
    const seen: number[] = [];
    expect(await eachJsonListItem(text, 'apps', 'app', (_t, i) => seen.push(i))).toBe(true);
    expect(seen).toEqual([0, 1]);
    expect(await mapAppsJsonText(text)).toEqual(mapApps(JSON.parse(text)));
    expect(await mapAppsJsonText('{"apps":{"app":[]}}')).toEqual([]);
  });

  it('declines every other shape, and the whole tree reads it as before', async () => {
    const one = JSON.stringify(app(1));
    for (const text of [
      '{"apps":null}',
      '{"apps":{}}',
      `{"apps":{"app":${one}}}`,
      `{"apps":{"app":[${one}],"more":1}}`,
      `{"other":1,"apps":{"app":[${one}]}}`,
      `{"apps":{"app":[1,2]}}`,
      `{"apps":{"app":[${one}]}} trailing`,
      `{"ap\\u0070s":{"app":[${one}]}}`,
    ]) {
      expect(await mapAppsJsonText(text)).toBeUndefined();
      expect(await itemwise(mapAppsJsonText, mapApps, text)).toEqual(whole(mapApps, text));
    }
  });

  it('a cut or malformed text throws what the whole parse throws, never a mapping error of an item before it', async () => {
    const good = JSON.stringify({ apps: { app: [app(1), app(2), app(3)] } });
    // The first item lacks its id (a mapping error) and the text is cut short further on.
    const broken = JSON.stringify({ apps: { app: [{ ...app(1), id: undefined }, app(2)] } });
    for (const text of [good.slice(0, -3), good.replace('"state"', '"state" 1'), broken.slice(0, -10)]) {
      const w = whole(mapApps, text);
      expect(w).toHaveProperty('error');
      expect(await itemwise(mapAppsJsonText, mapApps, text)).toEqual(w);
    }
    // A whole text whose item fails mapping: the same error, naming the same item.
    const err = whole(mapApps, broken);
    expect(err).toEqual({ error: expect.stringContaining('apps.app[0].id') });
    expect(await itemwise(mapAppsJsonText, mapApps, broken)).toEqual(err);
    await expect(mapAppsJsonText(broken)).rejects.toThrow(RmMalformedResponseError);
  });

  it('the RM documentation samples read the same item by item', async () => {
    const nodes = readFileSync(join(SAMPLES, 'cluster-nodes.response.json'), 'utf8');
    const apps = readFileSync(join(SAMPLES, 'cluster-apps.response.json'), 'utf8');
    expect(await mapNodesJsonText(nodes)).toEqual(mapNodes(JSON.parse(nodes)));
    expect(await mapAppsJsonText(apps)).toEqual(mapApps(JSON.parse(apps)));
  });

  it('lets the event loop turn after each yieldEveryChars of text read, and not within a smaller text', async () => {
    const items = Array.from({ length: 40 }, (_, i) => app(i));
    const text = JSON.stringify({ apps: { app: items } });
    const itemChars = JSON.stringify(app(10)).length + 1;
    /** The items seen before each turn of the loop that another task got in between. */
    const turnsAt = async (every?: number): Promise<number[]> => {
      let seen = 0;
      const at: number[] = [];
      let running = true;
      const other = (): void => {
        if (!running) return;
        at.push(seen);
        setImmediate(other);
      };
      setImmediate(other);
      expect(await eachJsonListItem(text, 'apps', 'app', () => seen++, every)).toBe(true);
      running = false;
      return at.filter((n) => n > 0 && n < items.length);
    };
    // About four items' text between turns: the other task runs every few items, in order.
    const turns = await turnsAt(4 * itemChars);
    expect(turns.length).toBeGreaterThanOrEqual(8);
    expect(turns.length).toBeLessThanOrEqual(11);
    expect(turns).toEqual([...turns].sort((a, b) => a - b));
    // The default is far larger than this text: read in one turn.
    expect(await turnsAt()).toEqual([]);
  });

  it('property: any list text, and any cut or one-character change of it, reads as the whole tree reads it', async () => {
    const text = fc.oneof(
      fc.string(),
      fc.constantFrom('{', '}', '[', ']', '"', '\\', ',', ':', ' '),
      fc.constant('"\\\\"'),
    );
    const item = fc.dictionary(
      fc.constantFrom('id', 'state', 'name', 'x', 'startedTime', '{', '"'),
      fc.oneof(text, fc.integer(), fc.constant(null), fc.array(text, { maxLength: 3 })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(item, { maxLength: 5 }),
        fc.nat(),
        fc.string({ maxLength: 2 }),
        fc.boolean(),
        async (items, at, insert, pretty) => {
          const full = JSON.stringify({ apps: { app: items } }, null, pretty ? 1 : undefined);
          expect(await itemwise(mapAppsJsonText, mapApps, full)).toEqual(whole(mapApps, full));
          const cut = full.slice(0, at % (full.length + 1));
          expect(await itemwise(mapAppsJsonText, mapApps, cut)).toEqual(whole(mapApps, cut));
          const p = at % full.length;
          const changed = full.slice(0, p) + insert + full.slice(p + 1);
          expect(await itemwise(mapAppsJsonText, mapApps, changed)).toEqual(whole(mapApps, changed));
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('the client reads a large list answer item by item', () => {
  let server: Server;
  let body = '';
  let url = '';
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

  const client = () =>
    new HttpResourceManagerClient({ urls: [url], format: 'json', timeoutMs: 10_000, maxAttempts: 1 });
  const many = (n: number) => JSON.stringify({ apps: { app: Array.from({ length: n }, (_, i) => app(i)) } });

  it('above ITEMWISE_MIN_CHARS: the same reports as the whole tree, and the whole parse error for a cut one', async () => {
    body = many(Math.ceil(ITEMWISE_MIN_CHARS / JSON.stringify(app(1)).length) + 10);
    expect(body.length).toBeGreaterThan(ITEMWISE_MIN_CHARS);
    const items: number[] = [];
    expect(await eachJsonListItem(body, 'apps', 'app', (_t, i) => items.push(i))).toBe(true);
    const spy = jest.spyOn(jsonList, 'eachJsonListItem');
    const got = await client().apps();
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
    expect(got).toEqual(mapApps(JSON.parse(body)));
    expect(got).toHaveLength(items.length);
    body = body.slice(0, -100);
    const err = await client()
      .apps()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmMalformedResponseError);
    expect(err).toMatchObject({ reason: 'truncated' });
  });

  it('below it: one JSON.parse, the same reports', async () => {
    body = many(20);
    const spy = jest.spyOn(jsonList, 'eachJsonListItem');
    expect(await client().apps()).toEqual(mapApps(JSON.parse(body)));
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });
});
