/**
 * A list answer read item by item as its text arrives (src/yarn/json-list.ts' JsonListSink, the
 * client's readList) gives what the whole tree gives: the same reports for every text JSON.parse
 * reads, the same error for every text it refuses or mapping refuses, whatever the chunks the
 * text comes in; every shape but the plain one is kept as text and read whole.
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { RmMalformedResponseError } from '../../src/errors/rm-malformed';
import { HttpResourceManagerClient, ITEMWISE_MIN_CHARS } from '../../src/yarn/client';
import { parseJson, type Tree } from '../../src/yarn/format';
import { JsonListSink } from '../../src/yarn/json-list';
import { SINK_TURN_BYTES } from '../../src/yarn/transport';
import { appsSink, mapApps, mapNodes, nodesSink } from '../../src/yarn/mapping';

const SAMPLES = join(__dirname, '..', 'fixtures', 'yarn-rm-api', 'samples');

type Result<T> = { value: T } | { error: string };

const described = (err: unknown) => `${(err as Error).constructor.name}: ${(err as Error).message}`;

/** What the whole-tree path gives for `text`: the value, or the error's class and message. */
function whole<T>(map: (t: Tree) => T, text: string): Result<T> {
  try {
    return { value: map(parseJson(text)) };
  } catch (err) {
    return { error: described(err) };
  }
}

/** `text` cut into chunks of the given sizes (cycled), the rest as one. */
function chunksOf(text: string, sizes: readonly number[]): string[] {
  const out: string[] = [];
  let at = 0;
  for (let k = 0; at < text.length; k++) {
    const n = sizes.length === 0 ? text.length : Math.max(1, sizes[k % sizes.length]!);
    out.push(text.slice(at, at + n));
    at += n;
  }
  return out;
}

