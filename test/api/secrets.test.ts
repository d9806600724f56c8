/**
 * Secrets stay secret: the real sidecar over real HTTP, beside the emulated RM, configured with
 * credentials in every RM address (`http://user:pw@host`, an HA pair whose first RM is down)
 * and a bearer token. After a run (submissions admitted and rejected, bad requests, cycles,
 * then the RM gone), every API answer, health answer, metric, captured log line and error
 * message is searched for the password, the token and the user information: none is there.
 * With reads protected, /readyz and /healthz name no address to a caller without a token.
 */
import { createServer } from 'node:net';
import { buildConfig } from '../../src/config/load';
import { ManualClock } from '../../src/emulator/clock';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server';
import { startSidecar, type RunningSidecar } from '../../src/service/start';
import { sidecarLogCapture } from '../log-capture';
import { SLEEP_AM } from '../yarn-submission';

const MB = 1024 * 1024;
const RM_USER = 'svc-yarnadmin';
const RM_PASSWORD = 'Rm-pa55w0rd-7f3kq9';
const TOKEN = 'tok-9c1e5b7d3a2f4e6b8d0c1a3e5f7b9d2c';
const SECRETS = [...new Set([RM_PASSWORD, TOKEN, `${RM_USER}:`, encodeURIComponent(RM_PASSWORD)])];

let emulator: RunningEmulator;
let clock: ManualClock;
let running: RunningSidecar;
let deadPort: number;
const capture = sidecarLogCapture();
const logLines = capture.lines;
/** Every answer body the test saw, by what was asked. */
const seen: Array<{ what: string; text: string }> = [];

const withCredentials = (url: string) => url.replace('http://', `http://${RM_USER}:${RM_PASSWORD}@`);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

async function ask(what: string, path: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(`${running.url}${path}`, init);
  const text = await res.clone().text();
  const headers: string[] = [];
  res.headers.forEach((v, k) => headers.push(`${k}: ${v}`));
  seen.push({ what: `${what} (${res.status})`, text: `${headers.join('\n')}\n${text}` });
  return res;
}

const auth = { authorization: `Bearer ${TOKEN}` };

async function cycle(): Promise<void> {
  await running.sidecar.runOnce();
  await running.sidecar.runOnceSettled();
}

beforeAll(async () => {
  clock = new ManualClock(Date.UTC(2026, 10, 22, 8));
  emulator = await startEmulator({ clock, speed: 10, seed: 7 });
  deadPort = await freePort();
  const config = buildConfig({
    rm: {
      addresses: [withCredentials(`http://127.0.0.1:${deadPort}`), withCredentials(emulator.url)],
      jobHistoryAddress: withCredentials(emulator.jhsUrl),
      timeoutMs: 2000,
      retries: 0,
    },
    admission: { initialEstimates: { eta: 1, mapSecondsPerMb: 0.1, reduceSecondsPerMb: 0.1 } },
    auth: { tokens: [{ name: 'ci', token: TOKEN }], protectReads: true },
    server: { port: 0, host: '127.0.0.1' },
    ledger: { path: ':memory:' },
    log: { level: 'debug' },
  });
  running = await startSidecar(config, {
    logger: capture.logger,
    now: () => emulator.time.nowEpochMs(),
    manualPolling: true,
  });
  await cycle();
  const job = {
    name: 'nightly',
    user: 'alice',
    maps: 4,
    reduces: 1,
    inputBytes: 4 * 128 * MB,
    yarnSubmission: {
      ...SLEEP_AM,
      'am-container-spec': {
        ...(SLEEP_AM['am-container-spec'] as object),
        credentials: { secrets: { entry: [{ key: 'db', value: 'c2VjcmV0' }] } },
      },
    },
  };
  const post = (what: string, body: unknown, headers: Record<string, string> = auth) =>
    ask(what, '/api/v1/jobs', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  await post('admitted', { ...job, deadline: 900 });
  await post('rejected', { ...job, deadline: 5 });
  await post('dry run', { ...job, deadline: 600, dryRun: true });
  await post('wrong token', { ...job, deadline: 600 }, { authorization: `Bearer ${TOKEN}x` });
  await post('bad field', { ...job, deadline: 'soon' });
  await post('idempotent', { ...job, deadline: 800 }, { ...auth, 'idempotency-key': 'k1' });
  await post('idempotent again', { ...job, deadline: 801 }, { ...auth, 'idempotency-key': 'k1' });
  for (let i = 0; i < 4; i++) {
    clock.advance(6000); // 60 s of the cluster's time at speed 10
    await cycle();
  }
  // The RM goes away: polls fail, and their errors name its addresses.
  await emulator.stopListening();
  await cycle();
}, 60_000);

afterAll(async () => {
  await running?.close();
  await emulator?.close();
});

describe('with credentials in the RM addresses and a bearer token', () => {
  it('no answer, log line, metric or error message holds a credential', async () => {
    const list = (await (await ask('jobs', '/api/v1/jobs', { headers: auth })).json()) as {
      jobs: Array<{ id: string; appId: string | null }>;
    };
    expect(list.jobs.length).toBeGreaterThanOrEqual(3);
    // The sidecar did reach the RM through the address with credentials: its job has an app.
    expect(list.jobs.some((j) => j.appId !== null)).toBe(true);
    for (const j of list.jobs) await ask(`job ${j.id}`, `/api/v1/jobs/${j.id}`, { headers: auth });
    for (const path of ['/api/v1/cluster', '/api/v1/estimates', '/api/v1/stats', '/', '/readyz'])
      await ask(path, path, { headers: auth });
    for (const path of [
      '/api/v1/openapi.json',
      '/metrics',
      '/healthz',
      '/readyz',
      '/api/v1/cluster',
      '/nope',
    ])
      await ask(`${path} without a token`, path);
    const readiness = running.sidecar.readiness();
    const haystacks = [
      ...seen,
      ...logLines.map((text, i) => ({ what: `log line ${i}`, text })),
      { what: 'metrics registry', text: await running.metrics.registry.metrics() },
      { what: 'readiness()', text: JSON.stringify(readiness) },
    ];
    const leaks = haystacks.flatMap(({ what, text }) =>
      SECRETS.filter((s) => text.includes(s)).map((s) => `${what} holds ${s}`),
    );
    expect(leaks).toEqual([]);
    // The addresses did reach the answers and the log: shown with their user information redacted.
    expect(readiness.ready).toBe(false);
    expect(String(readiness.reason)).toContain(`[redacted]@127.0.0.1`);
    expect(logLines.some((l) => l.includes('[redacted]@127.0.0.1'))).toBe(true);
    const cluster = seen.find((s) => s.what.startsWith('/api/v1/cluster (200)'))!.text;
    expect(cluster).toContain(`http://[redacted]@127.0.0.1:${deadPort}`);
    // The launch context's credentials are kept for the RM and never shown.
    expect(seen.some((s) => s.text.includes('c2VjcmV0'))).toBe(false);
  });

  it('with reads protected, /readyz and /healthz name no address to a caller without a token', async () => {
    for (const path of ['/readyz', '/healthz']) {
      const text = await (await fetch(`${running.url}${path}`)).text();
      expect(text).not.toContain('127.0.0.1');
      expect(text).not.toContain(String(deadPort));
      expect(text).not.toContain(String(emulator.port));
      expect(text).not.toMatch(/https?:/);
    }
    const open = await (await fetch(`${running.url}/readyz`)).json();
    expect(open).toMatchObject({ ready: false, reason: expect.stringMatching(/^RM /) });
  });
});
