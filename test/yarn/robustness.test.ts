/**
 * Robustness of the RM transport, over real sockets on loopback: HA failover, the bad-input
 * list (each a typed error), retries for idempotent calls only, jittered backoff, timeouts,
 * debug logging without credentials, HTTPS with a configured CA.
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import express from 'express';
import { buildFixtureApp } from '../fixture-server/server';
import { RmHttpError } from '../../src/errors/rm-http';
import { RmMalformedResponseError } from '../../src/errors/rm-malformed';
import { RmRemoteError } from '../../src/errors/rm-remote';
import { RmTimeoutError } from '../../src/errors/rm-timeout';
import { RmUnavailableError } from '../../src/errors/rm-unavailable';
import { HttpResourceManagerClient } from '../../src/yarn/client';
import { JobHistoryClient } from '../../src/yarn/jobhistory';
import { HttpTransport } from '../../src/yarn/transport';
import { capturingLogger } from '../log-capture';
import { hasOpenssl, selfSignedCert } from '../support/tls';

interface TestServer {
  url: string;
  hits: Array<{ method: string; url: string }>;
  close(): Promise<void>;
}

async function listen(server: http.Server, scheme = 'http'): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function rawServer(
  handler: (req: http.IncomingMessage, res: http.ServerResponse, hit: number) => void,
): Promise<TestServer> {
  const hits: TestServer['hits'] = [];
  const server = http.createServer((req, res) => {
    hits.push({ method: req.method ?? '', url: req.url ?? '' });
    req.resume();
    handler(req, res, hits.length);
  });
  const url = await listen(server);
  return {
    url,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An RM whose role can be switched between active and standby-of-a-peer while it runs. */
async function switchableRm(): Promise<
  TestServer & { becomeActive(): void; becomeStandbyOf(peer: string): void }
