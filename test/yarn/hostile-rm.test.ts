/**
 * A hostile or broken RM (or a proxy in front of it), over real sockets on loopback: bodies that
 * never end or are far too large, an entity bomb, a body dripped a byte a second, the wrong
 * Content-Type, truncated JSON and XML, HTML error pages, and bodies one byte past the size limit
 * and exactly at it. Each case ends in a typed error with a stable code, within the call's time
 * budget, and without the process's memory growing by more than a bound: the body is counted as
 * it arrives and the read stops at the limit.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { SidecarError } from '../../src/errors/base';
import { RmClientClosedError } from '../../src/errors/rm-client-closed';
import { RmMalformedResponseError, type MalformedReason } from '../../src/errors/rm-malformed';
import { RmResponseTooLargeError } from '../../src/errors/rm-response-too-large';
import { RmTimeoutError } from '../../src/errors/rm-timeout';
import { RmUnavailableError } from '../../src/errors/rm-unavailable';
import { HttpResourceManagerClient } from '../../src/yarn/client';
import type { Format } from '../../src/yarn/format';
import { HttpTransport, type TransportOptions } from '../../src/yarn/transport';

const MiB = 1024 * 1024;
/** The size limit of these tests: small, so that reading up to it costs little memory. */
const CAP = 4 * MiB;
/** How much the process's RSS may grow over one call (GC and allocator noise included). */
const RSS_BOUND = 100 * MiB;
/** Scheduling slack on top of a time limit. */
const SLACK_MS = 750;

const CLUSTER_INFO = '{"clusterInfo":{"id":1,"haState":"ACTIVE","state":"STARTED"}}';

interface Hostile {
  url: string;
  /** Resolves once the client has closed the connection (or the server ended the answer). */
  closed: Promise<void>;
  /** Bytes of body the server managed to write. */
  written(): number;
  close(): Promise<void>;
}

type Reply = (res: http.ServerResponse, count: (n: number) => void) => void;

async function hostile(reply: Reply): Promise<Hostile> {
  let written = 0;
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  const server = http.createServer((req, res) => {
    req.resume();
    res.on('close', markClosed);
    reply(res, (n) => (written += n));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    closed,
    written: () => written,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes `next()` chunks as fast as the socket takes them, until it returns undefined or the client goes. */
function pump(res: http.ServerResponse, count: (n: number) => void, next: () => Buffer | undefined): void {
  let gone = false;
  res.on('close', () => (gone = true));
  const go = (): void => {
    for (;;) {
      if (gone) return;
      const chunk = next();
      if (chunk === undefined) {
        res.end();
        return;
      }
      count(chunk.length);
      if (!res.write(chunk)) {
        res.once('drain', go);
        return;
      }
    }
  };
  go();
}

/** A body of `total` bytes made of `head`, repeated `unit`s and `tail`, streamed without being held whole. */
function streamed(head: string, unit: string, tail: string, total: number): () => Buffer | undefined {
  const block = Buffer.from(unit.repeat(Math.max(1, Math.floor((64 * 1024) / unit.length))));
  let sent = 0;
  let stage: 'head' | 'body' | 'tail' | 'done' = 'head';
  return () => {
    if (stage === 'head') {
      stage = 'body';
      sent += head.length;
      return Buffer.from(head);
    }
    if (stage === 'body' && sent + block.length + tail.length <= total) {
      sent += block.length;
      return block;
    }
    if (stage !== 'done') {
      stage = 'done';
      return Buffer.from(tail);
    }
    return undefined;
  };
}

/** Headers at once, then the body a byte a second, for ever. */
const dripping: Reply = (res) => {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  const drip = setInterval(() => res.write(' '), 1000);
  res.on('close', () => clearInterval(drip));
};

const fifty = 50 * MiB;
const xmlApp = '<app><id>application_1_0001</id><name>hostile</name><state>RUNNING</state></app>';

/** A 50 MB XML apps answer, streamed. */
const hugeXml = (): (() => Buffer | undefined) =>
  streamed('<?xml version="1.0"?><apps>', xmlApp, '</apps>', fifty);

/** "Billion laughs": ten levels of ten references, 10^9 "lol"s once expanded. */
function billionLaughs(): string {
  let doc = '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">';
  doc += `<!ENTITY lol1 "${'&lol;'.repeat(10)}">`;
  for (let i = 2; i <= 9; i++) doc += `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`;
  return `${doc}]><clusterInfo><id>&lol9;</id><haState>ACTIVE</haState></clusterInfo>`;
}

/** 64 MiB of JSON gzipped to about 64 KB, built piece by piece (never held inflated). */
function gzipped64MiB(): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const gzip = zlib.createGzip();
    const out: Buffer[] = [];
    gzip.on('data', (b: Buffer) => out.push(b));
    gzip.on('end', () => resolve(Buffer.concat(out)));
    gzip.on('error', reject);
    const zeros = Buffer.alloc(MiB, '0');
    gzip.write('{"clusterInfo":{"id":"');
    for (let i = 0; i < 64; i++) gzip.write(zeros);
    gzip.end('"}}');
  });
}

