import { existsSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAbsolute, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import cron from 'node-cron';
import YAML from 'yaml';
import type express from 'express';
import { createApiApp, type ApiOptions } from '../api/app';
import { endpointLabel, SidecarMetrics } from '../metrics';
import { rmTransportOptions } from '../config/rm-transport';
import type { SidecarConfig } from '../config/schema';
import { parseEnergyProfile, type EnergyProfile } from '../core/energy/profile';
import { defaultRegistry } from '../core/registry';
import { ValidationError } from '../errors/validation';
import { createLogger, redactUrl, type Logger } from '../log';
import { SqliteLedger } from '../store/ledger';
import { openPostgresLedger, PostgresLedger } from '../store/postgres';
import type { Ledger } from '../store/types';
import { HttpResourceManagerClient } from '../yarn/client';
import type { TransportOptions } from '../yarn/transport';
import { runningSparkExecutors } from '../yarn/spark';
import { JobHistoryClient } from '../yarn/jobhistory';
import { WebHdfsClient } from '../yarn/webhdfs';
import { ReplayRunner } from '../replay/runner';
import { Archiver } from '../loop/retention';
import { Sidecar } from '../loop/sidecar';

/** The package root: config/ and the dashboard's assets are found from here, in src/ or dist/. */
export const PACKAGE_ROOT = resolve(__dirname, '..', '..');

/** A relative path from the configuration: from the working directory, else the package root. */
export function resolveDataPath(path: string): string {
  if (isAbsolute(path)) return path;
  const fromCwd = resolve(path);
  return existsSync(fromCwd) ? fromCwd : join(PACKAGE_ROOT, path);
}

/** Loads and checks the energy profile against the node classes the configuration maps labels to. */
export function loadEnergyProfile(config: SidecarConfig): EnergyProfile {
  const file = resolveDataPath(config.placement.energyProfile);
  let raw: unknown;
  try {
    raw = YAML.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ValidationError([
      {
        path: 'placement.energyProfile',
        file,
        message: `cannot read: ${(err as Error).message.split('\n')[0]}`,
      },
    ]);
  }
  const classes = new Map<string, string[]>([[config.placement.defaultNodeClass, []]]);
  for (const [label, cls] of Object.entries(config.placement.nodeClassByLabel)) {
    classes.set(cls, [...(classes.get(cls) ?? []), label]);
  }
  return parseEnergyProfile(
    raw,
    [...classes].map(([nodeClass, labels]) => ({ nodeClass, nodes: 1, labels })),
  );
}

/**
 * How long close() waits for the cycle and submissions to settle once RM calls are aborted. They
 * settle in milliseconds then; the bound keeps a stop within 2 s of the signal in any case.
 */
const SETTLE_GRACE_MS = 1_500;

/** Whether `work` settled within `ms`. */
async function settledWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export interface RunningSidecar {
  sidecar: Sidecar;
  ledger: Ledger;
  /** The ledger's retention, on its timer (undefined with manualPolling or retention off). */
  archiver: Archiver | undefined;
  metrics: SidecarMetrics;
  url: string;
  server: Server;
  close(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  /** Dashboard routes (mounted instead of the plain jobs page). */
  extraRoutes?: (app: express.Express) => void;
  /** Epoch ms clock; the demo and tests inject one. */
  now?: () => number;
  /** `emulated` when `now` is the emulated RM's clock (the demo): the dashboard labels its times so. */
  clockKind?: 'system' | 'emulated';
  /** Skip the cron schedule (tests drive runOnce themselves). */
  manualPolling?: boolean;
  /**
   * With `ledger.url` (PostgreSQL): `now` (the default) takes the ledger over at start with the
   * fence's epoch + 1, for one sidecar on its own; `later` opens it as a follower, for an
   * election to call takeOver on it.
   */
  ledgerWriter?: 'now' | 'later';
}

/**
 * Opens the configured ledger: PostgreSQL when `ledger.url` is set (see src/store/postgres.ts),
 * else the SQLite file at `ledger.path`.
 */
export async function openLedger(
  config: SidecarConfig,
  options: { clock: () => number; logger: Logger; writer?: 'now' | 'later' },
): Promise<Ledger> {
  const c = config.ledger;
  if (c.url === undefined) {
    const path = c.path === ':memory:' ? ':memory:' : resolve(c.path);
    return SqliteLedger.open(path, { clock: options.clock });
  }
  const ledger = await openPostgresLedger(c.url, {
    clock: options.clock,
    poolSize: c.poolSize,
    flushTimeoutMs: c.flushTimeoutMs,
    writer: options.writer ?? 'now',
    logger: options.logger,
    // With retention on, what each instance loads is its open and recent jobs: older closed
    // ones stay in PostgreSQL for the leader to archive.
    ...(c.retention.enabled ? { archiveAfterMs: c.retention.archiveAfterDays * 86_400_000 } : {}),
  });
  options.logger.info('ledger on PostgreSQL', {
    component: 'service',
    url: redactUrl(c.url),
    writer: ledger.isWriter(),
  });
  return ledger;
}

/**
 * RM, JobHistory and WebHDFS clients, each call timed and its errors counted in the metrics.
 * With HA, `instance` adds the headers naming this sidecar and the guard that stops an RM write
 * once it no longer leads.
 */
export function rmClients(
  config: SidecarConfig,
  logger: Logger,
  metrics: SidecarMetrics,
  instance: Pick<TransportOptions, 'headers' | 'writeGuard'> = {},
) {
  const onCall = (c: {
    method: string;
    path: string;
    status?: number;
    error?: string;
    latencyMs: number;
  }) => {
    const labels = { method: c.method, endpoint: endpointLabel(c.path) };
    metrics.rmCallSeconds.observe(labels, c.latencyMs / 1000);
    if (c.error !== undefined || (c.status !== undefined && c.status >= 400 && c.status !== 404)) {
      metrics.rmErrors.inc({ ...labels, code: c.error ?? String(c.status) });
    }
  };
  const transportOptions = { ...rmTransportOptions(config.rm), logger, onCall };
  const rm = new HttpResourceManagerClient({
    ...transportOptions,
    ...instance,
    urls: config.rm.addresses,
    haDetection: config.rm.addresses.length > 1,
  });
  const jobHistory = JobHistoryClient.forHistoryServer({
    ...transportOptions,
    urls: [config.rm.jobHistoryAddress],
    haDetection: false,
    component: 'jhs-client',
  });
  // Input block locations for dop: no retry, the submission's time budget bounds every call.
  const webHdfs = config.rm.webHdfsAddress
    ? new WebHdfsClient({
        ...transportOptions,
        urls: [config.rm.webHdfsAddress],
        timeoutMs: config.placement.localityTimeoutMs,
        settingNames: { timeoutMs: 'placement.localityTimeoutMs' },
        maxAttempts: 1,
        component: 'webhdfs-client',
        // One metrics label for every HDFS path: paths are unbounded.
        onCall: (c) => onCall({ ...c, path: '/webhdfs/v1/{path}' }),
      })
    : undefined;
  return { rm, jobHistory, webHdfs };
}

/** The HTTP API of a service, with the configured tokens and limits. */
export function apiFor(
  config: SidecarConfig,
  p: Pick<ApiOptions, 'service' | 'metrics' | 'logger' | 'now' | 'extraRoutes' | 'leadership'>,
): ReturnType<typeof createApiApp> {
  return createApiApp({
    ...p,
    // Replays run the CLI in a process of their own (src/replay/runner.ts).
    replays: new ReplayRunner({
      config,
      command: [process.execPath, join(PACKAGE_ROOT, 'bin', 'yarn-sched-sidecar.js')],
      root: join(tmpdir(), `yss-replays-${process.pid}`),
    }),
    tokens: config.auth.tokens,
    protectReads: config.auth.protectReads,
    maxBodyBytes: config.server.maxBodyBytes,
  });
}

/** The API on the configured address; resolves once it listens, with the URL to reach it. */
export async function listen(app: ReturnType<typeof createApiApp>, config: SidecarConfig) {
  const server = app.listen(config.server.port, config.server.host);
  await new Promise<void>((ok, fail) => {
    server.once('listening', ok);
    server.once('error', fail);
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.server.host === '0.0.0.0' ? '127.0.0.1' : config.server.host;
  return { server, url: `http://${host}:${port}` };
}

/** The live sidecar on its clients and ledger (the loop, not yet polling). */
export function buildSidecar(
  config: SidecarConfig,
  p: {
    clients: ReturnType<typeof rmClients>;
    ledger: Ledger;
    metrics: SidecarMetrics;
    logger: Logger;
    now: () => number;
    clockKind?: StartOptions['clockKind'];
  },
): Sidecar {
  const { rm, jobHistory, webHdfs } = p.clients;
  return new Sidecar({
    config,
    rm,
    jobHistory,
    // A running job's tasks from its AM, through the active RM's web proxy.
    runningAppTasks: (appId) => JobHistoryClient.forRunningApp(rm.transport, appId).tasksOfApp(appId),
    // A running Spark app's executors, from its driver through the same proxy.
    runningSparkExecutors: (appId) => runningSparkExecutors(rm.transport, appId),
    webHdfs,
    ledger: p.ledger,
    registry: defaultRegistry(),
    energyProfile: loadEnergyProfile(config),
    metrics: p.metrics,
    logger: p.logger,
    now: p.now,
    clockKind: p.clockKind,
  });
}

/** The poll-decide-enforce cycle on the configured cron schedule, never two at once. */
export function schedulePolling(sidecar: Sidecar, config: SidecarConfig): ReturnType<typeof cron.schedule> {
  return cron.schedule(
    config.loop.pollCron,
    () => {
      void sidecar.runOnce();
    },
    { noOverlap: true, name: 'poll' },
  );
}

/**
 * The ledger's retention on its own timer (ledger.retention), for the instance that writes the
 * ledger: the sidecar on its own, or the elected leader. Undefined when retention is off.
 */
export function startArchiver(
  config: SidecarConfig,
  p: { ledger: Ledger; now: () => number; logger: Logger; metrics: SidecarMetrics },
): Archiver | undefined {
  if (!config.ledger.retention.enabled) return undefined;
  const archiver = new Archiver({ ...p, retention: config.ledger.retention });
  archiver.start();
  return archiver;
}

/** Said at start, not after the first refused write: the fix is in the configuration. */
function warnIfAnonymous(config: SidecarConfig, logger: Logger): void {
  if (config.rm.user || config.enforcement.shadow) return;
  logger.warn(
    'rm.user is not set: the RM gets anonymous calls. An RM with simple authentication refuses every one (401); a stock RM runs the apps the sidecar submits as its static web user (dr.who). Set rm.user (YSS_RM_USER) to the user jobs should run as',
    { component: 'service' },
  );
}

/**
 * Starts the sidecar from a validated configuration: ledger, RM and JobHistory clients, the
 * decision loop on its cron schedule, and the HTTP API. Returns once it listens.
 */
export async function startSidecar(
  config: SidecarConfig,
  options: StartOptions = {},
): Promise<RunningSidecar> {
  const logger = options.logger ?? createLogger({ level: config.log.level, format: config.log.format });
  const metrics = new SidecarMetrics({ processMetrics: true });
  const { rm, jobHistory, webHdfs } = rmClients(config, logger, metrics);
  const now = options.now ?? (() => Date.now());
  // The ledger stamps rows with the same clock as the decisions (the emulated one in the demo).
  const ledger = await openLedger(config, { clock: now, logger, writer: options.ledgerWriter });
  const sidecar = buildSidecar(config, {
    clients: { rm, jobHistory, webHdfs },
    ledger,
    metrics,
    logger,
    now,
    clockKind: options.clockKind,
  });
  const app = apiFor(config, { service: sidecar, metrics, logger, now, extraRoutes: options.extraRoutes });
  const { server, url } = await listen(app, config);

  const task = options.manualPolling ? undefined : schedulePolling(sidecar, config);
  // A PostgreSQL ledger opened to follow (ledgerWriter 'later') is not the writer: no archiving.
  const writes = !(ledger instanceof PostgresLedger) || ledger.isWriter();
  const archiver =
    options.manualPolling || !writes ? undefined : startArchiver(config, { ledger, now, logger, metrics });
  warnIfAnonymous(config, logger);
  if (!options.manualPolling) void sidecar.runOnce();
  logger.info('sidecar listening', {
    component: 'service',
    url,
    rm: config.rm.addresses,
    shadow: config.enforcement.shadow,
    policy: config.admission.policy,
  });

  const close = closer({
    task,
    archiver,
    clients: [rm, jobHistory, webHdfs],
    server,
    sidecar,
    ledger,
    logger,
  });
  if (ledger instanceof PostgresLedger) watchSharedLedger(ledger, metrics, logger, close);
  else if (ledger instanceof SqliteLedger) metrics.watchLogSync(() => ledger.logSync);
  return { sidecar, ledger, archiver, metrics, url, server, close };
}

/** A PostgreSQL ledger's role and backlog in the metrics; once a newer writer fences it, the sidecar stops. */
function watchSharedLedger(
  ledger: PostgresLedger,
  metrics: SidecarMetrics,
  logger: Logger,
  close: () => Promise<void>,
): void {
  metrics.watchLedger(() => ({ writer: ledger.isWriter(), unshipped: ledger.unshipped }));
  // A newer leader holds the ledger: this sidecar must neither write nor act on the RM again.
  ledger.onFenced((err) => {
    logger.error('a newer sidecar holds the ledger: stopping', { component: 'service', error: err.message });
    // After this turn: the request that met the fence gets its 503 before the connections close.
    setImmediate(() => void close());
  });
}

/**
 * Closes the ledger once what was written is durable (PostgreSQL: shipped, within the flush
 * timeout), saying so when it could not be.
 */
async function closeLedger(ledger: Ledger, logger: Logger): Promise<void> {
  await ledger.flush().catch((err: unknown) =>
    logger.error('the ledger could not make its last writes durable', {
      component: 'service',
      error: err instanceof Error ? err.message : String(err),
    }),
  );
  ledger.close();
  if (ledger instanceof PostgresLedger) await ledger.closed;
}

/**
 * Stops the sidecar once: the schedule, the calls in flight, the API, then waits a little for the
 * cycle and submissions to settle before closing the ledger.
 */
export function closer(p: {
  task: ReturnType<typeof cron.schedule> | undefined;
  /** The leader's archiving, stopped (its batch in flight ended) before the ledger closes. */
  archiver?: Archiver | undefined;
  clients: ReadonlyArray<{ transport: { close(): void } } | undefined>;
  server: Server;
  /** Absent on an HA follower, which runs no loop. */
  sidecar: Sidecar | undefined;
  ledger: Ledger;
  logger: Logger;
}): () => Promise<void> {
  let closed = false;
  return async () => {
    if (closed) return;
    closed = true;
    await p.task?.destroy();
    const archiving = p.archiver?.stop();
    // Calls in flight to the RM, the JobHistory server and WebHDFS end now, whatever those
    // servers do: the cycle and submissions waiting on them settle at once.
    for (const client of p.clients) client?.transport.close();
    p.server.closeAllConnections();
    await new Promise<void>((r) => p.server.close(() => r()));
    const settled = await settledWithin(p.sidecar?.runOnceSettled() ?? Promise.resolve(), SETTLE_GRACE_MS);
    if (!settled) {
      p.logger.warn('stopping without waiting longer for the cycle to settle', {
        component: 'service',
        waitedMs: SETTLE_GRACE_MS,
      });
    }
    await settledWithin(archiving ?? Promise.resolve(), SETTLE_GRACE_MS);
    await closeLedger(p.ledger, p.logger);
  };
}
