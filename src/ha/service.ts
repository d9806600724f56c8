import { hostname } from 'node:os';
import type express from 'express';
import { notLeaderError, type Leadership, type SidecarService } from '../api/app';
import type { Submission } from '../api/submission';
import { SidecarMetrics } from '../api/metrics';
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
} from '../loop/service';
import type { Archiver } from '../loop/retention';
import { PostgresLedger } from '../store/postgres';
import type { JobQuery } from '../store/types';
import { LeaderElection } from './election';

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

  // Set once the ledger is taken over; cleared first thing when deposed or fenced.
  let leading = false;
  // The election needs the URL the API listens on; the API answers from before it exists.
  const joined: { election?: LeaderElection } = {};
  const leadership: Leadership = {
    isLeader: () => leading && joined.election !== undefined && joined.election.isLeader(),
    leaderUrl: () => joined.election?.leader()?.url ?? null,
    view: () => ({
      role: leadership.isLeader() ? 'leader' : 'follower',
      id,
      leader: joined.election?.leader() ?? null,
    }),
  };
  const clients = rmClients(config, logger, metrics, {
    headers: { [INSTANCE_HEADER]: id },
    // Checked right before every RM write goes out: nothing is sent once this instance may not lead.
    writeGuard: () => {
      if (!leadership.isLeader()) {
        throw new LedgerReadOnlyError('this sidecar is no longer the leader: the RM write was not sent');
      }
    },
  });

  const opened = await openLedger(config, { clock: now, logger, writer: 'later' });
  if (!(opened instanceof PostgresLedger)) {
    opened.close();
    throw new TypeError('ha.enabled needs the shared ledger (ledger.url)');
  }
  const ledger = opened;
  ledger.follow(FOLLOW_INTERVAL_MS);
  // yss_ledger_writer: 1 on the leader once it took the ledger over, 0 on a follower.
  metrics.watchLedger(() => ({ writer: ledger.isWriter(), unshipped: ledger.unshipped }));

  const service = new RoleService(ledger, leadership);
  const app = apiFor(config, { service, leadership, metrics, logger, now, extraRoutes: options.extraRoutes });
  const { server, url } = await listen(app, config);
  const advertised = config.ha.advertiseUrl ?? url;

  let task: ReturnType<typeof schedulePolling> | undefined;
  // Archiving, like every other write, is the leader's: started once the ledger is taken over.
  let archiver: Archiver | undefined;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      leading = false;
      await closer({
        task,
        archiver,
        clients: [clients.rm, clients.jobHistory, clients.webHdfs],
        server,
        sidecar: service.sidecar,
        ledger,
        logger,
      })();
      await joined.election?.close();
    })());

  let onDeposed: (reason: string) => void = () => {};
  const deposed = new Promise<string>((resolve) => (onDeposed = resolve));
  let epoch: number | null = null;
  const stop = (reason: string): void => {
    if (closing) return;
    // Writes stop before anything else: the guard refuses, the loop ends, calls in flight abort.
    const wasLeading = leading;
    leading = false;
    void task?.stop();
    void archiver?.stop();
    for (const c of [clients.rm, clients.jobHistory, clients.webHdfs]) c?.transport.close();
    log.warn('deposed: stopped writing; stopping', { epoch, reason, id, led: wasLeading });
    void close().finally(() => onDeposed(reason));
  };

  const lead = async (e: number): Promise<void> => {
    const started = Date.now();
    epoch = e;
    log.info('elected: taking the ledger over', { epoch: e, id });
    try {
      await ledger.takeOver(e, id);
    } catch (err) {
      stop(`the ledger could not be taken over with epoch ${e}: ${(err as Error).message}`);
      return;
    }
    if (closing || !joined.election?.isLeader()) {
      stop('deposed while taking the ledger over');
      return;
    }
    const sidecar = buildSidecar(config, { clients, ledger, metrics, logger, now });
    service.sidecar = sidecar;
    leading = true;
    task = schedulePolling(sidecar, config);
    archiver = startArchiver(config, { ledger, now, logger, metrics });
    void sidecar.runOnce();
    log.info('leading', { epoch: e, id, url: advertised, takeOverMs: Date.now() - started });
  };

  const election = new LeaderElection({
    connect: config.ha.zookeeper,
    path: config.ha.path,
    sessionTimeoutMs: config.ha.sessionTimeoutMs,
    self: { id, url: advertised },
    logger,
  });
  joined.election = election;
  election.on('elected', (e) => void lead(e));
  election.on('deposed', (reason) => stop(reason));
  election.on('leaderChanged', (leader) => log.info('leader changed', { leader, id }));
  ledger.onFenced((err) => stop(`a newer leader fenced the ledger: ${err.message}`));
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
  return { url, id, election, ledger, leadership, deposed, close };
}