let gzipBomb: Buffer;
beforeAll(async () => {
  gzipBomb = await gzipped64MiB();
});

/** `text` padded with trailing spaces (still valid JSON) to exactly `bytes` bytes. */
const padded = (text: string, bytes: number): string => text + ' '.repeat(bytes - Buffer.byteLength(text));

function transport(url: string, format: Format, extra: Partial<TransportOptions> = {}): HttpTransport {
  return new HttpTransport({
    urls: [url],
    format,
    timeoutMs: 3_000,
    callBudgetMs: 5_000,
    maxResponseBytes: CAP,
    maxAttempts: 1,
    sleep: async () => undefined,
    ...extra,
  });
}

const rss = (): number => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss;
};

interface Measured {
  error: unknown;
  ms: number;
  /** Highest RSS seen during the call, over the RSS before it. */
  rssGrowth: number;
}

/** Runs one call, sampling RSS while it runs (the event loop stays free while a body streams in). */
async function measured(call: () => Promise<unknown>): Promise<Measured> {
  const before = rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const started = performance.now();
  let error: unknown;
  try {
    await call();
  } catch (err) {
    error = err;
  }
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  return { error, ms, rssGrowth: peak - before };
}

function expectTyped(error: unknown, code: string): SidecarError {
  expect(error).toBeInstanceOf(SidecarError);
  expect((error as SidecarError).code).toBe(code);
  return error as SidecarError;
}

interface Case {
  name: string;
  format: Format;
  reply: Reply;
  code: string;
  reason?: MalformedReason;
  /** The message says this. */
  says: RegExp;
  extra?: Partial<TransportOptions>;
  /** The limit the call must end within: the call budget unless told. */
  withinMs?: number;
}

