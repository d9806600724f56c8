/// <reference lib="dom" />
/**
 * docker/compose.yaml run for real (npm run test:docker; scripts/test-docker.sh makes the base
 * images and points DOCKER_HOST at an engine first). The whole stack is built and brought up with
 * `docker-compose up --build`, then driven from the host as a user would: `probe` against the
 * RM's published port, a real SleepJob through `run` and the containerised sidecar, the
 * dashboard in Chromium, a restart of the sidecar, the HA overlay with its leader killed, and
 * `down -v`. The steps share one stack and run in order; each prints what it measured.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { spawnCli, type Proc } from '../e2e/support/procs';

const ROOT = join(__dirname, '..', '..');
const PROJECT = `yss-test-${process.pid}`;
const BASE_FILES = ['-f', 'docker/compose.yaml'];
const HA_FILES = [...BASE_FILES, '-f', 'docker/compose.ha.yaml'];
const TOKEN = 'compose-test-token-0123456789abcdef';
const SHOTS = join(ROOT, 'test-output', 'screenshots');
const CHROMIUM = '/usr/bin/chromium';
/** The tests jar's driver (its Main-Class) runs org.apache.hadoop.mapreduce.SleepJob as `sleep`. */
const SLEEP_JOB = 'sleep';
const TESTS_JAR = '/opt/hadoop/share/hadoop/jars/hadoop-mapreduce-client-jobclient-3.4.3-tests.jar';
const MB = 1024 * 1024;

const ports: Record<string, number> = {};
const env = (): NodeJS.ProcessEnv => ({
  ...process.env,
  DOCKER_BUILDKIT: '0',
  COMPOSE_DOCKER_CLI_BUILD: '0',
  YSS_SHADOW: 'false',
  YSS_TOKENS: `ci:${TOKEN}`,
  YSS_PG_PASSWORD: 'compose-test-password',
  YSS_SIDECAR_PORT: String(ports.sidecar),
  YSS_SIDECAR2_PORT: String(ports.sidecar2),
  YSS_RM_PORT: String(ports.rm),
  YSS_NAMENODE_PORT: String(ports.namenode),
  YSS_JHS_PORT: String(ports.jhs),
});

function note(text: string): void {
  process.stderr.write(`[compose.test] ${text}\n`);
}

/** A command's stdout; its exit code not 0 throws with the end of its output. */
function sh(cmd: string, args: string[], timeoutMs = 600_000): string {
  const r = spawnSync(cmd, args, {
    cwd: ROOT,
    env: env(),
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * MB,
  });
  if (r.status !== 0) {
    const tail = `${r.stdout ?? ''}\n${r.stderr ?? ''}`.trim().split('\n').slice(-40).join('\n');
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}:\n${tail}`);
  }
  return r.stdout;
}

const compose = (files: string[], args: string[], timeoutMs?: number) =>
  sh('docker-compose', ['-p', PROJECT, ...files, ...args], timeoutMs);

function containerOf(service: string, files = BASE_FILES): string {
  const id = compose(files, ['ps', '-q', service]).trim();
  if (!id) throw new Error(`no container for ${service}`);
  return id;
}

const inspect = (id: string, format: string) => sh('docker', ['inspect', '-f', format, id]).trim();

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Polls `probe` until it answers something other than undefined, or fails after `timeoutMs`. */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Every service with a healthcheck healthy and every one-shot exited 0. */
async function allHealthy(files: string[], timeoutMs: number): Promise<void> {
  await waitFor(
    'every service healthy',
    async () => {
      const ids = compose(files, ['ps', '-a', '-q']).trim().split('\n').filter(Boolean);
      const states = ids.map((id) =>
        inspect(
          id,
          '{{.Name}} {{.State.Status}} {{.State.ExitCode}} {{if .State.Health}}{{.State.Health.Status}}{{end}}',
        ),
      );
      const pending = states.filter((s) => {
        const [, status, code, health] = s.split(' ');
        return health
          ? health !== 'healthy'
          : !(status === 'running' || (status === 'exited' && code === '0'));
      });
      if (pending.length > 0) throw new Error(pending.join('; '));
      return true;
    },
    timeoutMs,
  );
}

async function api<T>(
  port: number,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, body: (await res.json()) as T };
}

async function rm<T>(path: string): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${ports.rm}${path}`, { headers: { accept: 'application/json' } });
  if (res.status !== 200) throw new Error(`RM ${path}: ${res.status}`);
  return (await res.json()) as T;
}

