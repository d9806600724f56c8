/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createApiApp, type Leadership } from '../../src/api/app';
import type { EstimatesView, JobView, StatsSample } from '../../src/model/job-views';
import { emptyObservedCostsBook, observeClassJob } from '../../src/core/cost-distribution';
import { buildConfig } from '../../src/config/load';
import { ManualClock } from '../../src/emulator/clock';
import { defaultEmulatorConfig, type EmulatorConfig } from '../../src/emulator/config';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server';
import { startSidecar, type RunningSidecar } from '../../src/service/start';
import { SidecarMetrics } from '../../src/metrics';
import { mountDashboard } from '../../src/dashboard';
import { silentLogger } from '../../src/log';
import { DEFAULT_PROFILE_OPTIONS, EMPTY_PROFILE_BOOK, learnProfile } from '../../src/core/profiles';
import { SqliteLedger } from '../../src/store/ledger';
import { LedgerService } from './ledger-service';
import { fillLedger, HOSTILE_NAME, NOW, sample, SEED_JOBS, SEED_PARTITIONS, seedSamples } from './seed';
import { SLEEP_AM } from '../yarn-submission';

/**
 * The dashboard in a real browser (Debian's Chromium through playwright-core) against a real
 * HTTP server: createApiApp + mountDashboard over a service backed by a real SQLite ledger.
 * One browser for the whole file; each screenshot lands in test-output/screenshots/.
 */

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = join(__dirname, '..', '..', 'test-output', 'screenshots');
const TOKEN = 'dashboard-test-token-0123456789';
const POLL_MS = 250;

let browser: Browser;
let ledger: SqliteLedger;
let service: LedgerService;
const servers: Server[] = [];
let base: string;
let protectedBase: string;
let context: BrowserContext;
let page: Page;
const dialogs: string[] = [];
const pageErrors: string[] = [];
/** Console errors (a CSP refusal, a failed load) and answers of 400 or more, by page. */
const consoleErrors: string[] = [];
const failedLoads: string[] = [];

/** Record what a page says went wrong: script errors, console errors, failed loads. */
function watch(p: Page): Page {
  p.on('pageerror', (e) => pageErrors.push(e.message));
  p.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(`${p.url()}: ${m.text()}`);
  });
  p.on('response', (r) => {
    if (r.status() >= 400) failedLoads.push(`${r.status()} ${r.url()}`);
  });
  return p;
}

