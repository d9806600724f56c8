import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiApp } from '../../src/api/app';
import { SidecarMetrics } from '../../src/metrics';
import { buildConfig } from '../../src/config/load';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server';
import { DEFAULT_SYNTHETIC_HISTORY } from '../../src/emulator/synthetic-history';
import { silentLogger } from '../../src/log';
import { ReplayRunner, type ReplayView } from '../../src/replay/runner';

/**
 * POST /api/v1/replays and its GETs: a replay of the emulator's synthetic history run by the
 * CLI in a process of its own (here from the sources), its progress and report read back.
 */
const TOKEN = 'replay-token-0123456789abcdef';
const root = join(__dirname, '..', '..');
/** The CLI from the sources (the sidecar runs bin/yarn-sched-sidecar.js from dist/). */
const command = [
  process.execPath,
  '--require',
  'tsx/cjs',
  '-e',
  `require(${JSON.stringify(join(root, 'src', 'cli', 'main'))}).main(['node', 'yss', ...process.argv.slice(1)])`,
  '--',
];

let emu: RunningEmulator;
let base: string;
let server: ReturnType<ReturnType<typeof createApiApp>['listen']>;
let dir: string;

beforeAll(async () => {
  emu = await startEmulator({
    history: {
      ...DEFAULT_SYNTHETIC_HISTORY,
      jobs: 40,
      startMs: Date.now() - 4 * 3_600_000,
      meanGapSeconds: 300,
    },
  });
  dir = mkdtempSync(join(tmpdir(), 'yss-api-replays-'));
  const config = buildConfig({ rm: { addresses: [emu.url], jobHistoryAddress: emu.jhsUrl } });
  const app = createApiApp({
    service: {} as never,
    metrics: new SidecarMetrics(),
    logger: silentLogger(),
    tokens: [{ name: 'ops', token: TOKEN }],
    protectReads: false,
    maxBodyBytes: 1024 * 1024,
    now: Date.now,
    replays: new ReplayRunner({ config, command, root: dir }),
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
});

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}/api/v1/replays`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('replays through the API', () => {
  it('starts one (202), shows it running, then done with its report', async () => {
    const res = await post({ since: '1d', slack: 1.5, policies: ['rtmr', 'fifo-all'] });
    expect(res.status).toBe(202);
    const started = (await res.json()) as ReplayView;
    expect(started).toMatchObject({ state: 'running', by: 'ops', report: null });
    let view = started;
    const deadline = Date.now() + 120_000;
    while (view.state === 'running' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      view = (await (await fetch(`${base}/api/v1/replays/${started.id}`)).json()) as ReplayView;
    }
    expect(view.error).toBeNull();
    expect(view.state).toBe('done');
    expect(view.report!.jobs).toBeGreaterThan(20);
    expect(Object.keys(view.report!.policies)).toEqual(['as-ran', 'rtmr', 'fifo-all']);
    expect(view.report!.fidelity.medianAbsError).toBeLessThanOrEqual(0.1);
    const list = (await (await fetch(`${base}/api/v1/replays`)).json()) as { replays: ReplayView[] };
    expect(list.replays.map((r) => r.id)).toContain(started.id);
  }, 150_000);

  it('refuses a bad request with what was wrong, and starts nothing', async () => {
    const bad = await post({ since: '1d', from: '2026-01-01T00:00:00Z', policies: ['fastest'] });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string; message: string } }).error.code).toBe(
      'VALIDATION_FAILED',
    );
    const unknown = await post({ since: '1d', policies: ['fastest'] });
    expect(
      ((await unknown.json()) as { error: { issues: Array<{ message: string }> } }).error.issues[0]!.message,
    ).toMatch(/unknown admission policy "fastest"/);
    expect((await post({ since: '1d', slack: -1 })).status).toBe(400);
    expect((await post({ since: '1d', extra: true })).status).toBe(400);
    // A body that is not an object, and a time or duration the schema's pattern refuses.
    expect((await post(null)).status).toBe(400);
    const issue = async (body: unknown) =>
      ((await (await post(body)).json()) as { error: { issues: Array<{ path: string; message: string }> } })
        .error.issues[0];
    expect(await issue({ from: '\u00eb\u00f9\u00e5Y\u00b2' })).toEqual({
      path: 'from',
      message: 'must be an ISO-8601 time or epoch ms',
    });
    expect(await issue({ since: 'a week' })).toEqual({
      path: 'since',
      message: 'must be a duration such as 7d, 12h or 90m',
    });
    expect((await post({ since: '1d' }, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post({ since: '1d' }, { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await fetch(`${base}/api/v1/replays/replay-nope`)).status).toBe(404);
  });
});
