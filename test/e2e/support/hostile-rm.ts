/**
 * The hostile RMs of test/e2e/hostile-rm.test.ts, each in a process of its own so that serving
 * an endless body never slows the test's own requests to the sidecar:
 * `node --require tsx/cjs test/e2e/support/hostile-rm.ts INDEX` serves shapes[INDEX] on a port
 * the OS picks, printed as `hostile RM: URL`. It answers as Hadoop's documented samples do
 * (test/fixture-server) until `POST /_hostile/turn`, then the shape's endpoint with the shape;
 * `GET /_hostile/state` gives the wall-clock time (epoch ms) of its first hostile answer.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { buildFixtureApp } from '../../fixture-server/server';

const MB = 1024 * 1024;
const SAMPLES = join(__dirname, '..', '..', 'fixtures', 'yarn-rm-api');

type Reply = (res: http.ServerResponse) => void;

export interface Shape {
  name: string;
  format: 'json' | 'xml';
  /** The endpoint answered with the shape (every other one is the samples'). */
  path: string;
  reply: Reply;
  code: string;
  /** What the logged error says. */
  says: RegExp;
}

/** Writes `next()` chunks as fast as the socket takes them, until it returns undefined or the sidecar goes. */
function pump(res: http.ServerResponse, next: () => Buffer | string | undefined): void {
  let gone = false;
  res.on('close', () => (gone = true));
  const go = (): void => {
    for (;;) {
      if (gone) return;
      const chunk = next();
      if (chunk === undefined) return void res.end();
      if (!res.write(chunk)) return void res.once('drain', go);
    }
  };
  go();
}

/** An endless list: `head`, then the same block of items (made once from `item(i)`) again and again. */
function endless(head: string, item: (i: number) => string): () => Buffer {
  const parts: string[] = [];
  for (let i = 0, size = 0; size < 64 * 1024; i++) {
    const one = item(i);
    parts.push(one);
    size += one.length;
  }
  const first = Buffer.from(head + parts.join(''));
  // Past the first block, each item is one after a comma (JSON) or another element (XML).
  const block = Buffer.from(parts.map((p, i) => (i === 0 && p.startsWith('{') ? `,${p}` : p)).join(''));
  let sent = false;
  return () => {
    if (sent) return block;
    sent = true;
    return first;
  };
}

const sampleNode = JSON.parse(
  fs.readFileSync(join(SAMPLES, 'samples', 'cluster-nodes.response.json'), 'utf8'),
).nodes.node[0] as Record<string, unknown>;
const sampleApp = JSON.parse(fs.readFileSync(join(SAMPLES, 'samples', 'cluster-apps.response.json'), 'utf8'))
  .apps.app[0] as Record<string, unknown>;
const sampleNodeXml = /<node>[\s\S]*?<\/node>/.exec(
  fs.readFileSync(join(SAMPLES, 'samples-xml', 'cluster-nodes.response.xml'), 'utf8'),
)![0];
const xmlApp = (i: number) =>
  `<app><id>application_1_${i}</id><user>u</user><name>n${i}</name><queue>default</queue><state>RUNNING</state><finalStatus>UNDEFINED</finalStatus><progress>0</progress><startedTime>1</startedTime><finishedTime>0</finishedTime><elapsedTime>1</elapsedTime><applicationTags>team:x</applicationTags></app>`;

const json = (res: http.ServerResponse, status = 200) =>
  res.writeHead(status, { 'Content-Type': 'application/json' });
const xml = (res: http.ServerResponse) => res.writeHead(200, { 'Content-Type': 'application/xml' });

/** 64 MiB of JSON gzipped to about 64 KB, made when first asked for. */
let bomb: Buffer | undefined;
const gzipBomb = (): Buffer =>
  (bomb ??= zlib.gzipSync(
    Buffer.concat([Buffer.from('{"clusterInfo":{"id":"'), Buffer.alloc(64 * MB, '0'), Buffer.from('"}}')]),
  ));

const INFO = '/ws/v1/cluster/info';
const NODES = '/ws/v1/cluster/nodes';
const APPS = '/ws/v1/cluster/apps';

