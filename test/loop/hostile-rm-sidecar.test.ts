/**
 * The sidecar in front of a stalled or hostile RM, over real sockets on loopback: close() ends
 * within 2 s while an RM call hangs (the calls in flight are aborted, not waited for), and
 * /readyz names what is wrong: unreachable, refused (authentication), unreadable, too large, too
 * slow, an error status, or no active RM among the addresses.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildConfig } from '../../src/config/load';
import { silentLogger } from '../../src/log';
import { startSidecar, type RunningSidecar } from '../../src/service/start';

interface FakeRm {
  url: string;
  /** Requests received so far. */
  hits(): number;
  close(): Promise<void>;
}

async function fakeRm(reply: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<FakeRm> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits++;
    req.resume();
    reply(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An address nothing listens on. */
async function deadAddress(): Promise<string> {
  const rm = await fakeRm(() => undefined);
  await rm.close();
  return rm.url;
}

function sidecarAt(addresses: string[], rm: Record<string, unknown> = {}): Promise<RunningSidecar> {
  const config = buildConfig({
    rm: { addresses, jobHistoryAddress: addresses[0], retries: 0, ...rm },
    server: { port: 0, host: '127.0.0.1' },
    ledger: { path: ':memory:' },
  });
  return startSidecar(config, { logger: silentLogger(), manualPolling: true });
}

async function until(what: string, ok: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('close() with an RM call stalled', () => {
  it.each([
    ['no answer at all', (_req: http.IncomingMessage, _res: http.ServerResponse) => undefined],
    [
      'a body dripped a byte a second',
      (_req: http.IncomingMessage, res: http.ServerResponse) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        const drip = setInterval(() => res.write(' '), 1000);
        res.on('close', () => clearInterval(drip));
      },
    ],
  ])('ends within 2 s: %s', async (_name, reply) => {
    const rm = await fakeRm(reply);
    // Limits far longer than the test: only close() can end the call.
    const running = await sidecarAt([rm.url], { timeoutMs: 60_000, callBudgetMs: 120_000 });
    try {
      const poll = running.sidecar.runOnce();
      await until('the poll to reach the RM', () => rm.hits() > 0);
      const started = performance.now();
      await running.close();
      expect(performance.now() - started).toBeLessThan(2_000);
      // The poll ended too, with the reason.
      await poll;
      expect(running.sidecar.readiness()).toMatchObject({
        ready: false,
        reason: expect.stringMatching(/RM_CLIENT_CLOSED|client is closed/),
      });
    } finally {
      await running.close();
      await rm.close();
    }
  });
});

describe('/readyz names the cause', () => {
  const json = { 'Content-Type': 'application/json' };
  const cases: Array<{
    name: string;
    start: () => Promise<{ addresses: string[]; stop: () => Promise<void> }>;
    rm?: Record<string, unknown>;
    reason: RegExp;
  }> = [
    {
      name: 'unreachable',
      start: async () => ({ addresses: [await deadAddress()], stop: async () => undefined }),
      reason: /^RM unreachable: /,
    },
    {
      name: 'refused (authentication)',
      start: async () => {
        const rm = await fakeRm((_q, res) =>
          res.writeHead(401, { 'Content-Type': 'text/plain' }).end('denied'),
        );
        return { addresses: [rm.url], stop: rm.close };
      },
      reason: /^RM refuses the sidecar \(authentication\): /,
    },
    {
      name: 'unreadable',
      start: async () => {
        const rm = await fakeRm((_q, res) => res.writeHead(200, json).end('{"clusterInfo":{"id":'));
        return { addresses: [rm.url], stop: rm.close };
      },
      reason: /^RM answer unreadable: invalid JSON/,
    },
    {
      name: 'too large',
      start: async () => {
        const rm = await fakeRm((_q, res) => {
          res.writeHead(200, json);
          const block = Buffer.alloc(64 * 1024, ' ');
          const pump = (): void => {
            while (!res.destroyed && res.write(block));
            if (!res.destroyed) res.once('drain', pump);
          };
          pump();
        });
        return { addresses: [rm.url], stop: rm.close };
      },
      // Every endpoint's own limit is below this one: the first read refused names its own.
      rm: { maxResponseBytes: 1024 * 1024 },
      reason: /^RM answer too large: .*rm\.responseLimits\.\w+\.maxBytes/,
    },
    {
      name: 'too slow',
      start: async () => {
        const rm = await fakeRm(() => undefined);
        return { addresses: [rm.url], stop: rm.close };
      },
      rm: { timeoutMs: 300 },
      reason: /^RM too slow: RM did not answer GET \S+ within 300 ms \(rm\.timeoutMs\)/,
    },
    {
      name: 'an error status',
      start: async () => {
        const rm = await fakeRm((_q, res) =>
          res.writeHead(500, { 'Content-Type': 'text/plain' }).end('oops'),
        );
        return { addresses: [rm.url], stop: rm.close };
      },
      reason: /^RM answered an error: RM answered 500: oops/,
    },
    {
      name: 'standby (no active RM among the addresses)',
      start: async () => {
        const standby = () =>
          fakeRm((_q, res) => res.writeHead(200, json).end('{"clusterInfo":{"id":1,"haState":"STANDBY"}}'));
        const [a, b] = await Promise.all([standby(), standby()]);
        return {
          addresses: [a.url, b.url],
          stop: async () => void (await Promise.all([a.close(), b.close()])),
        };
      },
      reason: /^no active RM \(standby\): no active RM among/,
    },
  ];

  it.each(cases)('$name', async (c) => {
    const { addresses, stop } = await c.start();
    const running = await sidecarAt(addresses, c.rm);
    try {
      await running.sidecar.runOnce();
      const res = await fetch(`${running.url}/readyz`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { ready: boolean; reason: string };
      expect(body.reason).toMatch(c.reason);
    } finally {
      await running.close();
      await stop();
    }
  });
});
