import { hostname } from 'node:os';
import type express from 'express';
import { notLeaderError, type Leadership } from '../api/app';
import type { SidecarService } from '../model/sidecar-service';
import type { Submission } from '../model/deadline-submission';
import { SidecarMetrics } from '../metrics';
import type { SidecarConfig } from '../config/schema';
import { LedgerReadOnlyError } from '../errors/ledger-read-only';
import { createLogger, type Logger } from '../log';
import type { Sidecar } from '../loop/sidecar';
import { getArchivedJobOf, getJobOf, listArchivedJobsOf, listJobsOf, statsOf } from '../loop/views';
import {
  apiFor,
  buildSidecar,
  closer,
  listen,
  openLedger,
  rmClients,
  schedulePolling,
  startArchiver,
} from './start';
import type { Archiver } from '../loop/retention';
import { PostgresLedger } from '../store/postgres';
import type { JobQuery } from '../store/types';
import { LeaderElection } from '../ha/election';

/**
 * One sidecar of several beside one cluster (ha.enabled): it starts as a follower (the API up,
 * the shared ledger followed for reads, no poll loop, no enforcer) and joins the election. When
 * elected it takes the ledger over with its epoch, then starts the loop. When deposed (its
 * ZooKeeper session lost or expired) or fenced (a newer leader took the ledger over) it stops
 * writing at once (the RM clients refuse and abort writes, the loop stops) and then stops
 * altogether: the process exits with EXIT.deposed and its supervisor starts it again, as a
 * follower. docs/deploy.md describes the layout.
 */

/** How often a follower reads what the leader wrote (ms). */
export const FOLLOW_INTERVAL_MS = 500;

/** The header naming the instance on every RM call (a real RM ignores it; the emulator records it). */
export const INSTANCE_HEADER = 'X-Sidecar-Instance';

export interface HaOptions {
  logger?: Logger;
  extraRoutes?: (app: express.Express) => void;
}

export interface RunningHaSidecar {
  url: string;
  id: string;
  election: LeaderElection;
  ledger: PostgresLedger;
  leadership: Leadership;
  /** Resolves once this instance stopped because it was deposed or fenced (with why). */
  deposed: Promise<string>;
  /** Leaves the election (the next candidate leads at once) and stops. */
  close(): Promise<void>;
}

/** The API's service: the ledger's reads while following, the live sidecar once leading. */
class RoleService implements SidecarService {
  sidecar: Sidecar | undefined;

  constructor(
    private readonly ledger: PostgresLedger,
    private readonly leadership: Leadership,
  ) {}

  private get leader(): Sidecar {
    if (this.sidecar === undefined) throw notLeaderError(this.leadership.leaderUrl());
    return this.sidecar;
  }

  submit(submission: Submission, context: Parameters<SidecarService['submit']>[1]) {
    return this.leader.submit(submission, context);
  }

  listJobs(query: JobQuery): { jobs: unknown[]; total: number } {
    return this.sidecar ? this.sidecar.listJobs(query) : listJobsOf(this.ledger, query);
  }

  getJob(id: string): unknown {
    return this.sidecar ? this.sidecar.getJob(id) : getJobOf(this.ledger, id);
  }

  /** The archive is read in PostgreSQL, by a follower as by the leader. */
  listArchivedJobs(query: JobQuery): Promise<{ jobs: unknown[]; total: number }> {
    return listArchivedJobsOf(this.ledger, query);
  }

  getArchivedJob(id: string): Promise<unknown> {
    return getArchivedJobOf(this.ledger, id);
  }

  cluster(): unknown {
    return this.leader.cluster();
  }

  taskCosts(): unknown {
    return this.leader.taskCosts();
  }

  resetEstimates(workloadClass: string, by: string): unknown {
    return this.leader.resetEstimates(workloadClass, by);
  }

  cancelTicket(id: string, by: string): unknown {
    return this.leader.cancelTicket(id, by);
  }

