/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createApiApp } from '../../src/api/app';
import type { Replays } from '../../src/api/replays';
import { SidecarMetrics } from '../../src/metrics';
import { buildConfig } from '../../src/config/load';
import { mountDashboard } from '../../src/dashboard';
import { startEmulator } from '../../src/emulator/server';
import { DEFAULT_SYNTHETIC_HISTORY } from '../../src/emulator/synthetic-history';
import { silentLogger } from '../../src/log';
import { replayFromCluster } from '../../src/replay';
import type { ReplayReport } from '../../src/replay/replay';
import type { ReplayView } from '../../src/replay/runner';
import { parseDeadlineRules } from '../../src/replay/workload';
import { SqliteLedger } from '../../src/store/ledger';
import { HttpResourceManagerClient } from '../../src/yarn/client';
import { JobHistoryClient } from '../../src/yarn/jobhistory';
import { LedgerService } from './ledger-service';

/**
 * The dashboard's replays view (#replays) in Chromium: the list GET /api/v1/replays answers,
 * and one replay's policy table and plots, with a report made by a real replay of the emulated
 * JobHistory server's synthetic history (every policy), beside one replay still running and
 * one that failed.
 */

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = join(__dirname, '..', '..', 'test-output', 'screenshots');
const NOW = Date.UTC(2026, 0, 2);
const POLL_MS = 250;

let browser: Browser;
let ledger: SqliteLedger;
let report: ReplayReport;
const servers: Server[] = [];
let base: string;
let bare: string;
const pageErrors: string[] = [];

const views = (): ReplayView[] => [
  {
    id: 'replay-20260102T000300-cccccc',
    state: 'running',
    startedAt: new Date(NOW + 180_000).toISOString(),
    finishedAt: null,
    by: 'operator',
    request: { since: '1d' },
    progress: { phase: 'rtmr', percent: 50 },
    report: null,
    error: null,
  },
  {
    id: 'replay-20260102T000200-bbbbbb',
    state: 'failed',
    startedAt: new Date(NOW + 120_000).toISOString(),
    finishedAt: new Date(NOW + 125_000).toISOString(),
    by: 'operator',
    request: { since: '7d' },
    progress: { phase: 'reading', percent: 0 },
    report: null,
    error: 'replay failed: RM_UNAVAILABLE: the JobHistory server is unreachable',
  },
  {
    id: 'replay-20260102T000000-aaaaaa',
    state: 'done',
    startedAt: new Date(NOW).toISOString(),
    finishedAt: new Date(NOW + 60_000).toISOString(),
    by: 'operator',
    request: { since: '1d', slack: 1.5, policies: ['rtmr', 'dc'] },
    progress: { phase: 'dc', percent: 100 },
    report,
    error: null,
  },
];

async function listen(replays: Replays | undefined): Promise<string> {
  const app = createApiApp({
    service: new LedgerService(ledger, () => NOW),
    metrics: new SidecarMetrics(),
    logger: silentLogger(),
    tokens: [{ name: 'operator', token: 'replays-test-token-0123456789' }],
    protectReads: false,
    maxBodyBytes: 1_048_576,
    now: () => NOW,
    ...(replays ? { replays } : {}),
    extraRoutes: (a) => mountDashboard(a, { pollIntervalMs: POLL_MS }),
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  const history = {
    ...DEFAULT_SYNTHETIC_HISTORY,
    jobs: 60,
    startMs: NOW - 6 * 3_600_000,
    meanGapSeconds: 300,
  };
  const emu = await startEmulator({ history });
  try {
    const run = await replayFromCluster({
      jhs: JobHistoryClient.forHistoryServer({ urls: [emu.jhsUrl], timeoutMs: 10_000 }),
      rm: new HttpResourceManagerClient({ urls: [emu.url], timeoutMs: 10_000 }),
      config: buildConfig({}),
      rules: parseDeadlineRules(['slack=1.5x']),
      policies: ['rtmr', 'dc'],
      fromMs: NOW - 86_400_000,
      toMs: NOW,
    });
    // As GET /api/v1/replays/{id} gives it: replay.json, read back.
    report = JSON.parse(JSON.stringify(run.result.report)) as ReplayReport;
  } finally {
    await emu.close();
  }
  ledger = SqliteLedger.open(':memory:', { clock: () => NOW });
  const list = views();
  base = await listen({
    list: () => list,
    get: (id) => list.find((v) => v.id === id),
    start: () => {
      throw new Error('not in this test');
    },
  });
  bare = await listen(undefined);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  ledger?.close();
});

async function open(url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(url);
  return page;
}

const rows = (page: Page, table: string) =>
  page.$$eval(`#${table} tbody tr`, (trs) =>
    trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent ?? '')),
  );

