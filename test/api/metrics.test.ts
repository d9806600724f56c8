import express from 'express';
import type { AddressInfo } from 'node:net';
import { httpMetrics } from '../../src/api/http-metrics';
import { PER_MEGABYTE, SidecarMetrics } from '../../src/metrics';
import { havePromtool, promtoolCheck, scrapeSample } from '../../scripts/check-metrics';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- package.json sits outside rootDir
const { version } = require('../../package.json') as { version: string };

/** One sample's value from an exposition, by its full series text (name and labels). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metric names by the Prometheus conventions', () => {
  it('yss_build_info is 1 and names the package version and the Node.js version', async () => {
    const text = await new SidecarMetrics().registry.metrics();
    expect(text).toContain('# TYPE yss_build_info gauge');
    expect(sample(text, `yss_build_info{version="${version}",node_version="${process.version}"}`)).toBe(1);
  });

  it("prom-client's process and Node.js series keep their standard names, without _total on gauges", async () => {
    const text = await new SidecarMetrics({ processMetrics: true }).registry.metrics();
    expect(text).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(text).toContain('# TYPE process_resident_memory_bytes gauge');
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
    expect(text).toContain('# TYPE nodejs_active_handles gauge');
    expect(text).not.toMatch(/^yss_(process|nodejs)_/m);
    expect(text).not.toMatch(/^nodejs_active_\w+_total/m);
    // Every family named _total is a counter.
    for (const m of text.matchAll(/^# TYPE (\S+_total) (\S+)$/gm))
      expect([m[1], m[2]]).toEqual([m[1], 'counter']);
  });

  it('yss_jobs_predicted_to_miss is a gauge, 0 until the loop sets it, then the count it was given', async () => {
    const m = new SidecarMetrics();
    let text = await m.registry.metrics();
    expect(text).toContain('# TYPE yss_jobs_predicted_to_miss gauge');
    expect(text).toMatch(
      /^# HELP yss_jobs_predicted_to_miss Running admitted jobs whose predicted finish .* is after their deadline$/m,
    );
    expect(sample(text, 'yss_jobs_predicted_to_miss')).toBe(0);
    m.jobsPredictedToMiss.set(2);
    text = await m.registry.metrics();
    expect(sample(text, 'yss_jobs_predicted_to_miss')).toBe(2);
  });

  it("the SQLite ledger's log syncs are two gauges read at each scrape, 0 until a ledger is watched", async () => {
    const metrics = new SidecarMetrics();
    let text = await metrics.registry.metrics();
    expect(sample(text, 'yss_ledger_log_sync_seconds')).toBe(0);
    expect(sample(text, 'yss_ledger_log_syncs_in_pool')).toBe(0);
    let state = { seconds: 0.0004, inPool: false };
    metrics.watchLogSync(() => state);
    text = await metrics.registry.metrics();
    expect(sample(text, 'yss_ledger_log_sync_seconds')).toBe(0.0004);
    expect(sample(text, 'yss_ledger_log_syncs_in_pool')).toBe(0);
    state = { seconds: 0.003, inPool: true };
    text = await metrics.registry.metrics();
    expect(sample(text, 'yss_ledger_log_sync_seconds')).toBe(0.003);
    expect(sample(text, 'yss_ledger_log_syncs_in_pool')).toBe(1);
  });

  it('per-MB costs are _seconds series with unit="per_megabyte", recorded and removed by stage and class alone', async () => {
    const m = new SidecarMetrics();
    m.taskUnitCost.observe({ stage: 'map', class: 'cpu' }, 0.05);
    m.taskUnitCost.observe({ stage: 'map', class: 'cpu' }, 0.2);
    m.learnedUnitCost.set({ stage: 'reduce', class: '*' }, 0.15);
    let text = await m.registry.metrics();
    expect(
      sample(text, `yss_task_unit_cost_seconds_count{stage="map",class="cpu",unit="${PER_MEGABYTE}"}`),
    ).toBe(2);
    expect(
      sample(text, `yss_task_unit_cost_seconds_sum{stage="map",class="cpu",unit="${PER_MEGABYTE}"}`),
    ).toBe(0.25);
    expect(
      sample(text, `yss_learned_unit_cost_seconds{stage="reduce",class="*",unit="${PER_MEGABYTE}"}`),
    ).toBe(0.15);
    expect(text).not.toContain('_per_mb');
    m.taskUnitCost.remove({ stage: 'map', class: 'cpu' });
    text = await m.registry.metrics();
    expect(text).not.toMatch(/^yss_task_unit_cost_seconds_count/m);
  });
});

describe('HTTP request metrics', () => {
  async function served(app: express.Express, run: (base: string) => Promise<void>): Promise<void> {
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    } finally {
      await new Promise((r) => server.close(r));
    }
  }

  it('counts and times each request by method, route template and status; unknown paths are one "unmatched" route', async () => {
    const m = new SidecarMetrics();
    // A clock that advances 0.25 s between a request's start and its end.
    let t = 100;
    const app = express();
    app.use(
      httpMetrics(m, () => {
        t += 0.125;
        return t;
      }),
    );
    app.get('/api/v1/jobs/:id', (req, res) => {
      res.status(req.params.id === 'dl-1' ? 200 : 404).json({});
    });
    await served(app, async (base) => {
      for (const path of ['/api/v1/jobs/dl-1', '/api/v1/jobs/dl-1', '/api/v1/jobs/dl-2', '/x/1', '/x/2'])
        await fetch(`${base}${path}`).then((r) => r.arrayBuffer());
    });
    const text = await m.registry.metrics();
    expect(sample(text, 'http_requests_total{method="GET",route="/api/v1/jobs/:id",status_code="200"}')).toBe(
      2,
    );
    expect(sample(text, 'http_requests_total{method="GET",route="/api/v1/jobs/:id",status_code="404"}')).toBe(
      1,
    );
    expect(sample(text, 'http_requests_total{method="GET",route="unmatched",status_code="404"}')).toBe(2);
    expect(text).not.toContain('dl-1');
    expect(text).not.toContain('/x/');
    expect(
      sample(
        text,
        'http_request_duration_seconds_sum{method="GET",route="/api/v1/jobs/:id",status_code="200"}',
      ),
    ).toBe(0.25);
    expect(
      sample(
        text,
        'http_request_duration_seconds_bucket{le="0.1",method="GET",route="/api/v1/jobs/:id",status_code="200"}',
      ),
    ).toBe(0);
    expect(
      sample(
        text,
        'http_request_duration_seconds_bucket{le="0.25",method="GET",route="/api/v1/jobs/:id",status_code="200"}',
      ),
    ).toBe(2);
  });

  it("the API's routes are labelled by template, including refused and unknown requests", async () => {
    const text = await scrapeSample();
    expect(sample(text, 'http_requests_total{method="GET",route="/healthz",status_code="200"}')).toBe(1);
    expect(sample(text, 'http_requests_total{method="GET",route="/api/v1/jobs/:id",status_code="200"}')).toBe(
      1,
    );
    expect(sample(text, 'http_requests_total{method="GET",route="/api/v1/jobs/:id",status_code="404"}')).toBe(
      1,
    );
    expect(sample(text, 'http_requests_total{method="GET",route="unmatched",status_code="404"}')).toBe(1);
    expect(sample(text, 'http_requests_total{method="POST",route="/api/v1/jobs",status_code="401"}')).toBe(1);
  });
});

describe('promtool check metrics', () => {
  if (!havePromtool()) {
    // CI installs promtool (.ci/run): there its absence is a failure, never a quiet skip. A
    // developer's machine without it runs the rest of `npm test` and says what was left out.
    if (process.env.CI) {
      it("has promtool to run (CI installs Debian's prometheus package)", () => {
        expect(havePromtool()).toBe(true);
      });
    } else {
      it.skip('SKIPPED: promtool is not installed (Debian package prometheus; .ci/run installs it)', () => {});
    }
    return;
  }
  it('finds no problem in what /metrics serves (every family holding series)', async () => {
    const text = await scrapeSample();
    expect(promtoolCheck(text)).toEqual({ status: 0, output: '' });
  });
  it('does report the names this module no longer uses (the check is live)', () => {
    const old =
      '# HELP yss_task_unit_cost_seconds_per_mb x\n# TYPE yss_task_unit_cost_seconds_per_mb gauge\nyss_task_unit_cost_seconds_per_mb 1\n' +
      '# HELP yss_nodejs_active_handles_total x\n# TYPE yss_nodejs_active_handles_total gauge\nyss_nodejs_active_handles_total 1\n';
    const r = promtoolCheck(old);
    expect(r.status).not.toBe(0);
    expect(r.output).toContain(
      'yss_task_unit_cost_seconds_per_mb metric names should not contain abbreviated units',
    );
    expect(r.output).toContain(
      'yss_nodejs_active_handles_total non-counter metrics should not have "_total" suffix',
    );
  });
});