  stats(): { samples: unknown[] } {
    return statsOf(this.ledger);
  }

  /** Ready to take traffic: the leader, once it has read the cluster. A follower is not. */
  readiness(): { ready: boolean; reason?: string; [key: string]: unknown } {
    const role = this.sidecar && this.leadership.isLeader() ? 'leader' : 'follower';
    if (role === 'leader') return { ...this.sidecar!.readiness(), role };
    const leader = this.leadership.leaderUrl();
    return {
      ready: false,
      reason: leader === null ? 'follower: no leader known' : `follower: the leader is ${leader}`,
      role,
      leader,
    };
  }
}

/** This instance's name: ha.id, else host and process id. */
export function instanceId(config: SidecarConfig): string {
  return config.ha.id ?? `${hostname()}-${process.pid}`;
}

export async function startHaSidecar(
  config: SidecarConfig,
  options: HaOptions = {},
): Promise<RunningHaSidecar> {
  const logger = options.logger ?? createLogger({ level: config.log.level, format: config.log.format });
  const log = logger.child({ component: 'ha' });
  const id = instanceId(config);
  const now = (): number => Date.now();
  const metrics = new SidecarMetrics({ processMetrics: true });

  const state: HaState = { leading: false, epoch: null };
  // The election needs the URL the API listens on; the API answers from before it exists.
  const joined: { election?: LeaderElection } = {};
  const leadership = haLeadership(id, state, joined);
  const clients = rmClients(config, logger, metrics, {
    headers: { [INSTANCE_HEADER]: id },
    // Checked right before every RM write goes out: nothing is sent once this instance may not lead.
    writeGuard: () => {
      if (!leadership.isLeader()) {
        throw new LedgerReadOnlyError('this sidecar is no longer the leader: the RM write was not sent');
      }
    },
  });
  const ledger = await openSharedLedger(config, now, logger);
  // yss_ledger_writer: 1 on the leader once it took the ledger over, 0 on a follower.
  metrics.watchLedger(() => ({ writer: ledger.isWriter(), unshipped: ledger.unshipped }));

  const service = new RoleService(ledger, leadership);
  const app = apiFor(config, { service, leadership, metrics, logger, now, extraRoutes: options.extraRoutes });
  const { server, url } = await listen(app, config);
  const advertised = config.ha.advertiseUrl ?? url;

  let onDeposed: (reason: string) => void = () => {};
  const deposed = new Promise<string>((resolve) => (onDeposed = resolve));
  const run: HaRun = {
    config,
    id,
    advertised,
    log,
    logger,
    now,
    metrics,
    clients,
    ledger,
    service,
    server,
    joined,
    state,
    onDeposed,
  };
  const election = new LeaderElection({
    connect: config.ha.zookeeper,
    path: config.ha.path,
    sessionTimeoutMs: config.ha.sessionTimeoutMs,
    self: { id, url: advertised },
    logger,
  });
  joined.election = election;
  election.on('elected', (e) => void takeLead(run, e));
  election.on('deposed', (reason) => stopWriting(run, reason));
  election.on('leaderChanged', (leader) => log.info('leader changed', { leader, id }));
  ledger.onFenced((err) => stopWriting(run, `a newer leader fenced the ledger: ${err.message}`));
  election.start();

  log.info('sidecar listening', {
    url,
    advertised,
    id,
    role: 'follower',
    zookeeper: config.ha.zookeeper,
    path: config.ha.path,
    rm: config.rm.addresses,
  });
  return { url, id, election, ledger, leadership, deposed, close: () => closeHa(run) };
}

/** What changes as an instance leads and stops. */
interface HaState {
  /** Set once the ledger is taken over; cleared first thing when deposed or fenced. */
  leading: boolean;
  epoch: number | null;
  task?: ReturnType<typeof schedulePolling>;
  /** Archiving, like every other write, is the leader's: started once the ledger is taken over. */
  archiver?: Archiver;
  closing?: Promise<void>;
}