export const shapes: Shape[] = [
  {
    name: 'a 50 MB XML answer on cluster info',
    format: 'xml',
    path: INFO,
    reply: (res) => {
      xml(res);
      let sent = 0;
      pump(res, () => {
        if (sent >= 50 * MB) return undefined;
        sent += 64 * 1024;
        return sent === 64 * 1024 ? `<clusterInfo>${'<x>y</x>'.repeat(8000)}` : '<x>y</x>'.repeat(8192);
      });
    },
    code: 'RM_RESPONSE_TOO_LARGE',
    says: /cluster\/info is larger than the limit of 65536 bytes \(rm\.responseLimits\.info\.maxBytes\)/,
  },
  {
    name: 'an endless chunked nodes list (JSON)',
    format: 'json',
    path: NODES,
    reply: (res) => {
      json(res);
      pump(
        res,
        endless(
          '{"nodes":{"node":[',
          (i) => `${i ? ',' : ''}${JSON.stringify({ ...sampleNode, id: `h${i}:1`, nodeHostName: `h${i}` })}`,
        ),
      );
    },
    code: 'RM_RESPONSE_TOO_LARGE',
    says: /rm\.responseLimits\.nodes\.max(Items|Bytes)/,
  },
  {
    name: 'an endless chunked nodes list (XML)',
    format: 'xml',
    path: NODES,
    reply: (res) => {
      xml(res);
      pump(
        res,
        endless('<nodes>', (i) => sampleNodeXml.replace(/host1\.domain\.com/g, `h${i}`)),
      );
    },
    code: 'RM_RESPONSE_TOO_LARGE',
    says: /rm\.responseLimits\.nodes\.max(Items|Bytes)/,
  },
  {
    name: 'an endless chunked apps list (XML)',
    format: 'xml',
    path: APPS,
    reply: (res) => {
      xml(res);
      pump(res, endless('<apps>', xmlApp));
    },
    code: 'RM_RESPONSE_TOO_LARGE',
    says: /rm\.responseLimits\.apps\.max(Items|Bytes)/,
  },
  {
    name: 'an endless chunked apps list (JSON)',
    format: 'json',
    path: APPS,
    reply: (res) => {
      json(res);
      pump(
        res,
        endless(
          '{"apps":{"app":[',
          (i) => `${i ? ',' : ''}${JSON.stringify({ ...sampleApp, id: `application_1_${i}` })}`,
        ),
      );
    },
    code: 'RM_RESPONSE_TOO_LARGE',
    says: /rm\.responseLimits\.apps\.max(Items|Bytes)/,
  },
  {
    name: 'endless text that is no list',
    format: 'json',
    path: APPS,
    reply: (res) => {
      json(res);
      let first = true;
      const block = 'a'.repeat(64 * 1024);
      pump(res, () => {
        if (!first) return block;
        first = false;
        return `{"apps":{"list":"${block}`;
      });
    },
    code: 'RM_RESPONSE_TOO_LARGE',
    says: /fixed: one item of a list/,
  },
  {
    name: 'JSON nested a million deep',
    format: 'json',
    path: INFO,
    reply: (res) => json(res).end(`{"clusterInfo":${'['.repeat(1e6)}${']'.repeat(1e6)}}`),
    code: 'RM_MALFORMED_RESPONSE',
    says: /invalid JSON from the RM: nested too deeply to read \(more than 128 levels\)/,
  },
  {
    name: 'XML nested a hundred thousand deep',
    format: 'xml',
    path: INFO,
    reply: (res) => xml(res).end(`${'<a>'.repeat(1e5)}${'</a>'.repeat(1e5)}`),
    code: 'RM_MALFORMED_RESPONSE',
    says: /invalid XML from the RM: nested too deeply to read/,
  },
  {
    name: 'invalid UTF-8',
    format: 'json',
    path: INFO,
    reply: (res) =>
      json(res).end(
        Buffer.concat([
          Buffer.from('{"clusterInfo":{"id":1,"state":"STARTED","haState":"ACTIVE","hadoopVersion":"'),
          Buffer.from([0xc3, 0x28, 0xff]),
          Buffer.from('"}}'),
        ]),
      ),
    code: 'RM_MALFORMED_RESPONSE',
    says: /not UTF-8/,
  },
  {
    name: 'a socket that takes the request and says nothing',
    format: 'json',
    path: INFO,
    reply: () => undefined,
    code: 'RM_TIMEOUT',
    says: /within 5000 ms \(rm\.firstByteTimeoutMs\): no first byte/,
  },
  {
    name: 'a slowloris drip, a byte a second',
    format: 'json',
    path: APPS,
    reply: (res) => {
      json(res);
      const drip = setInterval(() => res.write(' '), 1000);
      res.on('close', () => clearInterval(drip));
    },
    code: 'RM_TIMEOUT',
    says: /within 10000 ms \(rm\.timeoutMs\): \d+ bytes of the answer had come/,
  },
  {
    name: 'a gzip bomb (64 KB inflating to 64 MiB)',
    format: 'json',
    path: INFO,
    reply: (res) =>
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }).end(gzipBomb()),
    code: 'RM_RESPONSE_TOO_LARGE',
    says: /larger than the limit of 65536 bytes/,
  },
  {
    name: 'a header of 64 KiB',
    format: 'json',
    path: INFO,
    reply: (res) =>
      res.writeHead(200, { 'Content-Type': 'application/json', 'X-Pad': 'x'.repeat(64 * 1024) }).end('{}'),
    code: 'RM_MALFORMED_RESPONSE',
    says: /is not valid HTTP \(HPE_HEADER_OVERFLOW/,
  },
  {
    name: 'a wrong Content-Type',
    format: 'xml',
    path: INFO,
    reply: (res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('all good, honestly'),
    code: 'RM_MALFORMED_RESPONSE',
    says: /answered Content-Type text\/plain where XML was expected/,
  },
  {
    name: 'an HTML login page with 200',
    format: 'json',
    path: INFO,
    reply: (res) =>
      res
        .writeHead(200, { 'Content-Type': 'text/html' })
        .end('<!DOCTYPE html><html><head><title>Sign in</title></head><body><form></form></body></html>'),
    code: 'RM_MALFORMED_RESPONSE',
    says: /answered an HTML page where JSON was expected/,
  },
  {
    name: 'truncated JSON',
    format: 'json',
    path: APPS,
    reply: (res) => json(res).end('{"apps":{"app":[{"id":"application_1_1","state":"RUN'),
    code: 'RM_MALFORMED_RESPONSE',
    says: /invalid JSON from the RM/,
  },
];

/** Serves shapes[index] until the process is ended. */
async function serve(index: number): Promise<void> {
  const shape = shapes[index]!;
  const samples = buildFixtureApp();
  let hostile = false;
  let firstHitMs: number | undefined;
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/_hostile/turn') {
      hostile = true;
      return void res.writeHead(204).end();
    }
    if (path === '/_hostile/state') {
      return void res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ firstHitMs }));
    }
    if (!hostile || path !== shape.path) return void samples(req, res);
    firstHitMs ??= Date.now();
    req.resume();
    shape.reply(res);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  process.stdout.write(`hostile RM: http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
}

if (require.main === module) void serve(Number(process.argv[2]));