const cases: Case[] = [
  {
    name: 'an endless body',
    format: 'json',
    reply: (res, count) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const block = Buffer.alloc(64 * 1024, 'a');
      pump(res, count, () => block);
    },
    code: 'RM_RESPONSE_TOO_LARGE',
    says: /larger than the limit of 4194304 bytes \(rm\.maxResponseBytes\): read stopped after \d+ bytes/,
  },
  {
    name: 'a 50 MB XML body, chunked',
    format: 'xml',
    reply: (res, count) => {
      res.writeHead(200, { 'Content-Type': 'application/xml' });
      pump(res, count, hugeXml());
    },
    code: 'RM_RESPONSE_TOO_LARGE',
    says: /read stopped after/,
  },
  {
    name: 'a 50 MB XML body announced by its Content-Length',
    format: 'xml',
    reply: (res, count) => {
      res.writeHead(200, { 'Content-Type': 'application/xml', 'Content-Length': String(fifty) });
      pump(res, count, hugeXml());
    },
    code: 'RM_RESPONSE_TOO_LARGE',
    says: /it announced 52428800 bytes; nothing was read/,
  },
  {
    name: 'a small gzip body that inflates past the limit',
    format: 'json',
    reply: (res) =>
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }).end(gzipBomb),
    code: 'RM_RESPONSE_TOO_LARGE',
    says: /read stopped after/,
  },
  {
    name: 'an entity bomb ("billion laughs")',
    format: 'xml',
    reply: (res) => res.writeHead(200, { 'Content-Type': 'application/xml' }).end(billionLaughs()),
    code: 'RM_MALFORMED_RESPONSE',
    reason: 'doctype',
    says: /declares a DOCTYPE or entities: refused unread/,
  },
  {
    name: 'an external entity',
    format: 'xml',
    reply: (res) =>
      res
        .writeHead(200, { 'Content-Type': 'application/xml' })
        .end(
          '<?xml version="1.0"?><!DOCTYPE c [<!ENTITY x SYSTEM "file:///etc/passwd">]><clusterInfo><id>&x;</id></clusterInfo>',
        ),
    code: 'RM_MALFORMED_RESPONSE',
    reason: 'doctype',
    says: /DOCTYPE/,
  },
  {
    name: 'a body dripped a byte a second, against one attempt’s limit',
    format: 'json',
    reply: dripping,
    code: 'RM_TIMEOUT',
    says: /within 1000 ms \(rm\.timeoutMs\)/,
    extra: { timeoutMs: 1_000, callBudgetMs: 10_000 },
    withinMs: 1_000,
  },
  {
    name: 'a body dripped a byte a second, against the call’s budget (retries included)',
    format: 'json',
    // Busy twice (retried), then a drip: the call's budget ends it, however long an attempt may be.
    reply: (() => {
      let hits = 0;
      return (res: http.ServerResponse, count: (n: number) => void) =>
        ++hits <= 2 ? void res.writeHead(503).end('busy') : dripping(res, count);
    })(),
    code: 'RM_TIMEOUT',
    says: /within 2500 ms \(rm\.callBudgetMs\): \d+ bytes of the answer had come/,
    extra: { timeoutMs: 60_000, callBudgetMs: 2_500, maxAttempts: 5 },
    withinMs: 2_500,
  },
  {
    name: 'no answer at all, not even headers',
    format: 'json',
    reply: () => undefined,
    code: 'RM_TIMEOUT',
    says: /within 1000 ms \(rm\.timeoutMs\)/,
    extra: { timeoutMs: 1_000 },
    withinMs: 1_000,
  },
  {
    name: 'a binary body under a wrong Content-Type',
    format: 'json',
    reply: (res) =>
      res
        .writeHead(200, { 'Content-Type': 'application/octet-stream' })
        .end(Buffer.from([0, 1, 2, 255, 254])),
    code: 'RM_MALFORMED_RESPONSE',
    reason: 'content-type',
    says: /Content-Type application\/octet-stream where JSON was expected/,
  },
  {
    name: 'XML where JSON was asked for',
    format: 'json',
    reply: (res) =>
      res.writeHead(200, { 'Content-Type': 'application/xml' }).end('<clusterInfo><id>1</id></clusterInfo>'),
    code: 'RM_MALFORMED_RESPONSE',
    reason: 'content-type',
    says: /Content-Type application\/xml where JSON was expected/,
  },
  {
    name: 'truncated JSON',
    format: 'json',
    reply: (res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(CLUSTER_INFO.slice(0, 30)),
    code: 'RM_MALFORMED_RESPONSE',
    reason: 'truncated',
    says: /invalid JSON/,
  },
  {
    name: 'truncated XML',
    format: 'xml',
    reply: (res) =>
      res
        .writeHead(200, { 'Content-Type': 'application/xml' })
        .end('<?xml version="1.0"?><clusterInfo><id>1</id><haState>ACT'),
    code: 'RM_MALFORMED_RESPONSE',
    reason: 'truncated',
    says: /it ends inside <clusterInfo><haState> \(truncated\)/,
  },
  {
    name: 'a body cut short by the connection (Content-Length not reached)',
    format: 'json',
    reply: (res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '1000' });
      res.write(CLUSTER_INFO.slice(0, 20), () => res.destroy());
    },
    code: 'RM_MALFORMED_RESPONSE',
    reason: 'truncated',
    says: /answered 200, then the connection closed after 20 bytes of the body/,
  },
  {
    name: 'an HTML login page with 200',
    format: 'json',
    reply: (res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html><body><form>Login</form></body></html>'),
    code: 'RM_MALFORMED_RESPONSE',
    reason: 'html',
    says: /HTML page where JSON was expected/,
  },
  {
    name: 'a proxy’s HTML error page',
    format: 'xml',
    reply: (res) =>
      res
        .writeHead(502, { 'Content-Type': 'text/html' })
        .end(
          '<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>h1{}</style></head><body><h1>Bad Gateway</h1></body></html>',
        ),
    code: 'RM_HTTP_ERROR',
    says: /RM answered 502: HTML page: 502 Bad Gateway$/,
  },
  {
    name: 'XML nested a hundred thousand deep',
    format: 'xml',
    reply: (res) =>
      res
        .writeHead(200, { 'Content-Type': 'application/xml' })
        .end(`${'<a>'.repeat(1e5)}${'</a>'.repeat(1e5)}`),
    code: 'RM_MALFORMED_RESPONSE',
    reason: 'too-deep',
    says: /nested too deeply/,
  },
  {
    name: 'a body one byte past the limit, chunked',
    format: 'json',
    reply: (res) =>
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(padded(CLUSTER_INFO, CAP + 1)),
    code: 'RM_RESPONSE_TOO_LARGE',
    says: /read stopped after 4194305 bytes/,
  },
  {
    name: 'a body one byte past the limit, announced',
    format: 'json',
    reply: (res) => {
      const body = padded(CLUSTER_INFO, CAP + 1);
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(CAP + 1) }).end(body);
    },
    code: 'RM_RESPONSE_TOO_LARGE',
    says: /it announced 4194305 bytes; nothing was read/,
  },
];