/** What the client's readList makes of `text` arriving in `chunks`: items, or the text read whole. */
function viaSink<T>(sink: JsonListSink<T>, map: (t: Tree) => T[], text: string, chunks: readonly string[]) {
  for (const c of chunks) sink.write(c);
  const kept = sink.end();
  const outcome = sink.outcome;
  let result: Result<T[]>;
  if (outcome === 'items') result = sink.error ? { error: described(sink.error.err) } : { value: sink.items };
  else if (outcome === 'text') {
    // Text mode keeps the text as it came.
    expect(kept).toBe(text);
    result = whole(map, kept);
  }
  // A fault: the client asks again and reads the answer whole.
  else result = whole(map, text);
  return { outcome, result };
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

describe('a list answer read item by item as it arrives', () => {
  it('reads the plain shape item by item, with whitespace anywhere JSON allows it, in chunks of any size', () => {
    const text = ` { "apps" :\n{ "app" : [ ${JSON.stringify(app(1))} ,\n\t${JSON.stringify(app(2))} ] } }\n`;
    for (const sizes of [[], [1], [3, 7], [50]]) {
      const r = viaSink(appsSink(0), mapApps, text, chunksOf(text, sizes));
      expect(r).toEqual({ outcome: 'items', result: { value: mapApps(JSON.parse(text)) } });
    }
    expect(viaSink(appsSink(0), mapApps, '{"apps":{"app":[]}}', ['{"apps":{"app":[]}}'])).toEqual({
      outcome: 'items',
      result: { value: [] },
    });
  });

  it('keeps every other shape as text, and the whole tree reads it as before', () => {
    const one = JSON.stringify(app(1));
    for (const text of [
      '{"apps":null}',
      '{"apps":{}}',
      `{"apps":{"app":${one}}}`,
      `{"other":1,"apps":{"app":[${one}]}}`,
      `{"ap\\u0070s":{"app":[${one}]}}`,
      `\uFEFF{"apps":{"app":[${one}]}}`,
      '<html><body>502 Bad Gateway</body></html>',
    ]) {
      const r = viaSink(appsSink(0), mapApps, text, chunksOf(text, [5]));
      expect(r).toEqual({ outcome: 'text', result: whole(mapApps, text) });
    }
  });

  it('below streamFromChars keeps the text whatever its shape; from it on, reads items', () => {
    const text = JSON.stringify({ apps: { app: [app(1), app(2), app(3)] } });
    expect(viaSink(appsSink(text.length + 1), mapApps, text, chunksOf(text, [10])).outcome).toBe('text');
    expect(viaSink(appsSink(text.length), mapApps, text, [text]).outcome).toBe('items');
    // Decided once, past the threshold: the items already there are read, then the rest as it comes.
    const r = viaSink(appsSink(40), mapApps, text, chunksOf(text, [30]));
    expect(r).toEqual({ outcome: 'items', result: { value: mapApps(JSON.parse(text)) } });
  });

  it('a list that leaves the plain shape after its opening is a fault, read again whole: the whole parse error, never a mapping error of an item before it', () => {
    const one = JSON.stringify(app(1));
    const good = JSON.stringify({ apps: { app: [app(1), app(2), app(3)] } });
    // The first item lacks its id (a mapping error) and the text is cut short further on.
    const broken = JSON.stringify({ apps: { app: [{ ...app(1), id: undefined }, app(2)] } });
    for (const text of [
      good.slice(0, -3),
      good.replace('"state"', '"state" 1'),
      broken.slice(0, -10),
      `{"apps":{"app":[${one}]}} trailing`,
    ]) {
      const w = whole(mapApps, text);
      expect(w).toHaveProperty('error');
      expect(viaSink(appsSink(0), mapApps, text, chunksOf(text, [7]))).toEqual({
        outcome: 'fault',
        result: w,
      });
    }
    // Valid JSON that leaves the plain shape after its opening: read again, as the whole tree reads it.
    for (const text of [`{"apps":{"app":[${one}],"more":1}}`, `{"apps":{"app":[1,2]}}`]) {
      expect(viaSink(appsSink(0), mapApps, text, chunksOf(text, [7]))).toEqual({
        outcome: 'fault',
        result: whole(mapApps, text),
      });
    }
    // A whole text whose item fails mapping: the same error, naming the same item.
    const err = whole(mapApps, broken);
    expect(err).toEqual({ error: expect.stringContaining('apps.app[0].id') });
    expect(viaSink(appsSink(0), mapApps, broken, chunksOf(broken, [9]))).toEqual({
      outcome: 'items',
      result: err,
    });
  });

  it('the RM documentation samples read the same item by item', () => {
    const nodes = readFileSync(join(SAMPLES, 'cluster-nodes.response.json'), 'utf8');
    const apps = readFileSync(join(SAMPLES, 'cluster-apps.response.json'), 'utf8');
    expect(viaSink(nodesSink(0), mapNodes, nodes, chunksOf(nodes, [64]))).toEqual({
      outcome: 'items',
      result: { value: mapNodes(JSON.parse(nodes)) },
    });
    expect(viaSink(appsSink(0), mapApps, apps, chunksOf(apps, [64]))).toEqual({
      outcome: 'items',
      result: { value: mapApps(JSON.parse(apps)) },
    });
  });

  it('holds no more than the item it is in and the chunk that came: the text read is dropped', () => {
    const items = Array.from({ length: 200 }, (_, i) => app(i));
    const text = JSON.stringify({ apps: { app: items } });
    const sink = appsSink(0);
    let most = 0;
    for (const c of chunksOf(text, [1000])) {
      sink.write(c);
      most = Math.max(most, (sink as unknown as { text: string }).text.length);
    }
    expect(sink.end()).toBe('');
    expect(sink.items).toHaveLength(200);
    expect(most).toBeLessThan(JSON.stringify(app(1)).length + 1000);
  });

  it('property: any list text, and any cut or one-character change of it, in any chunks, reads as the whole tree reads it', () => {
    const text = fc.oneof(
      fc.string(),
      fc.constantFrom('{', '}', '[', ']', '"', '\\', ',', ':', ' '),
      fc.constant('"\\\\"'),
    );
    const item = fc.dictionary(
      fc.constantFrom('id', 'state', 'name', 'x', 'startedTime', '{', '"'),
      fc.oneof(text, fc.integer(), fc.constant(null), fc.array(text, { maxLength: 3 })),
    );
    fc.assert(
      fc.property(
        fc.array(item, { maxLength: 5 }),
        fc.nat(),
        fc.string({ maxLength: 2 }),
        fc.boolean(),
        fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 4 }),
        fc.constantFrom(0, 1, 16, 10_000),
        (items, at, insert, pretty, sizes, from) => {
          const full = JSON.stringify({ apps: { app: items } }, null, pretty ? 1 : undefined);
          const p = at % full.length;
          for (const t of [
            full,
            full.slice(0, at % (full.length + 1)),
            full.slice(0, p) + insert + full.slice(p + 1),
          ])
            expect(viaSink(appsSink(from), mapApps, t, chunksOf(t, sizes)).result).toEqual(whole(mapApps, t));
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('the client reads a large list answer item by item', () => {
  let server: Server;
  let body = '';
  let served = 0;
  let url = '';
  beforeAll(async () => {
    server = createServer((_req, res) => {
      served++;
      res.writeHead(200, { 'content-type': 'application/json' });
      // In pieces, as a large answer comes.
      for (const c of chunksOf(body, [64 * 1024])) res.write(c);
      res.end();
    });
    // Kept-alive sockets outlive a slow test: with Node's 5 s default the server may close one
    // just as the next call reuses it (ECONNRESET, RmUnavailableError) on a loaded machine.
    server.keepAliveTimeout = 120_000;
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

  // Many small apps: more than the default limit of items, which is not what this tests.
  const client = () =>
    // A generous budget: the answer is large and a loaded machine reads it slowly; what is
    // asserted is how it is read, not how fast.
    new HttpResourceManagerClient({
      urls: [url],
      format: 'json',
      timeoutMs: 60_000,
      maxAttempts: 1,
      responseLimits: { apps: { maxBytes: 64 * 1024 * 1024, maxItems: 1_000_000 } },
    });
  const many = (n: number) => JSON.stringify({ apps: { app: Array.from({ length: n }, (_, i) => app(i)) } });

  it('from ITEMWISE_MIN_CHARS: the same reports as the whole tree, read as they come; a cut one read again and refused as JSON.parse refuses it', async () => {
    body = many(Math.ceil((6 * ITEMWISE_MIN_CHARS) / JSON.stringify(app(1)).length));
    expect(body.length).toBeGreaterThan(ITEMWISE_MIN_CHARS);
    const write = jest.spyOn(JsonListSink.prototype, 'write');
    served = 0;
    const got = await client().apps();
    expect(got).toEqual(mapApps(JSON.parse(body)));
    expect(served).toBe(1);
    // The text came in many writes, and the sink read it all as items.
    expect(write.mock.calls.length).toBeGreaterThan(10);
    const sink = write.mock.instances[0] as unknown as JsonListSink<unknown>;
    expect(sink.outcome).toBe('items');
    write.mockRestore();
    body = body.slice(0, -100);
    served = 0;
    const err = await client()
      .apps()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmMalformedResponseError);
    expect(err).toMatchObject({ reason: 'truncated' });
    expect(served).toBe(2);
  }, 180_000);

  it('below it: the text read whole, one JSON.parse, the same reports', async () => {
    body = many(20);
    const write = jest.spyOn(JsonListSink.prototype, 'write');
    served = 0;
    expect(await client().apps()).toEqual(mapApps(JSON.parse(body)));
    expect((write.mock.instances[0] as unknown as JsonListSink<unknown>).outcome).toBe('text');
    expect(served).toBe(1);
    write.mockRestore();
  });
});

describe('a large list answer from another process, buffered by the socket', () => {
  // The server in a process of its own writes its whole answer at once, so that the socket
  // holds more than the sidecar reads in one go (in this process, the server could not write
  // while the client reads).
  let server: ChildProcess;
  let url = '';
  beforeAll(async () => {
    const script = `
      const body = JSON.stringify({ apps: { app: Array.from({ length: 40000 }, (_, i) => ({
        id: 'application_1_' + i, state: 'RUNNING', name: 'job ' + i, applicationTags: 'a,b',
        startedTime: 1700000000000 + i, diagnostics: 'x'.repeat(100) })) } });
      require('node:http').createServer((req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      }).listen(0, '127.0.0.1', function () { process.stdout.write(this.address().port + '\\n'); });`;
    server = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<string>((ok) =>
      server.stdout!.once('data', (d: Buffer) => ok(d.toString().trim())),
    );
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(() => {
    server.kill();
  });

  it('lets the event loop turn after each SINK_TURN_BYTES of text read, however much came at once', async () => {
    // A slow sink (0.5 ms a write), so that the answer waits in the socket for it; another task
    // on the event loop notes how much text was read between two of its turns.
    const original = JsonListSink.prototype.write;
    let sinceTurn = 0;
    let most = 0;
    const write = jest.spyOn(JsonListSink.prototype, 'write').mockImplementation(function (
      this: JsonListSink<unknown>,
      chunk: string,
    ) {
      original.call(this, chunk);
      sinceTurn += chunk.length;
      most = Math.max(most, sinceTurn);
      const until = performance.now() + 0.5;
      while (performance.now() < until);
    });
    let reading = true;
    const other = (): void => {
      if (!reading) return;
      sinceTurn = 0;
      setImmediate(other);
    };
    setImmediate(other);
    try {
      const client = new HttpResourceManagerClient({
        urls: [url],
        format: 'json',
        timeoutMs: 30_000,
        maxAttempts: 1,
        responseLimits: { apps: { maxBytes: 64 * 1024 * 1024, maxItems: 100_000 } },
      });
      const apps = await client.apps();
      expect(apps).toHaveLength(40_000);
      expect((write.mock.instances[0] as unknown as JsonListSink<unknown>).outcome).toBe('items');
    } finally {
      reading = false;
      write.mockRestore();
    }
    // At most one chunk (64 KiB) past the half MiB.
    expect(most).toBeLessThanOrEqual(SINK_TURN_BYTES + 64 * 1024);
  });
});
