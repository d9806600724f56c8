/**
 * `yarn-sched-sidecar start` in its own process, polling an RM that takes the request and never
 * answers (or drips its answer a byte a second), with limits far longer than the test: SIGINT and
 * SIGTERM stop it within 2 s, exit code 0. The calls in flight are aborted, not waited for.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startSidecarProc, stopAll, tempDir, waitFor } from './support/procs';

let server: http.Server;
let rmUrl: string;
let hits = 0;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  tmp = tempDir('stalled');
  server = http.createServer((req, res) => {
    hits++;
    req.resume();
    // Every other request gets headers and a body dripped a byte a second; the rest get nothing.
    if (hits % 2 === 0) return;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    const drip = setInterval(() => res.write(' '), 1000);
    res.on('close', () => clearInterval(drip));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  rmUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await stopAll();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  tmp?.cleanup();
});

describe.each(['SIGINT', 'SIGTERM'] as const)('%s with the RM stalled', (signal) => {
  it('exits 0 within 2 s', async () => {
    const before = hits;
    const sc = await startSidecarProc(`sidecar-${signal}`, {
      rmUrls: [rmUrl],
      jhsUrl: rmUrl,
      ledgerPath: join(tmp.dir, `${signal}.db`),
      config: { rm: { timeoutMs: 60_000, callBudgetMs: 120_000, retries: 3 } },
    });
    // The first poll's four reads are on the stalled RM.
    await waitFor('the poll to reach the RM', () => (hits >= before + 4 ? true : undefined), {
      procs: [sc.proc],
    });
    const started = performance.now();
    sc.proc.child.kill(signal);
    const code = await sc.proc.exited;
    const ms = performance.now() - started;
    expect(code).toBe(0);
    expect(ms).toBeLessThan(2_000);
    expect(sc.proc.output()).toMatch(/"message":"stopping"/);
  });
});