/** One HA instance: what it was started with, and its state. */
interface HaRun {
  config: SidecarConfig;
  id: string;
  advertised: string;
  log: Logger;
  logger: Logger;
  now: () => number;
  metrics: SidecarMetrics;
  clients: ReturnType<typeof rmClients>;
  ledger: PostgresLedger;
  service: RoleService;
  server: Awaited<ReturnType<typeof listen>>['server'];
  joined: { election?: LeaderElection };
  state: HaState;
  onDeposed: (reason: string) => void;
}

/** Whether this instance leads (elected, and the ledger taken over), and who does. */
function haLeadership(id: string, state: HaState, joined: { election?: LeaderElection }): Leadership {
  const leadership: Leadership = {
    isLeader: () => state.leading && joined.election !== undefined && joined.election.isLeader(),
    leaderUrl: () => joined.election?.leader()?.url ?? null,
    view: () => ({
      role: leadership.isLeader() ? 'leader' : 'follower',
      id,
      leader: joined.election?.leader() ?? null,
    }),
  };
  return leadership;
}

/** The shared ledger (PostgreSQL), followed for the leader's writes. */
async function openSharedLedger(
  config: SidecarConfig,
  now: () => number,
  logger: Logger,
): Promise<PostgresLedger> {
  const opened = await openLedger(config, { clock: now, logger, writer: 'later' });
  if (!(opened instanceof PostgresLedger)) {
    opened.close();
    throw new TypeError('ha.enabled needs the shared ledger (ledger.url)');
  }
  opened.follow(FOLLOW_INTERVAL_MS);
  return opened;
}

/** Leaves the election and stops everything, once. */
function closeHa(run: HaRun): Promise<void> {
  const { state } = run;
  return (state.closing ??= (async () => {
    state.leading = false;
    await closer({
      task: state.task,
      archiver: state.archiver,
      clients: [run.clients.rm, run.clients.jobHistory, run.clients.webHdfs],
      server: run.server,
      sidecar: run.service.sidecar,
      ledger: run.ledger,
      logger: run.logger,
    })();
    await run.joined.election?.close();
  })());
}

/** Deposed or fenced: writes stop at once, then everything; `deposed` resolves with why. */
function stopWriting(run: HaRun, reason: string): void {
  const { state, clients } = run;
  if (state.closing) return;
  // Writes stop before anything else: the guard refuses, the loop ends, calls in flight abort.
  const wasLeading = state.leading;
  state.leading = false;
  void state.task?.stop();
  void state.archiver?.stop();
  for (const c of [clients.rm, clients.jobHistory, clients.webHdfs]) c?.transport.close();
  run.log.warn('deposed: stopped writing; stopping', {
    epoch: state.epoch,
    reason,
    id: run.id,
    led: wasLeading,
  });
  void closeHa(run).finally(() => run.onDeposed(reason));
}

/** Elected with epoch `e`: the ledger taken over, then the loop and the archiver started. */
async function takeLead(run: HaRun, e: number): Promise<void> {
  const { state, config, ledger, id, log } = run;
  const started = Date.now();
  state.epoch = e;
  log.info('elected: taking the ledger over', { epoch: e, id });
  try {
    await ledger.takeOver(e, id);
  } catch (err) {
    stopWriting(run, `the ledger could not be taken over with epoch ${e}: ${(err as Error).message}`);
    return;
  }
  if (state.closing || !run.joined.election?.isLeader()) {
    stopWriting(run, 'deposed while taking the ledger over');
    return;
  }
  const { clients, metrics, logger, now } = run;
  const sidecar = buildSidecar(config, { clients, ledger, metrics, logger, now });
  run.service.sidecar = sidecar;
  state.leading = true;
  state.task = schedulePolling(sidecar, config);
  state.archiver = startArchiver(config, { ledger, now, logger, metrics });
  void sidecar.runOnce();
  log.info('leading', { epoch: e, id, url: run.advertised, takeOverMs: Date.now() - started });
}