describe('a hostile RM: each answer is a typed error, in time, in bounded memory', () => {
  it.each(cases)('$name', async (c) => {
    const server = await hostile(c.reply);
    try {
      const t = transport(server.url, c.format, c.extra);
      const { error, ms, rssGrowth } = await measured(() =>
        t.sendForTree({ method: 'GET', path: '/ws/v1/cluster/info' }),
      );
      const err = expectTyped(error, c.code);
      expect(err.message).toMatch(c.says);
      if (c.reason) expect((err as RmMalformedResponseError).reason).toBe(c.reason);
      expect(ms).toBeLessThan((c.withinMs ?? 5_000) + SLACK_MS);
      expect(rssGrowth).toBeLessThan(RSS_BOUND);
      if (err instanceof RmResponseTooLargeError) {
        // The read stopped: the server sees the connection go, long before it has sent it all.
        await server.closed;
        expect(err.context).toMatchObject({ limitBytes: CAP, setting: 'rm.maxResponseBytes' });
        expect(server.written()).toBeLessThan(fifty);
      }
    } finally {
      await server.close();
    }
  });

  it.each([
    ['chunked', false],
    ['announced', true],
  ])('reads a body of exactly the limit (%s)', async (_name, announce) => {
    const body = padded(CLUSTER_INFO, CAP);
    const server = await hostile((res) =>
      res
        .writeHead(200, {
          'Content-Type': 'application/json',
          ...(announce ? { 'Content-Length': String(CAP) } : {}),
        })
        .end(body),
    );
    try {
      const { tree, res } = await transport(server.url, 'json').sendForTree({
        method: 'GET',
        path: '/ws/v1/cluster/info',
      });
      expect(res.text).toHaveLength(CAP);
      expect(tree).toEqual(JSON.parse(CLUSTER_INFO));
    } finally {
      await server.close();
    }
  });

  it('decodes a character whose UTF-8 bytes arrive in different chunks, and drops a BOM', async () => {
    const text = '{"clusterInfo":{"id":1,"haState":"ACTIVE","state":"STARTED","hadoopVersion":"3.4.3 ⚡ é"}}';
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    const cuts = [1, bytes.indexOf(0xe2) + 1, bytes.indexOf(0xc3) + 1, bytes.length];
    const server = await hostile((res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      // Each piece in its own write, a tick apart: the client's reads see them apart.
      let from = 0;
      const next = (k: number): void => {
        if (k === cuts.length) return void res.end();
        res.write(bytes.subarray(from, cuts[k]));
        from = cuts[k]!;
        setTimeout(() => next(k + 1), 20);
      };
      next(0);
    });
    try {
      const { tree, res } = await transport(server.url, 'json').sendForTree({
        method: 'GET',
        path: '/ws/v1/cluster/info',
      });
      expect(res.text).toBe(text);
      expect(tree).toEqual(JSON.parse(text));
    } finally {
      await server.close();
    }
  });

  it('does not retry a too-large answer: the same request would get the same one', async () => {
    let hits = 0;
    const server = await hostile((res) => {
      hits++;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(padded(CLUSTER_INFO, CAP + 1));
    });
    try {
      const err = await transport(server.url, 'json', { maxAttempts: 4 })
        .send({ method: 'GET', path: '/ws/v1/cluster/info' })
        .catch((e: unknown) => e);
      expectTyped(err, 'RM_RESPONSE_TOO_LARGE');
      expect(hits).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('names the server and its setting: a WebHDFS timeout is not said to be the RM’s', async () => {
    const server = await hostile(() => undefined);
    try {
      const err = await transport(server.url, 'json', {
        timeoutMs: 300,
        service: 'NameNode',
        settingNames: { timeoutMs: 'placement.localityTimeoutMs' },
      })
        .send({ method: 'GET', path: '/webhdfs/v1/x' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RmTimeoutError);
      expect((err as Error).message).toMatch(
        /^NameNode did not answer GET \S+ within 300 ms \(placement\.localityTimeoutMs\): no first byte$/,
      );
    } finally {
      await server.close();
    }
  });

  it('says there is no active RM when every address answers as a standby', async () => {
    const standby = (res: http.ServerResponse) =>
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end('{"clusterInfo":{"id":1,"haState":"STANDBY"}}');
    const a = await hostile(standby);
    const b = await hostile(standby);
    try {
      const t = new HttpTransport({ urls: [a.url, b.url], maxAttempts: 1, sleep: async () => undefined });
      const err = await t.send({ method: 'GET', path: '/ws/v1/cluster/apps' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RmUnavailableError);
      expect((err as RmUnavailableError).noActiveRm).toBe(true);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('close()', () => {
  it('ends a call stalled in the middle of a body at once, and refuses new calls', async () => {
    const server = await hostile((res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"clusterInfo":');
    });
    try {
      const t = transport(server.url, 'json', { timeoutMs: 60_000, callBudgetMs: 60_000 });
      const pending = t.send({ method: 'PUT', path: '/ws/v1/cluster/apps/a/state' }).catch((e: unknown) => e);
      // Closed once the request is on the server, answered in part.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = performance.now();
      t.close();
      const err = await pending;
      expect(performance.now() - started).toBeLessThan(100);
      expect(err).toBeInstanceOf(RmClientClosedError);
      // A write aborted in flight may have been applied.
      expect((err as RmClientClosedError).outcomeUnknown).toBe(true);
      await server.closed;
      const after = await t.send({ method: 'GET', path: '/ws/v1/cluster/info' }).catch((e: unknown) => e);
      expect(after).toBeInstanceOf(RmClientClosedError);
      expect((after as RmClientClosedError).outcomeUnknown).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('ends the pause between retries too', async () => {
    const server = await hostile((res) => res.writeHead(503).end('busy'));
    try {
      const t = new HttpTransport({
        urls: [server.url],
        maxAttempts: 5,
        backoffBaseMs: 60_000,
        random: () => 0.99,
      });
      const pending = t.send({ method: 'GET', path: '/ws/v1/cluster/info' }).catch((e: unknown) => e);
      await server.closed;
      const started = performance.now();
      t.close();
      expect(await pending).toBeInstanceOf(RmClientClosedError);
      expect(performance.now() - started).toBeLessThan(100);
    } finally {
      await server.close();
    }
  });
});

describe('each endpoint held to its own limits, and every shape typed as it arrives', () => {
  const nodeJson = (i: number) =>
    JSON.stringify({
      id: `n${i}:1`,
      nodeHostName: `n${i}`,
      state: 'RUNNING',
      usedMemoryMB: 0,
      availMemoryMB: 1,
    });
  const nodeXml = (i: number) =>
    `<node><id>n${i}:1</id><nodeHostName>n${i}</nodeHostName><state>RUNNING</state></node>`;

  function client(url: string, format: Format, extra: Partial<TransportOptions> = {}) {
    return new HttpResourceManagerClient({
      urls: [url],
      format,
      timeoutMs: 3_000,
      callBudgetMs: 5_000,
      maxAttempts: 3,
      sleep: async () => undefined,
      ...extra,
    });
  }

  async function failure(call: () => Promise<unknown>): Promise<SidecarError> {
    const err = await call().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SidecarError);
    return err as SidecarError;
  }

  it('refuses cluster info past its 64 KiB, naming the endpoint’s setting, not the overall one', async () => {
    const server = await hostile((res) =>
      res.writeHead(200, { 'Content-Type': 'application/xml' }).end(`<clusterInfo>${' '.repeat(200_000)}`),
    );
    try {
      const err = await failure(() => client(server.url, 'xml').clusterInfo());
      expect(err.code).toBe('RM_RESPONSE_TOO_LARGE');
      expect(err.message).toMatch(
        /\/ws\/v1\/cluster\/info is larger than the limit of 65536 bytes \(rm\.responseLimits\.info\.maxBytes\)/,
      );
    } finally {
      await server.close();
    }
  });

  it('lowers an endpoint’s limit to maxResponseBytes, and names that one then', async () => {
    const server = await hostile((res) =>
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(padded('{"nodes":null}', 200_000)),
    );
    try {
      const err = await failure(() => client(server.url, 'json', { maxResponseBytes: 100_000 }).nodes());
      expect(err.message).toMatch(/limit of 100000 bytes \(rm\.maxResponseBytes\)/);
    } finally {
      await server.close();
    }
  });

  it.each(['json', 'xml'] as const)('stops a %s list at the item past its limit of items', async (format) => {
    const server = await hostile((res, count) => {
      res.writeHead(200, { 'Content-Type': `application/${format}` });
      let i = 0;
      pump(res, count, () => {
        // An endless list of small, sound nodes: only the limit of items ends it soon.
        const parts: string[] = [];
        if (i === 0) parts.push(format === 'json' ? '{"nodes":{"node":[' : '<nodes>');
        for (let k = 0; k < 500; k++, i++)
          parts.push(format === 'json' ? `${i ? ',' : ''}${nodeJson(i)}` : nodeXml(i));
        return Buffer.from(parts.join(''));
      });
    });
    try {
      const c = client(server.url, format, {
        responseLimits: { nodes: { maxBytes: 64 * MiB, maxItems: 30_000 } },
      });
      const { error, rssGrowth } = await measured(() => c.nodes());
      const err = expectTyped(error, 'RM_RESPONSE_TOO_LARGE');
      expect(err.message).toMatch(
        /has more items than the limit of 30000 \(rm\.responseLimits\.nodes\.maxItems\): read stopped at item 30001/,
      );
      expect(rssGrowth).toBeLessThan(RSS_BOUND);
      await server.closed;
    } finally {
      await server.close();
    }
  });

  it('holds a small JSON list, parsed whole, to its limit of items too', async () => {
    const body = `{"nodes":{"node":[${Array.from({ length: 20 }, (_, i) => nodeJson(i)).join(',')}]}}`;
    const server = await hostile((res) =>
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(body),
    );
    try {
      const c = client(server.url, 'json', { responseLimits: { nodes: { maxBytes: MiB, maxItems: 19 } } });
      const err = await failure(() => c.nodes());
      expect(err.message).toMatch(/more items than the limit of 19 \(rm\.responseLimits\.nodes\.maxItems\)/);
      expect(await client(server.url, 'json').nodes()).toHaveLength(20);
    } finally {
      await server.close();
    }
  });

  it.each([
    [
      'invalid UTF-8',
      Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
      'encoding',
      /not UTF-8 \(in bytes 0 to 6/,
    ],
    [
      'a UTF-8 sequence cut at the end',
      Buffer.concat([Buffer.from('{"clusterInfo":{"id":"'), Buffer.from([0xe2, 0x82])]),
      'encoding',
      /not UTF-8/,
    ],
    [
      'JSON nested a million deep',
      Buffer.from(`${'['.repeat(1e6)}${']'.repeat(1e6)}`),
      'too-deep',
      /nested too deeply/,
    ],
    [
      'JSON nested deep inside the expected shape',
      Buffer.from(`{"clusterInfo":{"id":${'{"a":'.repeat(1e5)}1${'}'.repeat(1e5)},"state":"STARTED"}}`),
      'too-deep',
      /more than 128 levels/,
    ],
  ])('%s: typed, naming the answer', async (_name, body, reason, says) => {
    const server = await hostile((res) =>
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(body),
    );
    try {
      const err = await failure(() => client(server.url, 'json').clusterInfo());
      expect(err).toBeInstanceOf(RmMalformedResponseError);
      expect((err as RmMalformedResponseError).reason).toBe(reason);
      expect(err.message).toMatch(says);
      expect(err.message).toContain(`(from ${server.url}/ws/v1/cluster/info)`);
    } finally {
      await server.close();
    }
  });

  it('an HTML page with 200 and no Content-Type', async () => {
    const server = await hostile((res) => {
      res.removeHeader('Content-Type');
      res
        .writeHead(200)
        .end('\n  <!DOCTYPE html><html><head><title>Sign in</title></head><body>…</body></html>');
    });
    try {
      const err = await failure(() => client(server.url, 'xml').clusterInfo());
      expect((err as RmMalformedResponseError).reason).toBe('html');
    } finally {
      await server.close();
    }
  });

  it('headers past 16 KiB: not HTTP, not retried', async () => {
    let hits = 0;
    const server = await hostile((res) => {
      hits++;
      res
        .writeHead(200, { 'Content-Type': 'application/json', 'X-Padding': 'x'.repeat(64 * 1024) })
        .end('{}');
    });
    try {
      const err = await failure(() => client(server.url, 'json').clusterInfo());
      expect((err as RmMalformedResponseError).reason).toBe('http');
      expect(err.message).toMatch(/is not valid HTTP \(HPE_HEADER_OVERFLOW/);
      expect(hits).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('an RM that takes the connection and says nothing: no first byte, within its own limit, not asked again', async () => {
    let hits = 0;
    const server = await hostile(() => void hits++);
    try {
      const c = client(server.url, 'json', {
        firstByteTimeoutMs: 500,
        timeoutMs: 60_000,
        callBudgetMs: 120_000,
      });
      const { error, ms } = await measured(() => c.clusterInfo());
      const err = expectTyped(error, 'RM_TIMEOUT');
      expect(err.message).toMatch(/within 500 ms \(rm\.firstByteTimeoutMs\): no first byte$/);
      expect(ms).toBeLessThan(500 + SLACK_MS);
      expect(hits).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('a drip past the attempt’s limit is not asked again', async () => {
    let hits = 0;
    const server = await hostile((res, count) => {
      hits++;
      dripping(res, count);
    });
    try {
      const c = client(server.url, 'json', { timeoutMs: 1_500, callBudgetMs: 60_000 });
      const err = await failure(() => c.clusterInfo());
      expect(err.message).toMatch(/within 1500 ms \(rm\.timeoutMs\): \d+ bytes of the answer had come$/);
      expect(hits).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('an answer that keeps arriving may go past the attempt’s limit, within the call’s budget', async () => {
    const info = '{"clusterInfo":{"id":1,"haState":"ACTIVE","state":"STARTED"}}';
    const server = await hostile((res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(info);
      // 256 KiB of whitespace every 100 ms (2.5 MB/s) for 2.5 s: far past the 1 s attempt limit.
      let sent = 0;
      const timer = setInterval(() => {
        res.write(' '.repeat(256 * 1024));
        if (++sent === 25) {
          clearInterval(timer);
          res.end();
        }
      }, 100);
      res.on('close', () => clearInterval(timer));
    });
    try {
      const started = performance.now();
      const c = client(server.url, 'json', {
        timeoutMs: 1_000,
        callBudgetMs: 20_000,
        responseLimits: { info: { maxBytes: 16 * MiB } },
      });
      expect((await c.clusterInfo()).haState).toBe('ACTIVE');
      expect(performance.now() - started).toBeGreaterThan(2_000);
    } finally {
      await server.close();
    }
  }, 20_000);
});