> {
  const activeApp = buildFixtureApp();
  let current: express.Express = activeApp;
  const hits: TestServer['hits'] = [];
  const server = http.createServer((req, res) => {
    hits.push({ method: req.method ?? '', url: req.url ?? '' });
    current(req, res);
  });
  const url = await listen(server);
  return {
    url,
    hits,
    becomeActive: () => {
      current = activeApp;
    },
    becomeStandbyOf: (peer) => {
      current = buildFixtureApp({ standbyOf: peer });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const fastRetry = { maxAttempts: 3, sleep: () => Promise.resolve(), random: () => 0.5 };

describe('HA failover', () => {
  it('finds the active RM when the first address is a standby, and says so in the log', async () => {
    const active = await switchableRm();
    const standby = await switchableRm();
    standby.becomeStandbyOf(active.url);
    const { logger, records } = capturingLogger();
    try {
      const rm = new HttpResourceManagerClient({ urls: [standby.url, active.url], logger });
      const info = await rm.clusterInfo();
      expect(info.haState).toBe('ACTIVE');
      expect(rm.transport.activeUrl).toBe(active.url);
      expect(records).toContainEqual(
        expect.objectContaining({
          message: 'active RM selected',
          rm: active.url,
          component: 'rm-client',
          others: [`${standby.url}: STANDBY`],
        }),
      );
      // The standby was asked only on the one path it answers itself.
      expect(standby.hits.map((h) => h.url)).toEqual(['/ws/v1/cluster/info']);
    } finally {
      await Promise.all([active.close(), standby.close()]);
    }
  });

  it('re-sends a write refused by a standby (307) to the new active RM', async () => {
    const a = await switchableRm();
    const b = await switchableRm();
    b.becomeStandbyOf(a.url);
    const { logger, records } = capturingLogger();
    try {
      const rm = new HttpResourceManagerClient({ urls: [a.url, b.url], logger });
      expect((await rm.moveApp('application_1399397633663_0003', 'test')).moved).toBe(true);
      expect(rm.transport.activeUrl).toBe(a.url);
      // The RMs swap roles: a is now the standby of b.
      a.becomeStandbyOf(b.url);
      b.becomeActive();
      expect((await rm.moveApp('application_1399397633663_0003', 'test')).moved).toBe(true);
      expect(rm.transport.activeUrl).toBe(b.url);
      expect(b.hits.filter((h) => h.method === 'PUT')).toHaveLength(1);
      expect(records).toContainEqual(
        expect.objectContaining({ message: 'RM answered as standby', rm: a.url }),
      );
      expect(records.filter((r) => r.message === 'active RM selected').map((r) => r.rm)).toEqual([
        a.url,
        b.url,
      ]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('fails with RmUnavailableError when no address is active', async () => {
    const s1 = await switchableRm();
    const s2 = await switchableRm();
    s1.becomeStandbyOf(s2.url);
    s2.becomeStandbyOf(s1.url);
    try {
      const rm = new HttpResourceManagerClient({ urls: [s1.url, s2.url] });
      const err = await rm.clusterMetrics().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RmUnavailableError);
      expect((err as Error).message).toContain('no active RM');
    } finally {
      await Promise.all([s1.close(), s2.close()]);
    }
  });

  it('moves to the next address when the active one refuses connections', async () => {
    const dead = await rawServer(() => undefined);
    await dead.close();
    const live = await switchableRm();
    const { logger, records } = capturingLogger();
    try {
      const t = new HttpTransport({ urls: [dead.url, live.url], haDetection: false, logger, ...fastRetry });
      const rm = new HttpResourceManagerClient(t);
      expect((await rm.clusterMetrics()).totalMB).toBe(17408);
      expect(records).toContainEqual(
        expect.objectContaining({
          message: 'RM failover',
          from: dead.url,
          to: live.url,
          reason: 'ECONNREFUSED',
        }),
      );
    } finally {
      await live.close();
    }
  });
});

describe('bad inputs: each is a typed error', () => {
  const cases: Array<
    [string, (res: http.ServerResponse) => void, 'json' | 'xml', new (...a: never[]) => Error, RegExp]
  > = [
    [
      'truncated JSON',
      (res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"clusterInfo":{"id":1,"haSt'),
      'json',
      RmMalformedResponseError,
      /invalid JSON/,
    ],
    [
      'truncated XML',
      (res) =>
        res
          .writeHead(200, { 'Content-Type': 'application/xml' })
          .end('<?xml version="1.0"?><clusterInfo><id>1</id><haState>ACT'),
      'xml',
      RmMalformedResponseError,
      /invalid XML/,
    ],
    [
      'an HTML error page',
      (res) =>
        res
          .writeHead(200, { 'Content-Type': 'text/html' })
          .end('<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>'),
      'json',
      RmMalformedResponseError,
      /HTML page/,
    ],
    [
      'an HTML page sent as JSON',
      (res) =>
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('<html><body>Login</body></html>'),
      'json',
      RmMalformedResponseError,
      /HTML page/,
    ],
    [
      'a valid body of the wrong shape',
      // The cluster id identifies the RM: required. (haState is not: RMs before 2.4 lack it.)
      (res) =>
        res
          .writeHead(200, { 'Content-Type': 'application/json' })
          .end('{"clusterInfo":{"haState":"ACTIVE"}}'),
      'json',
      RmMalformedResponseError,
      /clusterInfo\.id should be present/,
    ],
    [
      'an empty body',
      (res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(''),
      'json',
      RmMalformedResponseError,
      /empty body/,
    ],
    [
      'a RemoteException',
      (res) =>
        res.writeHead(503, { 'Content-Type': 'application/json' }).end(
          JSON.stringify({
            RemoteException: {
              exception: 'YarnException',
              message: 'Failed to move',
              javaClassName: 'org.apache.hadoop.yarn.exceptions.YarnException',
            },
          }),
        ),
      'json',
      RmRemoteError,
      /503 YarnException: Failed to move/,
    ],
    [
      'a RemoteException in XML',
      (res) =>
        res
          .writeHead(400, { 'Content-Type': 'application/xml' })
          .end(
            '<RemoteException><exception>BadRequestException</exception><message>bad</message><javaClassName>x.BadRequestException</javaClassName></RemoteException>',
          ),
      'xml',
      RmRemoteError,
      /400 BadRequestException: bad/,
    ],
    [
      'a 500',
      (res) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('Internal Server Error'),
      'json',
      RmHttpError,
      /RM answered 500: Internal Server Error/,
    ],
    [
      'the standby text with 200',
      (res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('There is no active RM right now.'),
      'json',
      RmMalformedResponseError,
      /Content-Type text\/plain where JSON was expected/,
    ],
  ];

  it.each(cases)('%s', async (_name, reply, format, type, message) => {
    const server = await rawServer((_req, res) => reply(res));
    try {
      const rm = new HttpResourceManagerClient({ urls: [server.url], format, ...fastRetry });
      const err = await rm.clusterInfo().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(type);
      expect((err as Error).message).toMatch(message);
    } finally {
      await server.close();
    }
  });

  it('a RemoteException carries exception, javaClassName, message and status, and is not retried', async () => {
    const server = await rawServer((_req, res) =>
      res
        .writeHead(404, { 'Content-Type': 'application/json' })
        .end(
          fs.readFileSync(
            path.join(
              __dirname,
              '..',
              'fixtures',
              'yarn-rm-api',
              'samples',
              'error-remoteexception.response.json',
            ),
          ),
        ),
    );
    try {
      const err = (await new HttpResourceManagerClient({ urls: [server.url], ...fastRetry })
        .app('application_1324057493980_9999')
        .catch((e: unknown) => e)) as RmRemoteError;
      expect(err).toMatchObject({
        code: 'RM_REMOTE_EXCEPTION',
        status: 404,
        exception: 'NotFoundException',
        javaClassName: 'org.apache.hadoop.yarn.webapp.NotFoundException',
      });
      expect(err.remoteMessage).toBe(
        'java.lang.Exception: app with id: application_1324057493980_9999 not found',
      );
      expect(server.hits).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('a plain-text refusal of a write keeps the RM text', async () => {
    const server = await rawServer((_req, res) =>
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end('App in FINISHED state cannot be moved.'),
    );
    try {
      const err = await new HttpResourceManagerClient({ urls: [server.url], ...fastRetry })
        .moveApp('application_1_0001', 'b')
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RmHttpError);
      expect(err).toMatchObject({ status: 400, text: 'App in FINISHED state cannot be moved.' });
      expect(server.hits).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('a refused connection', async () => {
    const gone = await rawServer(() => undefined);
    await gone.close();
    const err = await new HttpResourceManagerClient({ urls: [gone.url], ...fastRetry })
      .clusterInfo()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmUnavailableError);
    expect(err).toMatchObject({ context: { reason: 'ECONNREFUSED' }, outcomeUnknown: false });
  });

  it('names the server that answered: a JobHistory server error is not said to come from the RM', async () => {
    const server = await rawServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('history store offline');
    });
    try {
      const jhs = JobHistoryClient.forHistoryServer({ urls: [server.url], maxAttempts: 1 });
      const err = await jhs.jobs().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RmHttpError);
      expect((err as Error).message).toBe('JobHistory server answered 500: history store offline');
    } finally {
      await server.close();
    }
  });

  it('a hang longer than the timeout', async () => {
    const server = await rawServer(() => undefined); // never answers
    try {
      // Long enough that a loaded machine still delivers the request before the client gives up.
      const rm = new HttpResourceManagerClient({ urls: [server.url], timeoutMs: 500, maxAttempts: 1 });
      const err = await rm.clusterInfo().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RmTimeoutError);
      expect(err).toMatchObject({ timeoutMs: 500 });
      expect(server.hits).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

describe('retries: idempotent calls only', () => {
  it('retries a GET after a 500 with jittered backoff, and succeeds', async () => {
    const body = fs.readFileSync(
      path.join(__dirname, '..', 'fixtures', 'yarn-rm-api', 'samples', 'cluster-metrics.response.json'),
    );
    const server = await rawServer((_req, res, hit) =>
      hit < 3
        ? res.writeHead(500).end('busy')
        : res.writeHead(200, { 'Content-Type': 'application/json' }).end(body),
    );
    const delays: number[] = [];
    try {
      const rm = new HttpResourceManagerClient({
        urls: [server.url],
        maxAttempts: 3,
        backoffBaseMs: 100,
        backoffMaxMs: 1000,
        random: () => 0.5,
        sleep: (ms) => {
          delays.push(ms);
          return Promise.resolve();
        },
      });
      expect((await rm.clusterMetrics()).totalMB).toBe(17408);
      expect(server.hits).toHaveLength(3);
      expect(delays).toEqual([50, 100]); // 0.5 × 100·2^0, 0.5 × 100·2^1
    } finally {
      await server.close();
    }
  });

  it('never re-sends a PUT after a 500 or a timeout', async () => {
    const failing = await rawServer((_req, res) => res.writeHead(500).end('boom'));
    const hanging = await rawServer(() => undefined);
    try {
      const e1 = await new HttpResourceManagerClient({ urls: [failing.url], ...fastRetry })
        .setAppPriority('application_1_0001', 3)
        .catch((e: unknown) => e);
      expect(e1).toBeInstanceOf(RmHttpError);
      expect(failing.hits).toHaveLength(1);
      // The hit count below needs the request to arrive before the timeout, even on a loaded machine.
      const e2 = await new HttpResourceManagerClient({ urls: [hanging.url], ...fastRetry, timeoutMs: 500 })
        .killApp('application_1_0001')
        .catch((e: unknown) => e);
      expect(e2).toBeInstanceOf(RmTimeoutError);
      expect(hanging.hits).toHaveLength(1);
    } finally {
      await Promise.all([failing.close(), hanging.close()]);
    }
  });

  it('re-sends a POST that provably never arrived (connection refused) to the next address', async () => {
    const gone = await rawServer(() => undefined);
    await gone.close();
    const live = await switchableRm();
    try {
      const t = new HttpTransport({ urls: [gone.url, live.url], haDetection: false, ...fastRetry });
      const id = await new HttpResourceManagerClient(t).newReservation();
      expect(id).toBe('reservation_1404198295326_0003');
      expect(live.hits.filter((h) => h.method === 'POST')).toHaveLength(1);
    } finally {
      await live.close();
    }
  });

  it('backoff is full jitter: within [0, min(max, base·2^attempt)) and growing with the random draw', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 12 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, r1, r2) => {
          const make = (r: number) =>
            new HttpTransport({
              urls: ['http://127.0.0.1:1'],
              backoffBaseMs: 200,
              backoffMaxMs: 5000,
              random: () => r,
            });
          const cap = Math.min(5000, 200 * 2 ** attempt);
          const d1 = make(r1).backoffDelay(attempt);
          expect(d1).toBeGreaterThanOrEqual(0);
          expect(d1).toBeLessThan(cap);
          if (r1 <= r2) expect(d1).toBeLessThanOrEqual(make(r2).backoffDelay(attempt));
        },
      ),
    );
  });
});

describe('logging', () => {
  it('logs every call at debug with method, path, status and latency, never the user', async () => {
    const server = await rawServer((_req, res) =>
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"queue":"a"}'),
    );
    const { logger, records } = capturingLogger();
    let clock = 1000;
    try {
      const rm = new HttpResourceManagerClient({
        urls: [server.url],
        user: 'secret-user',
        logger,
        now: () => (clock += 7),
      });
      await rm.appQueue('application_1_0001');
      expect(server.hits[0]!.url).toContain('user.name=secret-user');
      expect(records).toEqual([
        expect.objectContaining({
          level: 'debug',
          message: 'rm call',
          method: 'GET',
          path: '/ws/v1/cluster/apps/application_1_0001/queue',
          status: 200,
          latencyMs: 7,
        }),
      ]);
      expect(JSON.stringify(records)).not.toContain('secret-user');
    } finally {
      await server.close();
    }
  });
});

(hasOpenssl ? describe : describe.skip)('HTTPS with a configured CA', () => {
  let dir: string;
  let server: https.Server;
  let url: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rm-tls-'));
    const { key, cert } = selfSignedCert(dir);
    server = https.createServer({ key, cert }, buildFixtureApp());
    url = await listen(server, 'https');
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('trusts the RM certificate signed by the CA file', async () => {
    const rm = new HttpResourceManagerClient({
      urls: [url],
      caFile: path.join(dir, 'cert.pem'),
      maxAttempts: 1,
    });
    expect((await rm.clusterInfo()).haState).toBe('ACTIVE');
  });

  it('refuses it without the CA, with a typed error', async () => {
    const err = await new HttpResourceManagerClient({ urls: [url], maxAttempts: 1 })
      .clusterInfo()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmUnavailableError);
    expect((err as RmUnavailableError).context.reason).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
  });
});