async function listen(protectReads: boolean, leadership?: Leadership): Promise<string> {
  const app = createApiApp({
    service,
    leadership,
    metrics: new SidecarMetrics(),
    logger: silentLogger(),
    tokens: [{ name: 'operator', token: TOKEN }],
    protectReads,
    maxBodyBytes: 1_048_576,
    now: () => NOW,
    extraRoutes: (a) => mountDashboard(a, { pollIntervalMs: POLL_MS }),
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const clock = { now: NOW };
  ledger = SqliteLedger.open(':memory:', { clock: () => clock.now });
  fillLedger(ledger, clock);
  service = new LedgerService(ledger, () => NOW);
  service.samples = seedSamples();
  service.partitions = SEED_PARTITIONS;
  // Finished jobs' unit costs (s/MB) in two classes: two cpu jobs, judged with the default's
  // figures, and one etl job, with its own; each class's worst cases sit above its own tasks.
  service.estimates = { eta: 1.2, mapCostMax: 0.4, reduceCostMax: 0.3 };
  service.classEstimates = { etl: { eta: 1, mapCostMax: 2.5, reduceCostMax: 1.5 } };
  const keep = { pinned: ['*', 'cpu'], recent: 4 };
  let observed = emptyObservedCostsBook();
  for (const [cls, unit] of [
    ['cpu', { map: [0.05, 0.05, 0.06, 0.07, 0.08, 0.1, 0.12, 0.2], reduce: [0.1, 0.12] }],
    ['etl', { map: [0.6, 0.9, 1.4, 2.2], reduce: [1.1] }],
    ['cpu', { map: [0.05, 0.055, 0.06, 0.3], reduce: [0.09] }],
  ] as const)
    observed = observeClassJob(observed, cls, unit, keep).book;
  service.observed = observed;
  // Two profiles: a wordcount of five runs (the last 1.4 over its prediction) and a pi of one.
  let profiles = EMPTY_PROFILE_BOOK;
  const wc = {
    maps: 2,
    reduces: 1,
    mapMb: 64,
    mapSeconds: 10,
    reduceMb: 128,
    reduceSeconds: 20,
    setupSeconds: 12,
    commitSeconds: 3,
  };
  for (const error of [undefined, 1, 1, 1, 1.4])
    profiles = learnProfile(
      profiles,
      'wordcount@alice/realtime',
      error === undefined ? wc : { ...wc, error },
      DEFAULT_PROFILE_OPTIONS,
      'cpu',
    );
  profiles = learnProfile(
    profiles,
    'pi@bob/realtime',
    {
      maps: 4,
      reduces: 1,
      mapMb: 0,
      mapSeconds: 6,
      reduceMb: 0,
      reduceSeconds: 3,
      setupSeconds: 11,
      commitSeconds: 2,
    },
    DEFAULT_PROFILE_OPTIONS,
    'cpu',
  );
  service.profiles = profiles;
  base = await listen(false);
  protectedBase = await listen(true);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  page = watch(await context.newPage());
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(`${base}/`);
  await waitForIds(
    page,
    SEED_JOBS.map((j) => j.id),
  );
});

afterAll(async () => {
  await browser?.close();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  ledger?.close();
});

async function shownIds(p: Page): Promise<string[]> {
  return p.$$eval('#jobs tbody tr[data-job-id]', (rows) =>
    rows.map((r) => (r as HTMLElement).dataset.jobId!),
  );
}

/** Wait until the table shows exactly `expected` (any order); fail with what it shows instead. */
async function waitForIds(p: Page, expected: string[]): Promise<void> {
  const want = [...expected].sort();
  try {
    await p.waitForFunction(
      (ids) => {
        const got = Array.from(document.querySelectorAll('#jobs tbody tr[data-job-id]'))
          .map((r) => (r as HTMLElement).dataset.jobId!)
          .sort();
        return got.length === ids.length && got.every((v, i) => v === ids[i]);
      },
      want,
      { timeout: 5000, polling: 50 },
    );
  } catch {
    // Let the assertion below say what was on the page.
  }
  expect((await shownIds(p)).sort()).toEqual(want);
}

async function waitForRefreshes(p: Page, atLeast: number): Promise<void> {
  await p.waitForFunction((n) => Number(document.body.dataset.refreshes ?? 0) >= n, atLeast, {
    timeout: 5000,
  });
}

async function refreshes(p: Page): Promise<number> {
  return Number(await p.evaluate(() => document.body.dataset.refreshes ?? 0));
}

async function cellText(p: Page, id: string, column: string): Promise<string> {
  return p.$eval(`#jobs tbody tr[data-job-id="${id}"] td.c-${column}`, (td) => td.textContent ?? '');
}

/** The text the dashboard shows for a cost (three significant digits) or a ratio. */
const costText = (v: number | null) => (v === null ? '–' : String(Number(v.toPrecision(3))));
const ratioText = (v: number | null) => (v === null ? '–' : `${Number(v.toPrecision(3))}×`);

/**
 * The task costs panel against GET /api/v1/estimates, for one workload class (default: the one
 * the API names `mostObserved`, which the panel shows first): the select lists every class with
 * `cls` chosen; per stage, the table row's figures (text and exact value), one histogram bar
 * per bin with the bin's count, and that class's own learned worst case drawn as a mark to the
 * right of every bar at or below it.
 */
async function expectCostsPanel(
  p: Page,
  url: string,
  cls?: string,
): Promise<{ est: EstimatesView; shown: EstimatesView['classes'][number] }> {
  const est = (await (await fetch(`${url}/api/v1/estimates`)).json()) as EstimatesView;
  const name = cls ?? est.mostObserved ?? '*';
  const shown = est.classes.find((c) => c.workloadClass === name)!;
  expect(shown).toBeDefined();
  await p.waitForFunction(
    ([c, n]) =>
      (document.querySelector('#cost-class') as HTMLSelectElement | null)?.value === c &&
      document.querySelector('#costs tr[data-stage="map"] td[data-k="count"]')?.textContent === String(n),
    [name, shown.map.observed.count] as const,
    { timeout: 5000 },
  );
  expect(await p.$$eval('#cost-class option', (o) => o.map((x) => (x as HTMLOptionElement).value))).toEqual(
    est.classes.map((c) => c.workloadClass),
  );
  for (const stage of ['map', 'reduce'] as const) {
    const s = shown[stage];
    expect(await p.getAttribute(`#chart-cost-${stage}`, 'data-workload-class')).toBe(name);
    const cells = await p.$$eval(`#costs tr[data-stage="${stage}"] td`, (tds) =>
      tds.map((td) => [
        (td as HTMLElement).dataset.k,
        td.textContent,
        (td as HTMLElement).dataset.value ?? null,
      ]),
    );
    const o = s.observed;
    const num = (v: number | null) => (v === null ? null : String(v));
    expect(cells).toEqual([
      ['stage', stage, null],
      ['count', String(o.count), String(o.count)],
      ['p50', costText(o.p50), num(o.p50)],
      ['p90', costText(o.p90), num(o.p90)],
      ['p99', costText(o.p99), num(o.p99)],
      ['max', costText(o.max), num(o.max)],
      ['learned', costText(s.learnedWorstCase), String(s.learnedWorstCase)],
      ['ratio', ratioText(s.worstCaseOverP50), num(s.worstCaseOverP50)],
    ]);
    const bars = await p.$$eval(`#chart-cost-${stage} rect.bar.hist`, (r) =>
      r.map((b) => ({
        from: Number(b.getAttribute('data-from')),
        to: Number(b.getAttribute('data-to')),
        count: Number(b.getAttribute('data-count')),
        x: Number(b.getAttribute('x')),
        w: Number(b.getAttribute('width')),
        h: Number(b.getAttribute('height')),
      })),
    );
    expect(bars.map(({ from, to, count }) => ({ from, to, count }))).toEqual(o.histogram);
    const tallest = Math.max(...bars.map((b) => b.h));
    for (const b of bars)
      expect(b.h).toBeCloseTo((tallest * b.count) / Math.max(...bars.map((x) => x.count)), 0);
    if (o.count === 0) {
      // Nothing to draw: the chart says so, and the table still gives the worst case.
      expect(bars).toEqual([]);
      expect(await p.textContent(`#chart-cost-${stage} p.empty`)).toBe(
        `no finished ${stage} task of this class observed yet`,
      );
      continue;
    }
    const mark = await p.$eval(`#chart-cost-${stage} g.mark[data-key="learned"]`, (g) => ({
      value: Number(g.getAttribute('data-value')),
      x: Number(g.querySelector('line')!.getAttribute('x1')),
      label: g.querySelector('text')!.textContent,
    }));
    expect(mark.value).toBe(s.learnedWorstCase);
    expect(mark.label).toBe(`learned worst case ${costText(s.learnedWorstCase)} s/MB`);
    for (const b of bars.filter((x) => x.to <= s.learnedWorstCase))
      expect(mark.x).toBeGreaterThanOrEqual(b.x + b.w - 0.1);
  }
  return { est, shown };
}

async function clearFilters(p: Page): Promise<void> {
  await p.click('#f-reset');
  await waitForIds(
    p,
    SEED_JOBS.map((j) => j.id),
  );
}

const ids = (pred: (j: (typeof SEED_JOBS)[number]) => boolean) => SEED_JOBS.filter(pred).map((j) => j.id);

describe('the dashboard in Chromium', () => {
  it('shows every job in the ledger, with its decision, state and times', async () => {
    expect(await cellText(page, 'dl-001', 'name')).toBe('hourly-report');
    expect(await cellText(page, 'dl-001', 'decision')).toBe('admitted');
    expect(await cellText(page, 'dl-001', 'outcome')).toBe('met');
    expect(await cellText(page, 'dl-001', 'deadline')).toBe('2026-11-22 07:10:00Z');
    expect(await cellText(page, 'dl-001', 'finished')).toBe('2026-11-22 07:05:00Z');
    // Deadline 07:10, finished 07:05: five minutes to spare.
    expect(await cellText(page, 'dl-001', 'slack')).toBe('+5m 0s');
    // Deadline 07:30, finished 07:33: three minutes late.
    expect(await cellText(page, 'dl-002', 'slack')).toBe('-3m 0s');
    expect(await cellText(page, 'dl-002', 'label')).toBe('gpu');
    expect(await cellText(page, 'dl-004', 'decision')).toBe('rejected');
    expect(await page.textContent('#jobs-count')).toBe('8 of 8 jobs shown');
    // Tiles come from the newest stats sample: 6 admitted, 2 rejected, 6 met, 1 missed.
    expect(await page.textContent('#tile-admitted')).toBe('6');
    expect(await page.textContent('#tile-rejected')).toBe('2');
    expect(await page.textContent('#tile-accept')).toBe('75.0%');
    expect(await page.textContent('#tile-success')).toBe('85.7%');
    expect(await page.textContent('#tile-energy')).toBe('5.5 kWh');
    // Failed and killed apps counted apart from met and missed.
    expect(await page.textContent('#tile-failed')).toBe('1');
    expect(await page.textContent('#tile-killed')).toBe('1');
    expect(await page.textContent('#tile-missed')).toBe('1');
    // Energy per job: dl-001's 7.2 MJ is 2 kWh; an admitted job without a kWh estimate says why.
    expect(await cellText(page, 'dl-001', 'energy')).toBe('2 kWh');
    expect(await cellText(page, 'dl-002', 'energy')).toBe('1 kWh');
    expect(await cellText(page, 'dl-003', 'energy')).toBe('–');
    expect(await page.getAttribute('#jobs tbody tr[data-job-id="dl-003"] td.c-energy', 'title')).toMatch(
      /^no kWh estimate: the energy profile has no kWh figure/,
    );
    expect(await cellText(page, 'dl-004', 'energy')).toBe('');
    // dl-003 runs, predicted 8 minutes after its deadline: its predicted finish beside the
    // estimate it was admitted with, in red, its row marked, and the tile counts it.
    expect(await cellText(page, 'dl-003', 'estimate')).toBe('2026-11-22 08:20:00Z');
    expect(await cellText(page, 'dl-003', 'predicted')).toBe('2026-11-22 08:38:00Z');
    // Its slack is against the prediction (the API's slackSeconds, against the estimate, is +10m).
    expect(await cellText(page, 'dl-003', 'slack')).toBe('-8m 0s');
    expect(await page.getAttribute('#jobs tbody tr[data-job-id="dl-003"] td.c-slack', 'class')).toBe(
      'c-slack late',
    );
    expect(
      await page.$eval('#jobs tbody tr[data-job-id="dl-003"] td.c-predicted', (td) => ({
        title: td.getAttribute('title'),
        color: getComputedStyle(td).color,
        edge: getComputedStyle((td.parentElement as HTMLTableRowElement).cells[0]!).boxShadow,
        row: td.parentElement!.className,
      })),
    ).toEqual({
      title: '2026-11-22 08:38:00Z: predicted to miss its deadline by 8m 0s',
      color: 'rgb(192, 57, 43)',
      edge: 'rgb(192, 57, 43) 3px 0px 0px 0px inset',
      row: 'job admitted predicted-miss',
    });
    // Ended, queued within its estimate, rejected (one of them running on the RM): none shown.
    for (const id of ['dl-001', 'dl-005', 'dl-004', 'dl-008'])
      expect(await cellText(page, id, 'predicted')).toBe('');
    expect(await page.textContent('#tile-predicted')).toBe('1');
    expect(await page.$eval('#tile-predicted', (v) => v.parentElement!.className)).toBe('tile alert');
    // One clock, the sidecar's, labelled; the status line carries no time of its own.
    expect(await page.textContent('#clock-label')).toBe('Sidecar time');
    expect(await page.textContent('#clock')).toBe('2026-11-22 08:00:00Z');
    expect(await page.textContent('#status-text')).toBe('live · read every 250 ms');
    // One write pending (dl-003's priority), recorded 2.5 s after its arrival 20 minutes ago.
    expect(await page.textContent('#tile-outbox')).toBe('1 (oldest 19m 58s)');
    // The cluster table: one row per partition.
    expect(
      await page.$$eval('#partitions tbody tr', (rows) =>
        rows.map((r) => Array.from(r.querySelectorAll('td')).map((td) => td.textContent)),
      ),
    ).toEqual([
      ['(default)', '4', '40.0 GiB / 64.0 GiB', '20 / 32', '0 / 0', '62.5%', '3.67 kWh'],
      ['gpu', '1', '12.0 GiB / 16.0 GiB', '6 / 8', '2 / 2', '75.0%', '1.83 kWh'],
    ]);
    expect(await page.textContent('#cluster-meta')).toBe(
      'read from the RM at 2026-11-22 08:00:00Z · RM http://rm1.example:8088, http://rm2.example:8088 · ACTIVE · Hadoop 3.3.6 · admission policy rtmr · 2 admitted jobs queued',
    );
    expect(await page.isHidden('#shadow-badge')).toBe(true);
    await page.screenshot({ path: join(SHOTS, '01-overview.png'), fullPage: true });
  });

  it('renders the hostile job name as text: no element made from it, no dialog', async () => {
    expect(await cellText(page, 'dl-005', 'name')).toBe(HOSTILE_NAME);
    expect(await page.locator('img').count()).toBe(0);
    await page.click('#jobs tbody tr[data-job-id="dl-005"]');
    await page.waitForSelector('#detail:not([hidden])');
    await page.waitForFunction(
      () => document.querySelector('#detail')?.getAttribute('data-job-id') === 'dl-005',
    );
    expect(await page.textContent('#detail-title')).toBe(`${HOSTILE_NAME} — dl-005`);
    expect(await page.locator('img').count()).toBe(0);
    // The row's tooltip in the slack chart carries the name too, as an SVG <title>'s text.
    const slackTitle = await page.$eval('#chart-slack rect[data-key="dl-005"] title', (t) => t.textContent);
    expect(slackTitle).toContain(HOSTILE_NAME);
    await page
      .locator('#jobs tbody tr[data-job-id="dl-005"]')
      .screenshot({ path: join(SHOTS, '02-hostile-name-row.png') });
    expect(dialogs).toEqual([]);
  });

  it('shows a rejected job with its reason and the earliest admissible deadline, and no RM action', async () => {
    await page.click('#jobs tbody tr[data-job-id="dl-004"]');
    await page.waitForFunction(
      () => document.querySelector('#detail')?.getAttribute('data-job-id') === 'dl-004',
    );
    expect(await page.isVisible('#detail-rejection')).toBe(true);
    expect(await page.textContent('#detail-reason')).toBe(
      'estimated finish 08:42:00Z is 12 minutes after the deadline 08:30:00Z (new-job-misses)',
    );
    expect(await page.textContent('#detail-earliest')).toBe(
      '2026-11-22 08:42:00Z (+12m 0s after the requested deadline)',
    );
    expect(await page.$$eval('#detail-actions li', (li) => li.map((l) => l.textContent))).toEqual([
      'none: a rejected job never reaches the RM',
    ]);
    // The timeline marks arrival, estimate, deadline and the earliest admissible deadline.
    expect(
      await page.$$eval('#detail-timeline g.mark', (g) => g.map((m) => m.getAttribute('data-key'))),
    ).toEqual(['arrival', 'estimate', 'deadline', 'earliest']);
    await page.locator('#detail').screenshot({ path: join(SHOTS, '03-rejected-job.png') });

    // A rejection that no deadline would fix says so.
    await page.click('#jobs tbody tr[data-job-id="dl-008"]');
    await page.waitForFunction(
      () => document.querySelector('#detail')?.getAttribute('data-job-id') === 'dl-008',
    );
    expect(await page.textContent('#detail-earliest')).toBe('none now: no deadline would be admitted');
  });

  it('shows an admitted job: deadline vs estimated vs actual finish, slack, decisions and the RM actions in order', async () => {
    await page.click('#jobs tbody tr[data-job-id="dl-001"]');
    await page.waitForFunction(
      () => document.querySelector('#detail')?.getAttribute('data-job-id') === 'dl-001',
    );
    expect(await page.isVisible('#detail-rejection')).toBe(false);
    const fields = await page.$$eval('#detail-fields dt', (dts) =>
      Object.fromEntries(dts.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent])),
    );
    expect(fields).toMatchObject({
      Deadline: '2026-11-22 07:10:00Z',
      'Estimated finish': '2026-11-22 07:00:00Z',
      'Actual finish': '2026-11-22 07:05:00Z',
      Slack: '+5m 0s',
      Outcome: 'met',
      Queue: 'realtime',
      Label: '(default)',
      Application: 'application_1763798400000_0001',
      'Energy (est.)': '2 kWh',
    });
    expect(
      await page.$$eval('#detail-actions li.action', (li) =>
        li.map((l) => [l.getAttribute('data-kind'), l.querySelector('.badge')?.textContent]),
      ),
    ).toEqual([
      ['submit-app', 'done'],
      ['set-priority', 'done'],
    ]);
    expect(await page.$$eval('#detail-decisions li .what', (s) => s.map((x) => x.textContent))).toEqual([
      'admitted by rtmr',
    ]);
    expect(
      await page.$$eval('#detail-timeline g.mark', (g) => g.map((m) => m.getAttribute('data-key'))),
    ).toEqual(['arrival', 'estimate', 'finished', 'deadline']);
    expect(
      await page.$$eval('#detail-timeline rect.band', (r) => r.map((x) => x.getAttribute('class'))),
    ).toEqual(['band spare']);
    await page.locator('#detail').screenshot({ path: join(SHOTS, '04-admitted-job-met.png') });

    // Live updates leave what the operator is doing alone: an expanded request stays open and
    // the focused row keeps the focus across polls.
    await page.click('#detail-actions li.action[data-kind="submit-app"] details summary');
    await page.focus('#jobs tbody tr[data-job-id="dl-001"]');
    const polls = await refreshes(page);
    await waitForRefreshes(page, polls + 2);
    expect(
      await page.$eval(
        '#detail-actions li.action[data-kind="submit-app"] details',
        (d) => (d as HTMLDetailsElement).open,
      ),
    ).toBe(true);
    expect(
      await page.$eval('#detail-actions li.action[data-kind="submit-app"] details pre', (p) => p.textContent),
    ).toBe(JSON.stringify({ queue: 'realtime', tags: ['yss-id:dl-001'] }, null, 2));
    expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.jobId)).toBe(
      'dl-001',
    );

    // A job whose priority write is still pending shows the RM's last error; it is running and
    // predicted to miss: its panel gives the prediction beside the estimate, marks it on the
    // timeline, and shades the stretch past the deadline as late.
    await page.click('#jobs tbody tr[data-job-id="dl-003"]');
    await page.waitForFunction(
      () => document.querySelector('#detail')?.getAttribute('data-job-id') === 'dl-003',
    );
    expect(
      await page.$$eval('#detail-fields dt', (dts) =>
        Object.fromEntries(dts.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent])),
      ),
    ).toMatchObject({
      Deadline: '2026-11-22 08:30:00Z',
      'Estimated finish': '2026-11-22 08:20:00Z',
      'Predicted finish': '2026-11-22 08:38:00Z (predicted to miss its deadline by 8m 0s)',
      Slack: '-8m 0s (predicted)',
    });
    expect(
      await page.$$eval('#detail-timeline g.mark', (g) => g.map((m) => m.getAttribute('data-key'))),
    ).toEqual(['arrival', 'estimate', 'predicted', 'deadline']);
    expect(
      await page.$$eval('#detail-timeline rect.band', (r) => r.map((x) => x.getAttribute('class'))),
    ).toEqual(['band late']);
    await page.locator('#detail').screenshot({ path: join(SHOTS, '17-predicted-miss.png') });
    expect(
      await page.$$eval('#detail-actions li.action', (li) =>
        li.map((l) => [
          l.getAttribute('data-kind'),
          l.querySelector('.badge')?.textContent,
          l.querySelector('.error')?.textContent ?? null,
        ]),
      ),
    ).toEqual([
      ['submit-app', 'done', null],
      ['set-priority', 'pending', 'RM answered 503 (standby)'],
    ]);
    await page.click('#detail-close');
    expect(await page.isHidden('#detail')).toBe(true);
  });

  it("offers the API's job states in the state filter, each ended state with what it means", async () => {
    const options = await page.$$eval('#f-state option', (os) =>
      os.map((o) => [(o as HTMLOptionElement).value, o.textContent]),
    );
    expect(options).toEqual([
      ['', 'all'],
      ['rejected', 'rejected'],
      ['accepted', 'accepted'],
      ['submitted', 'submitted'],
      ['running', 'running'],
      ['finished', 'finished'],
      ['failed', 'failed'],
      ['killed', 'killed'],
      ['lost', 'lost (the RM forgot its app)'],
      ['expired', 'expired (a ticket no app bound)'],
      ['cancelled', 'cancelled (a ticket)'],
    ]);
    expect(await page.$$eval('#jobs thead th', (ths) => ths.map((th) => th.textContent))).toEqual([
      'Id',
      'Name',
      'User',
      'Decision',
      'State',
      'Outcome',
      'Queue',
      'Label',
      'Deadline',
      'Est. finish',
      'Pred. finish',
      'Finished',
      'Slack',
      'Energy',
      'Reason',
    ]);
  });

  it.each<[string, string, string, string[]]>([
    ['decision', 'rejected', '#f-decision', ids((j) => j.decision === 'rejected')],
    ['decision', 'admitted', '#f-decision', ids((j) => j.decision === 'admitted')],
    ['state', 'finished', '#f-state', ids((j) => j.state === 'finished')],
    ['state', 'running', '#f-state', ids((j) => j.state === 'running')],
    ['queue', 'best-effort', '#f-queue', ids((j) => j.queue === 'best-effort')],
    ['label', 'gpu', '#f-label', ids((j) => j.label === 'gpu')],
    ['label', '(default)', '#f-label', ids((j) => j.decision === 'admitted' && j.label === null)],
    ['user', 'bob', '#f-user', ids((j) => j.user === 'bob')],
  ])('filters by %s = %s', async (_what, value, selector, expected) => {
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(SEED_JOBS.length);
    try {
      await page.selectOption(selector, value);
      await waitForIds(page, expected);
      expect(await page.textContent('#jobs-count')).toMatch(
        new RegExp(`^${expected.length} of \\d+ jobs shown$`),
      );
      if (selector === '#f-decision' && value === 'rejected') {
        await page
          .locator('section:has(#jobs-title)')
          .screenshot({ path: join(SHOTS, '05-filter-rejected.png') });
      }
    } finally {
      await clearFilters(page);
    }
  });

  it('combines filters with the search box (name, user, reason)', async () => {
    try {
      await page.fill('#f-search', 'fraud');
      await waitForIds(page, ['dl-002', 'dl-006']);
      await page.fill('#f-search', 'MALLORY');
      await waitForIds(page, ['dl-005']);
      await page.fill('#f-search', 'finish 4 minutes late');
      await waitForIds(page, ['dl-006']);
      await page.fill('#f-search', 'fraud');
      await page.selectOption('#f-decision', 'admitted');
      await waitForIds(page, ['dl-002']);
      await page.fill('#f-search', 'no such job anywhere');
      await waitForIds(page, []);
      expect(await page.textContent('#jobs-count')).toMatch(/^0 of \d+ jobs shown$/);
    } finally {
      await clearFilters(page);
    }
  });

  it('draws the charts as SVG, one point per sample and a gap where a ratio is undefined', async () => {
    const samples = seedSamples();
    const points = (chart: string) => page.$$eval(`${chart} svg circle.point`, (c) => c.length);
    expect(await points('#chart-accept')).toBe(samples.length);
    expect(await points('#chart-success')).toBe(samples.filter((s) => s.successRatio !== null).length);
    expect(await points('#chart-energy')).toBe(samples.length);
    // Utilisation: one series per label partition, each with a point per sample.
    expect(
      await page.$$eval('#chart-utilization svg g.series', (g) =>
        g.map((s) => [s.getAttribute('data-series'), s.querySelectorAll('circle.point').length]),
      ),
    ).toEqual([
      ['(default)', samples.length],
      ['gpu', samples.length],
    ]);
    expect(await page.$$eval('#chart-utilization .legend li', (li) => li.map((l) => l.textContent))).toEqual([
      '(default)',
      'gpu',
    ]);
    // The energy line rises left to right (SVG y grows downwards).
    const ys = await page.$$eval('#chart-energy circle.point', (c) =>
      c.map((p) => Number(p.getAttribute('cy'))),
    );
    for (let i = 1; i < ys.length; i++) expect(ys[i]).toBeLessThan(ys[i - 1]!);
    // Per-job slack: a bar per admitted job, coloured by outcome (a running job predicted to
    // miss apart), in deadline order.
    const admitted = SEED_JOBS.filter((j) => j.decision === 'admitted').sort(
      (a, b) => a.deadlineMs - b.deadlineMs,
    );
    const kind = (j: (typeof SEED_JOBS)[number]) =>
      j.outcome ?? ((j.predictedFinishMs ?? j.estimatedFinishMs!) > j.deadlineMs ? 'risk' : 'open');
    expect(
      await page.$$eval('#chart-slack rect.bar', (r) =>
        r.map((b) => [b.getAttribute('data-key'), b.getAttribute('class')]),
      ),
    ).toEqual(admitted.map((j) => [j.id, `bar ${kind(j)}`]));
    expect(admitted.map(kind)).toEqual(['met', 'missed', 'met', 'risk', 'open']);
    // dl-003's bar runs below the zero line: 8 minutes late as predicted, not 10 early as estimated.
    expect(await page.$eval('#chart-slack rect[data-key="dl-003"] title', (t) => t.textContent)).toBe(
      'ad-optimisation (dl-003): deadline 2026-11-22 08:30:00Z, predicted 2026-11-22 08:38:00Z, slack -8m 0s (predicted to miss)',
    );
    await page.locator('#charts-title').scrollIntoViewIfNeeded();
    await page.locator('section:has(#charts-title)').screenshot({ path: join(SHOTS, '06-charts.png') });
    await page.locator('section:has(#slack-title)').screenshot({ path: join(SHOTS, '07-slack-per-job.png') });
  });

  it('shows the observed task costs beside the learned worst case, per stage, of the class with the most jobs', async () => {
    const { est, shown } = await expectCostsPanel(page, base);
    expect(est).toMatchObject({ scope: 'class', jobs: 3, mostObserved: 'cpu' });
    expect(est.classes.map((c) => [c.workloadClass, c.jobs, c.ownFigures])).toEqual([
      ['*', 0, true],
      ['cpu', 2, false],
      ['etl', 1, true],
    ]);
    // cpu has no figures of its own: its tasks are judged, and drawn, against the default's.
    expect(shown).toMatchObject({
      eta: 1.2,
      map: { learnedWorstCase: 0.4 },
      reduce: { learnedWorstCase: 0.3 },
    });
    expect(shown.map.observed.count).toBe(12);
    expect(await page.textContent('#costs-meta')).toBe(
      "2 finished jobs of class cpu observed · 3 finished jobs in all · quantiles within ±1% · learned eta 1.2 · judged with the default figures (no figures of its own yet) · admission plans every task at its class's learned worst case (seconds per MB)",
    );
    await page.locator('#costs-title').scrollIntoViewIfNeeded();
    await page.locator('section:has(#costs-title)').screenshot({ path: join(SHOTS, '14-task-costs.png') });
  });

  it('shows the profiles of recurring jobs: their fitted tasks, errors and factor, newest first', async () => {
    await page.waitForSelector('#profiles tbody tr[data-profile="pi@bob/realtime"]', { timeout: 5000 });
    const rows = await page.$$eval('#profiles tbody tr', (trs) =>
      trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent)),
    );
    expect(rows).toEqual([
      // The last cell is the error bar: its text is the bar's title.
      [
        'pi@bob/realtime',
        '1',
        '11',
        '6 (last 6)',
        '3 (last 3)',
        '2',
        '–',
        '–',
        '×1.25',
        'no error known for the latest run (it was not judged on its profile)',
      ],
      [
        'wordcount@alice/realtime',
        '5',
        '12',
        '10 (last 10)',
        '20 (last 20)',
        '3',
        '1',
        '1.4 (p95)',
        '×1.4',
        "latest run's error 1.40 (1 is as predicted), factor 1.40",
      ],
    ]);
    // The latest wordcount ran 1.4 times its prediction, at its factor: drawn right of 1, not past the factor.
    const bar = await page.$eval(
      '#profiles tr[data-profile="wordcount@alice/realtime"] td[data-k="lastError"]',
      (td) => ({
        value: (td as HTMLElement).dataset.value,
        cls: td.querySelector('rect')?.getAttribute('class'),
        x: Number(td.querySelector('rect')?.getAttribute('x')),
        width: Number(td.querySelector('rect')?.getAttribute('width')),
        label: td.querySelector('svg')?.getAttribute('aria-label'),
      }),
    );
    expect(bar).toEqual({
      value: '1.4',
      cls: 'bar met',
      x: 60,
      width: 24,
      label: "latest run's error 1.40 (1 is as predicted), factor 1.40",
    });
    expect(await page.$('#profiles tr[data-profile="pi@bob/realtime"] rect')).toBeNull();
    expect(await page.textContent('#profiles-meta')).toBe(
      "2 profiles, most recently learned first · a job with a profile is judged with its figures times its factor; one without, with its class's times the margin",
    );
    await page.locator('#profiles-title').scrollIntoViewIfNeeded();
    await page.locator('section:has(#profiles-title)').screenshot({ path: join(SHOTS, '15-profiles.png') });
  });

  it('switches the task costs panel to another workload class: its own distribution and worst case', async () => {
    try {
      await page.selectOption('#cost-class', 'etl');
      const { shown } = await expectCostsPanel(page, base, 'etl');
      expect(shown).toMatchObject({
        jobs: 1,
        map: { learnedWorstCase: 2.5 },
        reduce: { learnedWorstCase: 1.5 },
      });
      expect(shown.map.observed).toMatchObject({ count: 4, min: 0.6, max: 2.2 });
      expect(await page.textContent('#costs tr[data-stage="map"] td[data-k="learned"]')).toBe('2.5');
      expect(await page.textContent('#costs-meta')).toBe(
        "1 finished job of class etl observed · 3 finished jobs in all · quantiles within ±1% · learned eta 1 · admission plans every task at its class's learned worst case (seconds per MB)",
      );
      // The default holds no task: an empty histogram, the default's worst case still marked.
      await page.selectOption('#cost-class', '*');
      const def = await expectCostsPanel(page, base, '*');
      expect(def.shown.map).toMatchObject({ learnedWorstCase: 0.4, observed: { count: 0, histogram: [] } });
    } finally {
      await page.selectOption('#cost-class', 'cpu');
      await expectCostsPanel(page, base, 'cpu');
    }
  });

  it('shows a job submitted through the API, and a new sample, without reloading', async () => {
    await page.evaluate(() => {
      (window as unknown as { notReloaded: boolean }).notReloaded = true;
    });
    const res = await fetch(`${base}/api/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({
        name: 'late-breaking-report',
        user: 'frank',
        deadline: 3600,
        maps: 10,
        reduces: 2,
        inputBytes: 1e9,
        yarnSubmission: SLEEP_AM,
      }),
    });
    expect(res.status).toBe(201);
    const answer = (await res.json()) as { id: string; decision: string };
    expect(answer).toMatchObject({ id: 'dl-new-001', decision: 'admitted' });
    service.samples = [...seedSamples(), sample(NOW + 10 * 60_000, 7, 2, 6, 1, 0.8, 0.9, 6)];

    await waitForIds(page, [...SEED_JOBS.map((j) => j.id), 'dl-new-001']);
    // 12 tasks x 30 s from 08:00 ends 08:06, against a 09:00 deadline: 54 minutes to spare.
    expect(await cellText(page, 'dl-new-001', 'slack')).toBe('+54m 0s');
    await page.waitForFunction(() => document.querySelectorAll('#chart-accept circle.point').length === 13);
    expect(await page.textContent('#tile-admitted')).toBe('7');
    // The new user is offered as a filter value.
    expect(
      await page.$$eval('#f-user option', (o) => o.map((x) => (x as HTMLOptionElement).value)),
    ).toContain('frank');
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(
      true,
    );
    await page.screenshot({ path: join(SHOTS, '08-live-update.png'), fullPage: true });
  });

  it('says so when the sidecar runs in shadow mode', async () => {
    service.shadow = true;
    try {
      await page.waitForSelector('#shadow-badge:not([hidden])', { timeout: 5000 });
      expect(await page.innerText('#shadow-badge')).toBe(
        'Shadow mode: decisions are computed, recorded and shown here, and nothing is written to the ResourceManager.',
      );
    } finally {
      service.shadow = false;
    }
    await page.waitForSelector('#shadow-badge', { state: 'hidden', timeout: 5000 });
  });

  it('says when the API fails, keeps the last data on screen, and recovers by itself', async () => {
    const cluster = service.cluster.bind(service);
    service.cluster = () => {
      throw new Error('snapshot unavailable');
    };
    try {
      await page.waitForSelector('#error-banner:not([hidden])', { timeout: 5000 });
      expect(await page.textContent('#error-banner')).toBe(
        'Cannot read the API: /cluster: internal error; see the sidecar log. Retrying every 250 ms.',
      );
      expect(await page.textContent('#status-text')).toBe('API unreachable');
      expect((await shownIds(page)).length).toBe(SEED_JOBS.length + 1);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: join(SHOTS, '09-api-error.png') });
    } finally {
      service.cluster = cluster;
    }
    await page.waitForSelector('#error-banner', { state: 'hidden', timeout: 5000 });
    expect(await page.textContent('#status-text')).toBe('live · read every 250 ms');
  });

  it('asks for the token when reads are protected, refuses a wrong one, and sends the right one as a bearer header', async () => {
    const guarded = watch(await context.newPage());
    guarded.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await guarded.goto(`${protectedBase}/`);
    await guarded.waitForSelector('#token-panel:not([hidden])');
    expect(await guarded.isHidden('#content')).toBe(true);
    await guarded.screenshot({ path: join(SHOTS, '10-token-prompt.png') });

    await guarded.fill('#token-input', 'not-the-token');
    await guarded.click('#token-form button[type=submit]');
    await guarded.waitForFunction(() => document.querySelector('#token-error')?.textContent !== '');
    expect(await guarded.textContent('#token-error')).toBe('that token was refused; try again');
    expect(await guarded.isVisible('#token-panel')).toBe(true);

    const seenAuth: string[] = [];
    guarded.on('request', (r) => {
      if (r.url().includes('/api/v1/')) seenAuth.push(r.headers().authorization ?? '(none)');
    });
    await guarded.fill('#token-input', TOKEN);
    await guarded.click('#token-form button[type=submit]');
    await waitForIds(guarded, [...SEED_JOBS.map((j) => j.id), 'dl-new-001']);
    expect(await guarded.isHidden('#token-panel')).toBe(true);
    expect(seenAuth.length).toBeGreaterThan(0);
    expect(new Set(seenAuth)).toEqual(new Set([`Bearer ${TOKEN}`]));
    await guarded.close();
  });

  it('raised no script error, no dialog and no console error on the whole run but the failures it caused', () => {
    expect(pageErrors).toEqual([]);
    expect(dialogs).toEqual([]);
    // Caused on purpose above: the 500 of /cluster and the protected server's 401s. Nothing
    // else failed to load (the favicon included) and the CSP refused nothing.
    const caused = (line: string) =>
      line.startsWith(`500 ${base}/api/v1/cluster`) || line.startsWith(`401 ${protectedBase}/api/v1/`);
    expect(failedLoads.filter((l) => !caused(l))).toEqual([]);
    expect(failedLoads.some(caused)).toBe(true);
    expect(
      consoleErrors.filter(
        (l) => !/Failed to load resource: the server responded with a status of (500|401)/.test(l),
      ),
    ).toEqual([]);
  });
});

/** 32 tasks of 12.8 s estimated cannot end within 5 s: rejected, with a later deadline offered. */
const tooTight = (name: string) => ({
  name,
  user: 'carol',
  deadline: 5,
  maps: 30,
  reduces: 2,
  inputBytes: 30 * 128 * 1024 * 1024,
  yarnSubmission: SLEEP_AM,
});

/**
 * The emulated RM and JobHistory server on a manual clock (10x), and the live sidecar beside it
 * on the emulator's clock (so labelled), polling only when a test says so, with the dashboard.
 */
async function startLive(
  startMs: number,
  seed: number,
  token: string,
  extra: Record<string, unknown> = {},
  emulatorConfig?: EmulatorConfig,
): Promise<{ clock: ManualClock; emulator: RunningEmulator; running: RunningSidecar }> {
  const clock = new ManualClock(startMs);
  const emulator = await startEmulator({
    clock,
    speed: 10,
    seed,
    ...(emulatorConfig ? { config: emulatorConfig } : {}),
  });
  const config = buildConfig({
    rm: { addresses: [emulator.url], jobHistoryAddress: emulator.jhsUrl, timeoutMs: 5000 },
    // At or above the emulated task times (docs/emulator.md), so admitted jobs meet their deadlines.
    admission: { initialEstimates: { eta: 1, mapSecondsPerMb: 0.1, reduceSecondsPerMb: 0.1 } },
    auth: { tokens: [{ name: 'ci', token }] },
    server: { port: 0, host: '127.0.0.1' },
    ledger: { path: ':memory:' },
    ...extra,
  });
  const running = await startSidecar(config, {
    logger: silentLogger(),
    now: () => emulator.time.nowEpochMs(),
    clockKind: 'emulated',
    manualPolling: true,
    extraRoutes: (a) => mountDashboard(a, { pollIntervalMs: POLL_MS }),
  });
  return { clock, emulator, running };
}

/**
 * The same page against the real thing: the emulated RM and JobHistory server, and the live
 * sidecar (src/loop/) with the dashboard mounted, started here. The emulator runs on a manual
 * clock the test moves; the sidecar polls when the test says so. Jobs go in through the public
 * write API and come back out through the page.
 */
describe('the dashboard of the live sidecar beside the emulated RM', () => {
  const MB = 1024 * 1024;
  const LIVE_TOKEN = 'live-dashboard-token-0123456789';
  let clock: ManualClock;
  let emulator: RunningEmulator;
  let running: RunningSidecar;
  let livePage: Page;
  const answers: Array<{
    id: string;
    decision: string;
    reason?: { message: string; kind: string };
    earliestAdmissibleDeadline?: string;
  }> = [];

  async function cycle(): Promise<void> {
    await running.sidecar.runOnce();
    await running.sidecar.runOnceSettled();
  }

  beforeAll(async () => {
    ({ clock, emulator, running } = await startLive(Date.UTC(2026, 10, 22, 8), 7, LIVE_TOKEN));
    await cycle();
    const submit = async (body: Record<string, unknown>) => {
      const res = await fetch(`${running.url}/api/v1/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${LIVE_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      answers.push((await res.json()) as (typeof answers)[number]);
    };
    await submit({
      name: 'hourly-report',
      user: 'alice',
      deadline: 600,
      maps: 8,
      reduces: 1,
      inputBytes: 8 * 128 * MB,
      yarnSubmission: SLEEP_AM,
    });
    await submit({
      name: HOSTILE_NAME,
      user: 'mallory',
      deadline: 900,
      maps: 4,
      reduces: 1,
      inputBytes: 4 * 128 * MB,
      yarnSubmission: SLEEP_AM,
    });
    await submit({
      name: 'fraud-scoring',
      user: 'bob',
      deadline: 700,
      maps: 6,
      reduces: 1,
      inputBytes: 6 * 128 * MB,
      yarnSubmission: SLEEP_AM,
      jobType: 'gpu',
    });
    await submit(tooTight('too-tight'));
    await running.sidecar.runOnceSettled();
    // Ten real seconds at 10x is 100 simulated seconds a step: the jobs run and end.
    for (let i = 0; i < 8; i++) {
      clock.advance(10_000);
      await cycle();
    }
    const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    livePage = watch(await ctx.newPage());
    livePage.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await livePage.goto(`${running.url}/`);
  });

  afterAll(async () => {
    await livePage?.context().close();
    await running?.close();
    await emulator?.close();
  });

  it('shows every submitted job with the decision the API answered, and the outcomes', async () => {
    expect(answers.map((a) => a.decision)).toEqual(['admitted', 'admitted', 'admitted', 'rejected']);
    await waitForIds(
      livePage,
      answers.map((a) => a.id),
    );
    const api = (await (await fetch(`${running.url}/api/v1/jobs`)).json()) as { jobs: JobView[] };
    for (const job of api.jobs) {
      expect(await cellText(livePage, job.id, 'name')).toBe(job.name);
      expect(await cellText(livePage, job.id, 'decision')).toBe(job.decision);
      expect(await cellText(livePage, job.id, 'state')).toBe(job.state);
      expect(await cellText(livePage, job.id, 'outcome')).toBe(job.outcome ?? '');
    }
    // Every admitted job ran on the emulated cluster and met its deadline.
    expect(api.jobs.filter((j) => j.decision === 'admitted').map((j) => [j.state, j.outcome])).toEqual([
      ['finished', 'met'],
      ['finished', 'met'],
      ['finished', 'met'],
    ]);
    expect(await livePage.locator('img').count()).toBe(0);
    expect(await cellText(livePage, answers[1]!.id, 'name')).toBe(HOSTILE_NAME);
    await livePage.screenshot({ path: join(SHOTS, '11-live-sidecar.png'), fullPage: true });
  });

  it("shows the rejected job's reason and earliest admissible deadline exactly as the API gave them", async () => {
    const rejected = answers[3]!;
    await livePage.click(`#jobs tbody tr[data-job-id="${rejected.id}"]`);
    await livePage.waitForFunction(
      (id) => document.querySelector('#detail')?.getAttribute('data-job-id') === id,
      rejected.id,
    );
    expect(await livePage.textContent('#detail-reason')).toBe(
      `${rejected.reason!.message} (${rejected.reason!.kind})`,
    );
    expect(await livePage.textContent('#detail-earliest')).toMatch(
      new RegExp(`^${rejected.earliestAdmissibleDeadline!.replace('T', ' ').replace(/\.\d+Z$/, 'Z')} \\(\\+`),
    );
    await livePage.locator('#detail').screenshot({ path: join(SHOTS, '12-live-rejected-job.png') });
  });

  it("filters the live jobs and draws the sidecar's own samples", async () => {
    await livePage.selectOption('#f-decision', 'rejected');
    await waitForIds(livePage, [answers[3]!.id]);
    await livePage.click('#f-reset');
    await livePage.selectOption('#f-label', 'gpu');
    await waitForIds(livePage, [answers[2]!.id]);
    await livePage.click('#f-reset');
    await waitForIds(
      livePage,
      answers.map((a) => a.id),
    );
    const { samples } = (await (await fetch(`${running.url}/api/v1/stats`)).json()) as {
      samples: StatsSample[];
    };
    expect(samples.length).toBeGreaterThan(1);
    await livePage.waitForFunction(
      (n) => document.querySelectorAll('#chart-accept circle.point').length === n,
      samples.filter((x) => x.acceptRatio !== null).length,
    );
    expect(
      await livePage.$$eval('#chart-utilization g.series', (g) =>
        g.map((x) => x.getAttribute('data-series')),
      ),
    ).toEqual(['(default)', 'gpu']);
    expect(
      await livePage.$$eval('#chart-slack rect.bar', (r) => r.map((b) => b.getAttribute('class'))),
    ).toEqual(['bar met', 'bar met', 'bar met']);
    expect(dialogs).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('shows the task costs the sidecar learned from the emulated JobHistory server', async () => {
    const { est, shown } = await expectCostsPanel(livePage, running.url);
    // Three admitted jobs finished, of their job types (no workloadClass): two cpu, one gpu;
    // 18 maps and 3 reduces between them.
    expect(est.jobs).toBe(3);
    expect(est.mostObserved).toBe('cpu');
    expect(shown.jobs).toBe(2);
    const sum = (f: (c: EstimatesView['classes'][number]) => number) =>
      est.classes.reduce((n, c) => n + f(c), 0);
    expect(sum((c) => c.map.observed.count)).toBe(18);
    expect(sum((c) => c.reduce.observed.count)).toBe(3);
    for (const c of est.classes.filter((x) => x.jobs > 0)) {
      expect(c.map.learnedWorstCase).toBeGreaterThanOrEqual(c.map.observed.max!);
      expect(c.reduce.learnedWorstCase).toBeGreaterThanOrEqual(c.reduce.observed.max!);
    }
    // The gpu job's own distribution, against gpu's own worst case.
    await livePage.selectOption('#cost-class', 'gpu');
    const gpu = await expectCostsPanel(livePage, running.url, 'gpu');
    expect(gpu.shown).toMatchObject({ jobs: 1, map: { observed: { count: 6 } } });
    await livePage.selectOption('#cost-class', 'cpu');
    await expectCostsPanel(livePage, running.url, 'cpu');
    await livePage
      .locator('section:has(#costs-title)')
      .screenshot({ path: join(SHOTS, '13-live-task-costs.png') });
  });
});

/**
 * Tickets on the page, and the page's fit, against the live sidecar beside the emulated RM: four
 * tickets taken through POST /api/v1/jobs without a launch context, one left to expire, one bound
 * by an app submitted to the emulated RM with the ticket's queue and tags (as hadoop jar would),
 * one cancelled with DELETE /api/v1/jobs/{id}, one still waiting. The sidecar runs on the
 * emulated RM's clock, so the page labels its clock emulated. Screenshots at 1,280 and 1,920 px.
 */
describe('tickets on the dashboard of the live sidecar, and the page at 1,280 and 1,920 px', () => {
  const MB = 1024 * 1024;
  const TTL_SECONDS = 60;
  const LIVE_TOKEN = 'ticket-dashboard-token-0123456789';
  let clock: ManualClock;
  let emulator: RunningEmulator;
  let running: RunningSidecar;
  let tp: Page;
  const tickets: Record<'expired' | 'bound' | 'cancelled' | 'waiting', string> = {
    expired: '',
    bound: '',
    cancelled: '',
    waiting: '',
  };
  let boundApp = '';
  let consoleFrom = 0;
  let failedFrom = 0;

  interface TicketAnswer {
    id: string;
    decision: string;
    ticket: {
      id: string;
      status: string;
      queue: string;
      priority: number;
      tags: string[];
      expiresAt: string;
    };
  }

  async function cycle(): Promise<void> {
    await running.sidecar.runOnce();
    await running.sidecar.runOnceSettled();
  }

  async function call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: unknown }> {
    const res = await fetch(`${running.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${LIVE_TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: await res.json() };
  }

  async function ticket(name: string, extra: Record<string, unknown> = {}): Promise<TicketAnswer> {
    const { status, json } = await call('POST', '/api/v1/jobs', {
      name,
      user: 'alice',
      deadline: 3600,
      maps: 4,
      reduces: 1,
      inputBytes: 4 * 128 * MB,
      ...extra,
    });
    expect(status).toBe(201);
    return json as TicketAnswer;
  }

  /** What `hadoop jar` does with the ticket's options: an app in its queue, with its tags. */
  async function submitApp(t: TicketAnswer['ticket']): Promise<string> {
    const rm = async (path: string, body?: unknown) => {
      const res = await fetch(`${emulator.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect(res.status).toBeLessThan(300);
      const text = await res.text();
      return (text ? JSON.parse(text) : {}) as Record<string, unknown>;
    };
    const id = String((await rm('/ws/v1/cluster/apps/new-application'))['application-id']);
    await rm('/ws/v1/cluster/apps', {
      'application-id': id,
      'application-name': 'wordcount',
      'application-type': 'MAPREDUCE',
      queue: t.queue,
      priority: t.priority,
      'application-tags': { tag: t.tags },
      ...SLEEP_AM,
      resource: { memory: 1024, vCores: 1 },
    });
    return id;
  }

  async function ticketRows(): Promise<Array<Record<string, string>>> {
    return tp.$$eval('#tickets tbody tr.ticket', (rows) =>
      rows.map((r) =>
        Object.fromEntries(
          Array.from(r.querySelectorAll('td')).map((td) => [
            td.className.replace(/^c-/, ''),
            td.textContent ?? '',
          ]),
        ),
      ),
    );
  }

  beforeAll(async () => {
    ({ clock, emulator, running } = await startLive(Date.UTC(2026, 10, 22, 9), 11, LIVE_TOKEN, {
      tickets: { ttlSeconds: TTL_SECONDS },
    }));
    await cycle();
    // A ticket no app ever binds: 100 emulated seconds later it is past its 60 s.
    tickets.expired = (await ticket('never-started')).id;
    clock.advance(10_000);
    await cycle();
    // A job submitted with its launch context beside the tickets, and one refused.
    expect(
      (
        await call('POST', '/api/v1/jobs', {
          name: 'hourly-report',
          user: 'bob',
          deadline: 900,
          maps: 6,
          reduces: 1,
          inputBytes: 6 * 128 * MB,
          yarnSubmission: SLEEP_AM,
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await call(
          'POST',
          '/api/v1/jobs',
          tooTight('too-tight-with-a-long-name-that-the-table-has-to-wrap-somewhere-sensible'),
        )
      ).status,
    ).toBe(200);
    const toBind = await ticket('wordcount-via-run', { jobType: 'gpu' });
    tickets.bound = toBind.id;
    tickets.cancelled = (await ticket('cancelled-before-start')).id;
    tickets.waiting = (await ticket('still-to-start', { user: 'dave' })).id;
    boundApp = await submitApp(toBind.ticket);
    expect((await call('DELETE', `/api/v1/jobs/${tickets.cancelled}`)).status).toBe(200);
    await cycle();
    clock.advance(1000);
    await cycle();
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    consoleFrom = consoleErrors.length;
    failedFrom = failedLoads.length;
    tp = watch(await ctx.newPage());
    await tp.goto(`${running.url}/`);
    await tp.waitForFunction(() => document.querySelectorAll('#tickets tbody tr.ticket').length === 4, null, {
      timeout: 5000,
    });
  });

  afterAll(async () => {
    await tp?.context().close();
    await running?.close();
    await emulator?.close();
  });

  it('shows each ticket with its state, expiry, queue, priority and label, as the API answers', async () => {
    const api = (await (await fetch(`${running.url}/api/v1/jobs`)).json()) as { jobs: JobView[] };
    const byId = new Map(api.jobs.map((j) => [j.id, j]));
    const status = (id: string) => (byId.get(id)!.ticket as { status: string }).status;
    expect([tickets.expired, tickets.bound, tickets.cancelled, tickets.waiting].map(status)).toEqual([
      'expired',
      'bound',
      'cancelled',
      'waiting',
    ]);
    const rows = await ticketRows();
    // Newest first, as the API lists the jobs.
    expect(rows.map((r) => [r.id, r.status])).toEqual([
      [tickets.waiting, 'waiting'],
      [tickets.cancelled, 'cancelled'],
      [tickets.bound, 'bound'],
      [tickets.expired, 'expired'],
    ]);
    for (const r of rows) {
      const t = byId.get(r.id!)!.ticket as { expiresAt: string; queue: string; priority: number };
      expect(r.expires).toBe(t.expiresAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z'));
      expect(r.queue).toBe(t.queue);
      expect(r.priority).toBe(String(t.priority));
    }
    expect(rows.find((r) => r.id === tickets.bound)!.label).toBe('gpu');
    expect(rows.find((r) => r.id === tickets.waiting)!.label).toBe('(default)');
    expect(rows.find((r) => r.id === tickets.waiting)!.app).toBe('none yet');
    expect(await tp.textContent('#tickets-count')).toBe(
      '4 tickets: 1 waiting, 1 bound, 1 expired, 1 cancelled',
    );
    // The jobs table shows the tickets' jobs in their states too.
    expect(await cellText(tp, tickets.expired, 'state')).toBe('expired');
    expect(await cellText(tp, tickets.cancelled, 'state')).toBe('cancelled');
    expect(await cellText(tp, tickets.waiting, 'state')).toBe('accepted');
  });

  it("links a bound ticket to its app's page on the RM, and every ticket to its job", async () => {
    const app = await tp.$eval(`#tickets tr[data-job-id="${tickets.bound}"] td.c-app a`, (a) => ({
      text: a.textContent,
      href: (a as HTMLAnchorElement).href,
      target: a.getAttribute('target'),
      rel: a.getAttribute('rel'),
    }));
    expect(app).toEqual({
      text: boundApp,
      href: `${emulator.url}/cluster/app/${boundApp}`,
      target: '_blank',
      rel: 'noopener noreferrer',
    });
    const job = (await (await fetch(`${running.url}/api/v1/jobs/${tickets.bound}`)).json()) as JobView;
    expect(job.appId).toBe(boundApp);
    await tp.click(`#tickets tr[data-job-id="${tickets.bound}"] td.c-id a`);
    await tp.waitForFunction(
      (id) => document.querySelector('#detail')?.getAttribute('data-job-id') === id,
      tickets.bound,
    );
    const fields = await tp.$$eval('#detail-fields dt', (dts) =>
      Object.fromEntries(dts.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent])),
    );
    expect(fields).toMatchObject({
      Ticket: 'bound',
      Application: boundApp,
      'Ticket label expression': 'gpu',
    });
    await tp.click('#detail-close');
  });

  it('labels its one clock as emulated time, read from the sidecar', async () => {
    const cluster = (await (await fetch(`${running.url}/api/v1/cluster`)).json()) as {
      clock: { now: string; kind: string };
    };
    expect(cluster.clock.kind).toBe('emulated');
    expect(await tp.textContent('#clock-label')).toBe('Emulated time');
    expect(await tp.getAttribute('#clock-box', 'class')).toBe('clock emulated');
    // The emulated clock stands still between the test's steps: the page shows its time.
    expect(await tp.textContent('#clock')).toBe(cluster.clock.now.replace('T', ' ').replace(/\.\d+Z$/, 'Z'));
    expect(await tp.textContent('#status-text')).toBe('live · read every 250 ms');
  });

  it('shows per-job energy where the energy profile gives kWh, and per-partition energy', async () => {
    const api = (await (await fetch(`${running.url}/api/v1/jobs`)).json()) as { jobs: JobView[] };
    const gpu = api.jobs.find((j) => j.id === tickets.bound)!;
    // The gpu job is priced as md-simulation in kWh; cpu jobs (loadgen) have relative figures only.
    expect(gpu.energyJoules).toBeGreaterThan(0);
    expect(await cellText(tp, tickets.bound, 'energy')).toMatch(/^\d+(\.\d+)? kWh$/);
    expect(await cellText(tp, tickets.waiting, 'energy')).toBe('–');
    const { samples } = (await (await fetch(`${running.url}/api/v1/stats`)).json()) as {
      samples: StatsSample[];
    };
    const last = samples[samples.length - 1]!;
    expect(last.energyKWhByLabel!.gpu).toBeCloseTo(
      api.jobs
        .filter((j) => j.label === 'gpu' && j.energyJoules !== null)
        .reduce((a, j) => a + j.energyJoules!, 0) / 3.6e6,
      9,
    );
    expect(
      await tp.$eval('#partitions tbody tr[data-label="gpu"] td.energy', (td) => td.textContent),
    ).toMatch(/ kWh$/);
    expect([last.failed, last.killed]).toEqual([0, 0]);
    expect(await tp.textContent('#tile-failed')).toBe('0');
    expect(await tp.textContent('#tile-killed')).toBe('0');
    // No job runs late here: the live sample counts none predicted to miss, and the tile says so.
    expect(last.predictedToMiss).toBe(0);
    expect(await tp.textContent('#tile-predicted')).toBe('0');
    expect(await tp.$eval('#tile-predicted', (v) => v.parentElement!.className)).toBe('tile');
  });

  it.each([1280, 1920])(
    'fits a %i px window: no sideways scroll, every table within its panel',
    async (width) => {
      await tp.setViewportSize({ width, height: 900 });
      await waitForRefreshes(tp, (await refreshes(tp)) + 1);
      const fit = await tp.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth: window.innerWidth,
        tables: Array.from(document.querySelectorAll('table')).map((t) => {
          const box = t.parentElement!;
          return {
            id: t.id,
            table: Math.ceil(t.getBoundingClientRect().right),
            box: box.getBoundingClientRect().right,
          };
        }),
        // Cells whose whole value matters: ids, times, slack, energy, ticket states and apps.
        clipped: Array.from(
          document.querySelectorAll(
            '#jobs td:is(.c-id, .c-decision, .c-state, .c-outcome, .c-slack, .c-energy), #tickets td:is(.c-id, .c-status, .c-expires, .c-queue, .c-priority, .c-app)',
          ),
        )
          .filter((td) => (td as HTMLElement).scrollWidth > (td as HTMLElement).clientWidth)
          .map((td) => `${td.className}: ${td.textContent}`),
        reason: (() => {
          const td = document.querySelector('#jobs tbody td.c-reason:not(:empty)');
          return td ? td.getBoundingClientRect().right : null;
        })(),
      }));
      expect(fit.scrollWidth).toBeLessThanOrEqual(fit.innerWidth);
      expect(fit.clipped).toEqual([]);
      for (const t of fit.tables) expect(t.table).toBeLessThanOrEqual(Math.ceil(t.box));
      // The last column, the rejection's reason, is on screen.
      expect(fit.reason).not.toBeNull();
      expect(fit.reason!).toBeLessThanOrEqual(fit.innerWidth);
      await tp.evaluate(() => window.scrollTo(0, 0));
      await tp.screenshot({ path: join(SHOTS, `dashboard-${width}.png`), fullPage: true });
    },
  );

  it('serves the favicon, and raised no console error, failed load or script error', async () => {
    const ico = await fetch(`${running.url}/favicon.ico`);
    expect(ico.status).toBe(200);
    expect(ico.headers.get('content-type')).toBe('image/x-icon');
    expect(consoleErrors.slice(consoleFrom)).toEqual([]);
    expect(failedLoads.slice(failedFrom)).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

describe('the dashboard of a follower, one of a pair of sidecars', () => {
  const LEADER = 'http://sidecar-a.example:8080';

  it('shows the jobs it reads from the shared ledger and names the leader, where the live state is', async () => {
    const url = await listen(false, {
      isLeader: () => false,
      leaderUrl: () => LEADER,
      view: () => ({ role: 'follower', id: 'sidecar-b', leader: { id: 'sidecar-a', url: LEADER, epoch: 3 } }),
    });
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const fp = await ctx.newPage();
    const errors: string[] = [];
    fp.on('pageerror', (e) => errors.push(e.message));
    const refused: string[] = [];
    fp.on('response', (r) => {
      if (r.status() >= 400) refused.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    try {
      await fp.goto(`${url}/`);
      // Every job of the ledger, the seed's and those earlier tests added.
      await waitForIds(
        fp,
        ledger.listJobs({ limit: 1000 }).jobs.map((j) => j.id),
      );
      await fp.waitForSelector('#follower-banner:not([hidden])');
      expect(await fp.textContent('#follower-banner')).toBe(
        `This sidecar follows: the jobs below are read from the shared ledger; the cluster and task costs are live on the leader, ${LEADER}.`,
      );
      expect(await fp.getAttribute('#follower-banner a', 'href')).toBe(LEADER);
      expect(await fp.textContent('#partitions tbody')).toBe('read by the leader, not by this follower');
      // The tiles and the jobs come from the ledger, as on the first page of this file; no error banner.
      expect(await fp.textContent('#tile-admitted')).toBe(await page.textContent('#tile-admitted'));
      expect(await fp.textContent('#tile-admitted')).toMatch(/^\d+$/);
      expect(await fp.isHidden('#error-banner')).toBe(true);
      expect(new Set(refused)).toEqual(new Set(['503 /api/v1/cluster', '503 /api/v1/estimates']));
      expect(errors).toEqual([]);
      await fp.screenshot({ path: join(SHOTS, '15-follower.png'), fullPage: false });
    } finally {
      await ctx.close();
    }
  });
});

/**
 * A ticket whose client ran two apps one after the other (as Hadoop's grep runs a search, then a
 * sort), against the live sidecar beside the emulated RM: the client reports itself running,
 * its first app runs and ends, its second lands in the default queue and is moved. The job's
 * panel lists both apps; the tickets table counts the second beside the first.
 */
describe('a ticket with two apps on the dashboard of the live sidecar', () => {
  const MB = 1024 * 1024;
  const LIVE_TOKEN = 'multiapp-dashboard-token-0123456789';
  let clock: ManualClock;
  let emulator: RunningEmulator;
  let running: RunningSidecar;
  let mp: Page;
  let jobId = '';
  const apps: string[] = [];

  async function cycle(): Promise<void> {
    await running.sidecar.runOnce();
    await running.sidecar.runOnceSettled();
  }

  async function call(method: string, url: string, body?: unknown): Promise<Record<string, unknown>> {
    const res = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${LIVE_TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(res.status).toBeLessThan(300);
    const text = await res.text();
    return (text ? JSON.parse(text) : {}) as Record<string, unknown>;
  }

  /** An app submitted to the emulated RM with the ticket's tags and priority, in `queue`. */
  async function submitApp(t: { tags: string[]; priority: number }, queue: string): Promise<string> {
    const id = String(
      (await call('POST', `${emulator.url}/ws/v1/cluster/apps/new-application`))['application-id'],
    );
    await call('POST', `${emulator.url}/ws/v1/cluster/apps`, {
      'application-id': id,
      'application-name': 'grep',
      'application-type': 'MAPREDUCE',
      queue,
      priority: t.priority,
      'application-tags': { tag: t.tags },
      ...SLEEP_AM,
      resource: { memory: 1024, vCores: 1 },
    });
    return id;
  }

  /** Moves the emulated clock on, a cycle per step, until `app` has ended. */
  async function untilEnded(app: string): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const { app: report } = (await call('GET', `${emulator.url}/ws/v1/cluster/apps/${app}`)) as {
        app: { state: string };
      };
      if (['FINISHED', 'FAILED', 'KILLED'].includes(report.state)) return;
      clock.advance(1000);
      await cycle();
    }
    throw new Error(`${app} did not end`);
  }

  beforeAll(async () => {
    ({ clock, emulator, running } = await startLive(Date.UTC(2026, 10, 22, 10), 13, LIVE_TOKEN));
    await cycle();
    const answer = (await call('POST', `${running.url}/api/v1/jobs`, {
      name: 'grep-two-stages',
      user: 'erin',
      deadline: 3600,
      maps: 2,
      reduces: 1,
      inputBytes: 2 * 128 * MB,
    })) as { id: string; ticket: { tags: string[]; priority: number } };
    jobId = answer.id;
    await call('PUT', `${running.url}/api/v1/jobs/${jobId}/client`, { state: 'running' });
    apps.push(await submitApp(answer.ticket, 'realtime'));
    await cycle();
    await untilEnded(apps[0]!);
    await cycle();
    apps.push(await submitApp(answer.ticket, 'default'));
    await cycle();
    await cycle();
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    mp = watch(await ctx.newPage());
    await mp.goto(`${running.url}/#job=${encodeURIComponent(jobId)}`);
    await mp.waitForFunction(
      (id) => document.querySelector('#detail')?.getAttribute('data-job-id') === id,
      jobId,
    );
  });

  afterAll(async () => {
    await mp?.context().close();
    await running?.close();
    await emulator?.close();
  });

  async function appRows(): Promise<string[][]> {
    return mp.$$eval('#detail-apps tbody tr', (rows) =>
      rows.map((r) => Array.from(r.querySelectorAll('td')).map((td) => td.textContent ?? '')),
    );
  }

  it("lists both apps in the job's panel, each in the ticket's queue, as the API answers", async () => {
    const job = (await (await fetch(`${running.url}/api/v1/jobs/${jobId}`)).json()) as JobView;
    expect(job.appId).toBe(apps[0]);
    expect(job.apps.map((a) => a.id)).toEqual(apps);
    await mp.waitForFunction(() => document.querySelectorAll('#detail-apps tbody tr').length === 2);
    const rows = await appRows();
    expect(rows.map((r) => [r[0], r[2]])).toEqual([
      [apps[0], 'root.realtime'],
      [apps[1], 'root.realtime'],
    ]);
    expect(rows.map((r) => r[1])).toEqual(job.apps.map((a) => a.state));
    expect(rows[0]![1]).toBe('FINISHED');
    expect(rows[0]![4]).toBe(job.apps[0]!.finishedAt!.replace('T', ' ').replace(/\.\d+Z$/, 'Z'));
    expect(await mp.textContent('#detail-apps-note')).toBe(
      '2 apps under one ticket; the job is judged on the last',
    );
    const fields = await mp.$$eval('#detail-fields dt', (dts) =>
      Object.fromEntries(dts.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent])),
    );
    expect(fields).toMatchObject({ Application: apps[0], Ticket: 'bound' });
    expect(fields.Client).toMatch(/^running \(reported 2026-11-22 10:00:\d\dZ\)$/);
    // The tickets table: the first app, and the second counted beside it.
    expect(await mp.textContent(`#tickets tr[data-job-id="${jobId}"] td.c-app`)).toBe(`${apps[0]} +1 app`);
    await mp.locator('#detail').screenshot({ path: join(SHOTS, '16-two-apps.png') });
  });

  it('says the job is between apps once its second app ended, then shows it judged after the client exits', async () => {
    await untilEnded(apps[1]!);
    await cycle();
    await mp.waitForFunction(() =>
      document.querySelector('#detail-apps-note')?.textContent?.startsWith('between apps'),
    );
    expect(await cellText(mp, jobId, 'state')).toBe('running');
    await call('PUT', `${running.url}/api/v1/jobs/${jobId}/client`, { state: 'exited', exitCode: 0 });
    await cycle();
    await mp.waitForFunction((id) => {
      const td = document.querySelector(`#jobs tbody tr[data-job-id="${id}"] td.c-state`);
      return td?.textContent === 'finished';
    }, jobId);
    const job = (await (await fetch(`${running.url}/api/v1/jobs/${jobId}`)).json()) as JobView;
    expect(job).toMatchObject({ state: 'finished', outcome: 'met', finishedAt: job.apps[1]!.finishedAt });
    expect(await mp.textContent('#detail-apps-note')).toBe(
      '2 apps under one ticket; the job is judged on the last',
    );
    expect(pageErrors).toEqual([]);
  });
});

/**
 * A miss seen coming, against the live sidecar beside the emulated RM: the emulated cluster's
 * reduces take 20 s per MB shuffled (about 15 minutes for this job's), far past the sidecar's
 * estimates, which know nothing of it. The job is admitted with a deadline 5 minutes out; the
 * sidecar polls every 10 simulated seconds. Once the job has run past its estimate, and then past
 * each prediction, its lane is rebuilt from its AM's tasks, until the prediction lands after the
 * deadline while the job still runs and the deadline is still ahead: the page then marks it.
 */
describe('a running job predicted to miss on the dashboard of the live sidecar', () => {
  const MB = 1024 * 1024;
  const LIVE_TOKEN = 'predicted-dashboard-token-0123456789';
  let clock: ManualClock;
  let emulator: RunningEmulator;
  let running: RunningSidecar;
  let pp: Page;
  let answer: { id: string; decision: string; estimatedFinish: string; deadline: string };
  /** The job as the API answered it when its miss was first predicted, and the time then. */
  let seen: JobView;
  let seenAt = 0;

  async function cycle(): Promise<void> {
    await running.sidecar.runOnce();
    await running.sidecar.runOnceSettled();
  }

  const jobOf = async (): Promise<JobView> =>
    (await (await fetch(`${running.url}/api/v1/jobs/${answer.id}`)).json()) as JobView;

  beforeAll(async () => {
    const config = defaultEmulatorConfig();
    for (const costs of Object.values(config.cluster.costs)) costs.reduceSecondsPerMB = 20;
    // The class's figures as they are (no profile margin): the reduces are made slow against them.
    ({ clock, emulator, running } = await startLive(
      Date.UTC(2026, 10, 22, 12),
      11,
      LIVE_TOKEN,
      {
        admission: {
          initialEstimates: { eta: 1, mapSecondsPerMb: 0.1, reduceSecondsPerMb: 0.1 },
          profiles: { enabled: false },
        },
      },
      config,
    ));
    await cycle();
    const res = await fetch(`${running.url}/api/v1/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${LIVE_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'slow-shuffle',
        user: 'carol',
        deadline: 300,
        maps: 4,
        reduces: 1,
        inputBytes: 4 * 128 * MB,
        yarnSubmission: SLEEP_AM,
      }),
    });
    expect(res.status).toBe(201);
    answer = (await res.json()) as typeof answer;
    await running.sidecar.runOnceSettled();
    // 10 simulated seconds a step (1 real second at 10x), until the miss is predicted.
    for (let i = 0; i < 60; i++) {
      clock.advance(1_000);
      await cycle();
      const job = await jobOf();
      if (job.predictedMiss) {
        seen = job;
        seenAt = emulator.time.nowEpochMs();
        break;
      }
    }
    pp = watch(await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage());
    await pp.goto(`${running.url}/`);
    await waitForIds(pp, [answer.id]);
  });

  afterAll(async () => {
    await pp?.context().close();
    await running?.close();
    await emulator?.close();
  });

  it('predicts the miss while the job runs and before its deadline, its estimate unchanged', async () => {
    expect(answer.decision).toBe('admitted');
    expect(seen).toBeDefined();
    expect(seen).toMatchObject({
      state: 'running',
      estimatedFinish: answer.estimatedFinish,
      predictedMiss: true,
    });
    expect(Date.parse(answer.estimatedFinish)).toBeLessThan(Date.parse(answer.deadline));
    expect(Date.parse(seen.predictedFinish!)).toBeGreaterThan(Date.parse(seen.deadline));
    // Seen coming: the deadline had not passed yet.
    expect(seenAt).toBeLessThan(Date.parse(seen.deadline));
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toMatch(/^yss_jobs_predicted_to_miss 1$/m);
  });

  it('marks the job on the page: its predicted finish in red, the tile, its orange slack bar', async () => {
    const job = await jobOf();
    expect(job.predictedMiss).toBe(true);
    const fmt = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
    await pp.waitForFunction(() => document.querySelector('#tile-predicted')?.textContent === '1');
    expect(await cellText(pp, job.id, 'estimate')).toBe(fmt(job.estimatedFinish!));
    expect(await cellText(pp, job.id, 'predicted')).toBe(fmt(job.predictedFinish!));
    expect(await pp.getAttribute(`#jobs tbody tr[data-job-id="${job.id}"]`, 'class')).toContain(
      'predicted-miss',
    );
    expect(await pp.getAttribute(`#jobs tbody tr[data-job-id="${job.id}"] td.c-predicted`, 'class')).toBe(
      'c-predicted late',
    );
    expect(await pp.$eval('#tile-predicted', (v) => v.parentElement!.className)).toBe('tile alert');
    expect(await pp.getAttribute(`#chart-slack rect[data-key="${job.id}"]`, 'class')).toBe('bar risk');
    await pp.screenshot({ path: join(SHOTS, '18-live-predicted-miss.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  });
});