interface RmApp {
  id: string;
  name: string;
  queue: string;
  state: string;
  finalStatus: string;
  applicationTags: string;
  startedTime: number;
  finishedTime: number;
}
interface JobDetail {
  id: string;
  state: string;
  outcome: string | null;
  appId: string | null;
  queue: string | null;
  ticket: { status: string; appId: string | null } | null;
}

const appsTagged = async (tag: string) =>
  (
    await rm<{ apps: { app?: RmApp[] } | null }>(
      `/ws/v1/cluster/apps?applicationTags=${encodeURIComponent(tag)}`,
    )
  ).apps?.app ?? [];
const appsSubmitted = async () =>
  (await rm<{ clusterMetrics: { appsSubmitted: number } }>('/ws/v1/cluster/metrics')).clusterMetrics
    .appsSubmitted;

async function exitOf(p: Proc, timeoutMs: number): Promise<number | null> {
  const timer = setTimeout(() => p.child.kill('SIGKILL'), timeoutMs);
  const code = await p.exited;
  clearTimeout(timer);
  return code;
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

let ticketId = '';
let appId = '';
let binDir = '';

beforeAll(async () => {
  for (const name of ['sidecar', 'sidecar2', 'rm', 'namenode', 'jhs']) ports[name] = await freePort();
  binDir = mkdtempSync(join(tmpdir(), 'yss-compose-'));
}, 60_000);

afterAll(() => {
  if (process.env.YSS_DOCKER_KEEP) {
    note(`kept: docker-compose -p ${PROJECT} ${HA_FILES.join(' ')} down -v`);
  } else {
    spawnSync('docker-compose', ['-p', PROJECT, ...HA_FILES, 'down', '-v', '--remove-orphans', '-t', '5'], {
      cwd: ROOT,
      env: env(),
      timeout: 180_000,
    });
  }
  if (binDir) rmSync(binDir, { recursive: true, force: true });
}, 240_000);

describe('docker/compose.yaml with a Docker engine', () => {
  it('builds the Hadoop and sidecar images and brings every service up healthy', async () => {
    const t0 = Date.now();
    compose(BASE_FILES, ['build'], 1_800_000);
    const built = Date.now() - t0;
    const t1 = Date.now();
    compose(BASE_FILES, ['up', '-d', '--build'], 900_000);
    await allHealthy(BASE_FILES, 600_000);
    const up = Date.now() - t1;
    const size = (image: string) =>
      Number(sh('docker', ['image', 'inspect', '-f', '{{.Size}}', image]).trim());
    note(`docker-compose build (Hadoop and sidecar images): ${secs(built)}`);
    note(`up -d --build to every service healthy: ${secs(up)}`);
    note(
      `image sizes: yarn-sched-sidecar:local ${(size('yarn-sched-sidecar:local') / MB).toFixed(0)} MB, ` +
        `yarn-sched-sidecar/hadoop:3.4.3 ${(size('yarn-sched-sidecar/hadoop:3.4.3') / MB).toFixed(0)} MB`,
    );
    // The one-shot ran after the RM was healthy, and finished.
    const labels = containerOf('node-labels');
    expect(inspect(labels, '{{.State.Status}} {{.State.ExitCode}}')).toBe('exited 0');
    const rmStarted = Date.parse(inspect(containerOf('resourcemanager'), '{{.State.StartedAt}}'));
    const labelsStarted = Date.parse(inspect(labels, '{{.State.StartedAt}}'));
    expect(labelsStarted).toBeGreaterThan(rmStarted);
  }, 2_700_000);

  it('probe shows the containerised RM as the sidecar sees it: the gpu label, its node, the queues', async () => {
    const p = spawnCli('probe', [
      'probe',
      '--rm',
      `http://127.0.0.1:${ports.rm}`,
      '--json',
      '--user',
      'hadoop',
    ]);
    expect(await exitOf(p, 60_000)).toBe(0);
    const out = p.output();
    const json = JSON.parse(out.slice(out.indexOf('{'), out.lastIndexOf('}') + 1)) as Record<string, unknown>;
    const text = JSON.stringify(json);
    expect(text).toContain('"gpu"');
    for (const q of ['realtime', 'besteffort', 'default']) expect(text).toContain(q);
    const nodes = json.nodes as { total: number; byLabel: Record<string, number> };
    expect(nodes.total).toBe(2);
    // One NodeManager carries the exclusive gpu label, given by the node-labels one-shot.
    expect(nodes.byLabel['gpu']).toBe(1);
    // The sidecar in its container reads the same cluster: two nodes, the gpu partition.
    const cluster = await api<Record<string, unknown>>(ports.sidecar, 'GET', '/api/v1/cluster');
    expect(cluster.status).toBe(200);
    const seen = JSON.stringify(cluster.body);
    expect(seen).toContain('gpu');
    expect(seen).toContain('realtime');
  }, 120_000);

  it('runs a real SleepJob through run and the containerised sidecar: admitted, bound, SUCCEEDED, met', async () => {
    // `hadoop` on the host is Hadoop's client inside the RM's container (the image's own command).
    const hadoop = join(binDir, 'hadoop');
    const rmContainer = containerOf('resourcemanager');
    writeFileSync(
      hadoop,
      `#!/bin/sh\nexec docker exec -i -e HADOOP_USER_NAME=hadoop ${rmContainer} hadoop "$@"\n`,
    );
    chmodSync(hadoop, 0o755);
    const before = await appsSubmitted();
    const t0 = Date.now();
    const p = spawnCli(
      'run',
      [
        'run',
        '--deadline',
        '10m',
        '--maps',
        '2',
        '--reduces',
        '1',
        '--input-bytes',
        String(64 * MB),
        '--user',
        'hadoop',
        '--',
        hadoop,
        'jar',
        TESTS_JAR,
        SLEEP_JOB,
        '-m',
        '2',
        '-r',
        '1',
        '-mt',
        '3000',
        '-rt',
        '2000',
      ],
      { YSS_URL: `http://127.0.0.1:${ports.sidecar}`, YSS_TOKEN: TOKEN },
    );
    const code = await exitOf(p, 300_000);
    const ran = Date.now() - t0;
    if (code !== 0) throw new Error(`run exited ${code}:\n${p.output().slice(-4000)}`);
    ticketId = /run: admitted as (dl-[0-9a-f]+)/.exec(p.output())?.[1] ?? '';
    expect(ticketId).not.toBe('');
    const apps = await appsTagged(`sidecar-id:${ticketId}`);
    expect(apps).toHaveLength(1);
    const app = apps[0]!;
    appId = app.id;
    expect(app).toMatchObject({
      name: 'Sleep job',
      queue: 'root.realtime',
      state: 'FINISHED',
      finalStatus: 'SUCCEEDED',
    });
    expect(await appsSubmitted()).toBe(before + 1);
    const job = await waitFor(
      `the sidecar to record the end of ${ticketId}`,
      async () => {
        const j = (await api<JobDetail>(ports.sidecar, 'GET', `/api/v1/jobs/${ticketId}`)).body;
        return j.state === 'finished' ? j : undefined;
      },
      120_000,
    );
    expect(job).toMatchObject({
      appId,
      queue: 'realtime',
      outcome: 'met',
      ticket: { status: 'bound', appId },
    });
    note(`run to SUCCEEDED (run's start to its exit, the RM's app FINISHED/SUCCEEDED): ${secs(ran)}`);
    note(`the app in the RM: ${secs(app.finishedTime - app.startedTime)} from its start to its finish`);
  }, 420_000);

  it('serves the dashboard on its published port to Chromium, the job listed', async () => {
    expect(ticketId).not.toBe('');
    mkdirSync(SHOTS, { recursive: true });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('response', (r) => {
        if (r.status() >= 400) errors.push(`${r.status()} ${r.url()}`);
      });
      const res = await page.goto(`http://127.0.0.1:${ports.sidecar}/`);
      expect(res?.status()).toBe(200);
      // The jobs table's row of the run's job (the table keys rows by job id).
      await page.locator(`#jobs tr[data-job-id="${ticketId}"]`).waitFor({ timeout: 30_000 });
      await page.screenshot({ path: join(SHOTS, 'compose-dashboard.png'), fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);

  it('keeps the ledger on its volume across docker restart, as a non-root user that cannot write its code', async () => {
    expect(ticketId).not.toBe('');
    const sidecar = containerOf('sidecar');
    const before = await appsSubmitted();
    sh('docker', ['restart', '-t', '10', sidecar]);
    await allHealthy(BASE_FILES, 180_000);
    const job = (await api<JobDetail>(ports.sidecar, 'GET', `/api/v1/jobs/${ticketId}`)).body;
    expect(job).toMatchObject({ state: 'finished', outcome: 'met', appId });
    // Nothing was resubmitted to the RM.
    expect(await appsSubmitted()).toBe(before);
    expect((await appsTagged(`sidecar-id:${ticketId}`)).map((a) => a.id)).toEqual([appId]);
    const exec = (cmd: string) =>
      spawnSync('docker', ['exec', sidecar, 'sh', '-c', cmd], { env: env(), encoding: 'utf8' });
    expect(exec('id -u').stdout.trim()).not.toBe('0');
    expect(exec('id -un').stdout.trim()).toBe('node');
    expect(exec('touch /app/dist/index.js').status).not.toBe(0);
    expect(exec('touch /app/node_modules/.probe').status).not.toBe(0);
    expect(exec('stat -c %U /var/lib/yarn-sched-sidecar/ledger.db').stdout.trim()).toBe('node');
  }, 240_000);

  it('HA overlay: the leader killed, the other sidecar leads within the session timeout, no admitted job lost', async () => {
    const t0 = Date.now();
    compose(HA_FILES, ['up', '-d'], 900_000);
    await allHealthy(HA_FILES, 600_000);
    note(`HA overlay up (ZooKeeper, PostgreSQL, two sidecars) to healthy: ${secs(Date.now() - t0)}`);
    const byService = { sidecar: ports.sidecar!, 'sidecar-2': ports.sidecar2! };
    const leaderOf = async () => {
      for (const [service, port] of Object.entries(byService)) {
        const r = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        if (r?.status === 200) return { service, port };
      }
      return undefined;
    };
    const leader = await waitFor('a leader', leaderOf, 120_000);
    const [followerService, followerPort] = Object.entries(byService).find(([s]) => s !== leader.service)!;
    // A job admitted by the leader (a ticket: admission only, nothing submitted to the RM).
    const submitted = await api<{ id: string; decision?: string }>(leader.port, 'POST', '/api/v1/jobs', {
      name: 'ha-compose',
      user: 'hadoop',
      deadline: 3600,
      maps: 2,
      reduces: 1,
      inputBytes: 64 * MB,
    });
    expect(submitted.status).toBeLessThan(300);
    const id = submitted.body.id;
    const killedAt = Date.now();
    sh('docker', ['kill', containerOf(leader.service, HA_FILES)]);
    await waitFor(
      `${followerService} to lead`,
      async () =>
        (await fetch(`http://127.0.0.1:${followerPort}/readyz`)).status === 200 ? true : undefined,
      60_000,
    );
    const takeover = Date.now() - killedAt;
    note(`takeover: docker kill of ${leader.service} to ${followerService}'s /readyz 200: ${secs(takeover)}`);
    // Within the session timeout (YSS_HA_SESSION_TIMEOUT_MS, 5 s) and the election that follows it.
    expect(takeover).toBeLessThan(5000 + 10_000);
    const after = await api<JobDetail>(followerPort, 'GET', `/api/v1/jobs/${id}`);
    expect(after.status).toBe(200);
    expect(after.body.id).toBe(id);
  }, 1_200_000);

  it('down -v leaves no container, network or volume of the project behind', () => {
    compose(HA_FILES, ['down', '-v', '--remove-orphans', '-t', '5'], 300_000);
    const label = `label=com.docker.compose.project=${PROJECT}`;
    expect(sh('docker', ['ps', '-a', '-q', '--filter', label]).trim()).toBe('');
    expect(sh('docker', ['network', 'ls', '-q', '--filter', label]).trim()).toBe('');
    expect(sh('docker', ['volume', 'ls', '-q', '--filter', label]).trim()).toBe('');
  }, 360_000);
});