describe('the replays view of the dashboard', () => {
  it('lists the replays the API answers, newest first, with their state, progress, jobs and fidelity', async () => {
    const page = await open(`${base}/#replays`);
    await page.waitForSelector('#replays tbody tr[data-replay-id]');
    expect(await page.isHidden('#content')).toBe(true);
    expect(await page.getAttribute('#nav-replays', 'class')).toBe('current');
    const shown = await rows(page, 'replays');
    expect(shown.map((r) => [r[0], r[1], r[4], r[5]])).toEqual([
      ['replay-20260102T000300-cccccc', 'running', 'rtmr 50 %', '–'],
      [
        'replay-20260102T000200-bbbbbb',
        'failed',
        'replay failed: RM_UNAVAILABLE: the JobHistory server is unreachable',
        '–',
      ],
      ['replay-20260102T000000-aaaaaa', 'done', 'done', String(report.jobs)],
    ]);
    expect(shown[2]![6]).toBe(`${(report.fidelity.medianAbsError! * 100).toFixed(1)} %`);
    expect(shown[2]![7]).toBe('last 1d · slack 1.5x · rtmr, dc');
    expect(await page.isHidden('#replay-detail')).toBe(true);
    await page.close();
  });

  it("shows a done replay's policy table and plots as its report gives them", async () => {
    const page = await open(`${base}/#replays`);
    await page.click('#replays tbody tr[data-replay-id="replay-20260102T000000-aaaaaa"]');
    await page.waitForSelector('#replay-policies tbody tr[data-policy]');
    expect(page.url()).toMatch(/#replay=replay-20260102T000000-aaaaaa$/);
    expect(await page.textContent('#replay-title')).toBe('Replay replay-20260102T000000-aaaaaa');
    const pct = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(1)} %`);
    const labels = Object.keys(report.policies);
    expect(labels).toEqual(['as-ran', 'rtmr', 'dc']);
    expect(await rows(page, 'replay-policies')).toEqual(
      labels.map((l) => {
        const p = report.policies[l]!;
        return [
          l,
          String(p.admitted),
          String(p.rejected),
          String(p.met),
          String(p.missed),
          String(p.noDeadline),
          pct(p.utilization),
          pct(p.acceptRatio),
          pct(p.successRatio),
        ];
      }),
    );
    // RTMR refuses some of these jobs: the table is not one row repeated.
    expect(report.policies.rtmr!.rejected).toBeGreaterThan(0);
    expect(report.policies['as-ran']!.rejected).toBe(0);
    const f = report.fidelity;
    expect(await page.textContent('#replay-fidelity')).toBe(
      `Fidelity (as-ran vs real, ${f.jobs} jobs): median |error| ${pct(f.medianAbsError)}, p90 ${pct(f.p90AbsError)}, ${pct(f.within10)} of jobs within 10 %`,
    );
    expect(await page.textContent('#replay-meta')).toContain(`${report.jobs} jobs replayed`);
    // The policies plot: met, missed and rejected bars per policy, each titled with its count.
    const bars = await page.$$eval('#chart-replay-policies rect.bar', (rs) =>
      rs.map((r) => [
        r.getAttribute('data-key'),
        r.getAttribute('class'),
        r.querySelector('title')?.textContent,
      ]),
    );
    expect(bars).toEqual(
      labels.flatMap((l) => {
        const p = report.policies[l]!;
        return [
          [`${l}:met`, 'bar met', `${l}: ${p.met} met`],
          [`${l}:missed`, 'bar missed', `${l}: ${p.missed} missed`],
          [`${l}:rejected`, 'bar rejected', `${l}: ${p.rejected} rejected`],
        ];
      }),
    );
    // Taller bar, more jobs: the heights follow the counts.
    const height = (key: string) =>
      page.$eval(`#chart-replay-policies rect[data-key="${key}"]`, (r) => Number(r.getAttribute('height')));
    expect(await height('as-ran:met')).toBeGreaterThan(await height('rtmr:met'));
    // The fidelity plot: one bar per bucket of the report.
    const buckets = await page.$$eval('#chart-replay-fidelity rect.bar', (rs) =>
      rs.map((r) => r.querySelector('title')?.textContent),
    );
    expect(buckets).toEqual(f.buckets.map((b) => `|error| ${b.label}: ${b.jobs} jobs (${pct(b.share)})`));
    expect(await page.textContent('#replay-plot-note')).toBe(
      "Left to right: each policy's met (green), missed (red) and rejected (grey), in the table's order (as-ran, rtmr, dc); the |error| buckets < 2 %, 2-5 %, 5-10 %, 10-20 %, 20-50 %, >= 50 %.",
    );
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, 'dashboard-replays.png'), fullPage: true });
    await page.close();
  });

  it('says a running replay has no figures yet, and why a failed one failed', async () => {
    const page = await open(`${base}/#replay=replay-20260102T000300-cccccc`);
    await page.waitForSelector('#replay-detail:not([hidden])');
    expect(await page.textContent('#replay-meta')).toBe('running: its figures come when it is done');
    expect(await rows(page, 'replay-policies')).toEqual([['not done yet']]);
    await page.click('#replays tbody tr[data-replay-id="replay-20260102T000200-bbbbbb"]');
    await page.waitForSelector('#replay-error:not([hidden])');
    expect(await page.textContent('#replay-error')).toBe(
      'Failed: replay failed: RM_UNAVAILABLE: the JobHistory server is unreachable',
    );
    // Back to the jobs: the panels again, the replays view hidden.
    await page.click('#nav-jobs');
    await page.waitForSelector('#content:not([hidden])');
    expect(await page.isHidden('#replays-view')).toBe(true);
    await page.close();
  });

  it('says so on a service that runs no replays, and the jobs view never reads them', async () => {
    const page = await open(`${bare}/`);
    const reads: string[] = [];
    page.on('request', (r) => reads.push(r.url()));
    await page.waitForFunction(() => Number(document.body.dataset.refreshes ?? 0) >= 2);
    expect(reads.filter((u) => u.includes('/replays'))).toEqual([]);
    await page.click('#nav-replays');
    await page.waitForSelector('#replays tbody td.empty');
    expect(await page.textContent('#replays tbody td.empty')).toBe('/replays: this service runs no replays');
    await page.close();
  });

  it('raised no script error', () => {
    expect(pageErrors).toEqual([]);
  });
});
