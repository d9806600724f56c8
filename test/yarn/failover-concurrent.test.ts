/**
 * An RM failover met by several calls at once (a poll cycle reads four endpoints together): each
 * call reaches the new active RM, and the next calls go straight there. Before, every failed call
 * moved to the next address, so four calls moved four times and landed back on the dead RM.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpResourceManagerClient } from '../../src/yarn/client';

function rmServer(): Promise<{ server: Server; url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    res.setHeader('content-type', 'application/json');
    if (req.url?.startsWith('/ws/v1/cluster/info'))
      res.end(JSON.stringify({ clusterInfo: { id: 1, haState: 'ACTIVE', state: 'STARTED' } }));
    else res.end(JSON.stringify({ apps: null }));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        hits: () => hits,
      }),
    ),
  );
}

it('four calls in flight when the active RM dies all reach the new one, and later calls go there at once', async () => {
  const first = await rmServer();
  const second = await rmServer();
  const rm = new HttpResourceManagerClient({
    urls: [first.url, second.url],
    haDetection: true,
    maxAttempts: 2,
    backoffBaseMs: 1,
    backoffMaxMs: 1,
    timeoutMs: 2000,
  });
  try {
    expect(await rm.apps()).toEqual([]);
    expect(rm.transport.activeUrl).toBe(first.url);
    // Finding the first active RM is no change of it.
    expect(rm.activeChanges).toBe(0);
    first.server.closeAllConnections();
    await new Promise((r) => first.server.close(r));
    // The second RM was STANDBY; now ACTIVE (its info already says so).
    const results = await Promise.all([rm.apps(), rm.apps(), rm.apps(), rm.apps()]);
    expect(results).toEqual([[], [], [], []]);
    expect(rm.transport.activeUrl).toBe(second.url);
    // Four calls met the failover together: one change, as the app reads count it.
    expect(rm.activeChanges).toBe(1);
    const before = second.hits();
    await Promise.all([rm.apps(), rm.apps(), rm.apps(), rm.apps()]);
    expect(second.hits() - before).toBe(4);
  } finally {
    second.server.closeAllConnections();
    await new Promise((r) => second.server.close(r));
  }
});
