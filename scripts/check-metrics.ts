/**
 * Serves the API on a loopback port with every metric family holding series (process and
 * Node.js defaults included, requests answered 200, 401 and 404), scrapes /metrics over HTTP
 * and runs `promtool check metrics` on the answer. Prints promtool's findings and exits with its
 * status; exits 1 with a message when promtool is not installed (Debian's prometheus package
 * provides it). test/api/metrics.test.ts runs the same check in the test suite.
 */
import { spawnSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { createApiApp, type SidecarService } from '../src/api/app';
import { SidecarMetrics } from '../src/api/metrics';
import { silentLogger } from '../src/log';

/** The smallest service the API needs: one job, empty views, ready. */
export const sampleService: SidecarService = {
  async submit() {
    return { status: 201, body: { id: 'dl-1', decision: 'admitted' } };
  },
  listJobs: () => ({ jobs: [], total: 0 }),
  getJob: (id: string) => (id === 'dl-1' ? { id } : undefined),
  cluster: () => ({ nodes: 0 }),
  stats: () => ({ samples: [] }),
  taskCosts: () => ({ scope: 'class', jobs: 0, classes: [] }),
  readiness: () => ({ ready: true }),
};

/** Records one value in every sidecar series, so each family is in the exposition. */
export function exerciseSidecarSeries(m: SidecarMetrics): void {
  m.decisions.inc({ outcome: 'admitted', source: 'api' });
  m.deadlines.inc({ outcome: 'met' });
  m.admissionSeconds.observe(0.002);
  m.rmCallSeconds.observe({ method: 'GET', endpoint: '/ws/v1/cluster/apps' }, 0.03);
  m.rmErrors.inc({ method: 'PUT', endpoint: '/ws/v1/cluster/apps/{appid}/priority', code: 'RM_TIMEOUT' });
  m.rmWrites.inc({ kind: 'priority', status: 'done' });
  m.pollSeconds.observe(0.2);
  m.queueDepth.set(3);
  m.jobsPredictedToMiss.set(1);
  m.rmUp.set(1);
  m.pendingActions.set(0);
  m.oldestPendingActionSeconds.set(0);
  m.taskUnitCost.observe({ stage: 'map', class: 'cpu' }, 0.05);
  m.learnedUnitCost.set({ stage: 'map', class: '*' }, 0.2);
  m.archivedJobs.inc(500);
  m.deletedJobs.inc(0);
  m.archiveBatchSeconds.observe(0.02);
}

/** The text a Prometheus server scraping the API would read. */
export async function scrapeSample(): Promise<string> {
  const metrics = new SidecarMetrics({ processMetrics: true });
  exerciseSidecarSeries(metrics);
  const app = createApiApp({
    service: sampleService,
    metrics,
    logger: silentLogger(),
    tokens: [{ name: 'check', token: 'check-token-0123456789abcdef' }],
    protectReads: false,
    maxBodyBytes: 1_048_576,
    now: () => Date.parse('2026-11-22T08:00:00Z'),
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const path of ['/healthz', '/api/v1/jobs/dl-1', '/api/v1/jobs/nope', '/no/such/path'])
      await fetch(`${base}${path}`).then((r) => r.arrayBuffer());
    await fetch(`${base}/api/v1/jobs`, { method: 'POST' }).then((r) => r.arrayBuffer());
    return await fetch(`${base}/metrics`).then((r) => r.text());
  } finally {
    await new Promise((r) => server.close(r));
  }
}

/** True when `promtool` runs on this machine. */
export function havePromtool(): boolean {
  const probe = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  return probe.status === 0;
}

/** `promtool check metrics` over an exposition: its exit status and what it printed. */
export function promtoolCheck(text: string): { status: number; output: string } {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  return { status: run.status ?? 1, output: `${run.stdout ?? ''}${run.stderr ?? ''}`.trim() };
}

async function main(): Promise<void> {
  if (!havePromtool()) {
    process.stderr.write('promtool is not installed: apt-get install prometheus provides it\n');
    process.exitCode = 1;
    return;
  }
  const text = await scrapeSample();
  const families = text.split('\n').filter((l) => l.startsWith('# TYPE ')).length;
  const { status, output } = promtoolCheck(text);
  process.stdout.write(
    status === 0 && output === ''
      ? `promtool check metrics: ${families} metric families, no problems\n`
      : `promtool check metrics (exit ${status}):\n${output}\n`,
  );
  process.exitCode = status === 0 && output === '' ? 0 : 1;
}

if (require.main === module) void main();
