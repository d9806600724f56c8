import {
  actionView,
  clockView,
  decisionView,
  jobView,
  predictedToMiss,
  type JobDetailView,
  type JobView,
  type StatsSample,
} from '../api/views';
import { RmAuthError } from '../errors/rm-auth';
import { RmHttpError } from '../errors/rm-http';
import { RmMalformedResponseError } from '../errors/rm-malformed';
import { RmRemoteError } from '../errors/rm-remote';
import { RmResponseTooLargeError } from '../errors/rm-response-too-large';
import { RmTimeoutError } from '../errors/rm-timeout';
import { RmUnavailableError } from '../errors/rm-unavailable';
import { redactText, redactUrl } from '../log';
import type { JobQuery, Ledger } from '../store/types';
import type { LoopParts } from './context';

/** What the API reads of the loop: jobs with their queue positions, the cluster, stats, readiness. */

/**
 * The dashboard's samples, the latest MAX_SAMPLES, each in a slot of its own (`stats:sample:NNN`,
 * its sequence number modulo MAX_SAMPLES) with the next sequence number under `stats:next`: a
 * cycle writes its sample alone. They were kept as one value under `stats`, read, appended to
 * and written whole every cycle (185 KB of JSON at 720 samples, 2.7 ms a cycle); such a value is
 * moved into slots by the first sample taken.
 */
const LEGACY_STATS_KEY = 'stats';
const SAMPLE_PREFIX = 'stats:sample:';
const NEXT_SAMPLE_KEY = 'stats:next';
export const MAX_SAMPLES = 720;

const slotOf = (seq: number) => `${SAMPLE_PREFIX}${String(seq % MAX_SAMPLES).padStart(3, '0')}`;

interface SampleSlot {
  seq: number;
  sample: StatsSample;
}

export interface Readiness {
  [key: string]: unknown;
  ready: boolean;
  reason?: string;
  lastPollOkAt?: string;
  lastPollError?: string;
  rmActive?: string;
}

export function listJobs(p: LoopParts, query: JobQuery): { jobs: unknown[]; total: number } {
  return listJobsOf(p.deps.ledger, query, p.lanes.positions());
}

export function getJob(p: LoopParts, id: string): JobDetailView | undefined {
  return getJobOf(p.deps.ledger, id, p.lanes.positions());
}

/** The jobs as the API shows them, from the ledger alone (a follower has no EDF positions). */
export function listJobsOf(
  ledger: Ledger,
  query: JobQuery,
  positions: ReadonlyMap<string, number> = new Map(),
): { jobs: unknown[]; total: number } {
  const { jobs, total } = ledger.listJobs(query);
  const tickets = ledger.ticketsOf(jobs.filter((j) => j.source === 'api').map((j) => j.id));
  const apps = ledger.appsOfJobs(jobs.filter((j) => j.appId !== null).map((j) => j.id));
  return {
    jobs: jobs.map((j) => jobView(j, positions.get(j.id) ?? null, tickets.get(j.id), apps.get(j.id))),
    total,
  };
}

/** A page of the ledger's archive (ledger.retention) as the API shows it. */
export async function listArchivedJobsOf(
  ledger: Ledger,
  query: JobQuery,
): Promise<{ jobs: JobView[]; total: number }> {
  const { jobs, total } = await ledger.listArchivedJobs(query);
  return { jobs: jobs.map((a) => jobView(a.job, null, a.ticket, a.apps, true)), total };
}

/** One archived job with its decisions and RM writes; undefined when the archive has none. */
export async function getArchivedJobOf(ledger: Ledger, id: string): Promise<JobDetailView | undefined> {
  const a = await ledger.getArchivedJob(id);
  if (!a) return undefined;
  return {
    ...jobView(a.job, null, a.ticket, a.apps, true),
    decisions: a.decisions.map(decisionView),
    actions: a.actions.map(actionView),
  };
}

/** One job with its decisions and RM writes, from the ledger alone. */
export function getJobOf(
  ledger: Ledger,
  id: string,
  positions: ReadonlyMap<string, number> = new Map(),
): JobDetailView | undefined {
  const job = ledger.getJob(id);
  if (!job) return undefined;
  return {
    ...jobView(job, positions.get(id) ?? null, ledger.getTicket(id), ledger.appsOf(id)),
    decisions: ledger.decisionsOf(id).map(decisionView),
    actions: ledger.actionsOf(id).map(actionView),
  };
}

export function clusterView(p: LoopParts): unknown {
  const { config } = p.deps;
  const o = p.observation;
  const book = p.estimates.book;
  const { pending, oldestMs } = p.deps.ledger.pendingBacklog();
  return {
    rm: {
      // Shown without their user information: an address may carry user:password.
      addresses: config.rm.addresses.map(redactUrl),
      haState: o.clusterInfo?.haState ?? null,
      version: o.clusterInfo?.hadoopVersion ?? null,
      // yarn.cluster.max-application-priority as known, and how (configured, rm, learned, assumed).
      priorityCap: p.cap.cap,
      reachable: o.lastPollError === undefined && o.lastPollOkMs !== undefined,
    },
    partitions: o.capacity?.partitions ?? [],
    queues: o.capacity?.queues ?? [],
    admission: {
      policy: config.admission.policy,
      slotModel: config.admission.slotModel,
      // Per workload class; a class not listed is judged with the default.
      estimates: { default: book.default, classes: book.classes },
      shadow: config.enforcement.shadow,
      lanes: p.lanes.views(p.deps.now() / 1000),
      // What the lanes count a guarantee other queues hold with (docs/admission.md).
      sharing: {
        otherQueues: config.admission.sharing.otherQueues,
        preemption: o.sharingInputs().preemption,
        measuredPreemptionDelays: o.delays.all,
      },
    },
    // RM writes recorded and not yet confirmed: the enforcer's backlog.
    outbox: {
      pending,
      oldestPendingSeconds: oldestMs === null ? null : Math.max(0, (p.deps.now() - oldestMs) / 1000),
      writesRefused: p.enforcer.writesRefused !== undefined,
    },
    polledAt: o.lastPollOkMs === undefined ? null : new Date(o.lastPollOkMs).toISOString(),
    // The one clock of every time above and in the job views: the emulated RM's in the demo.
    clock: clockView(p.deps.now(), p.deps.clockKind),
  };
}

export function stats(p: LoopParts): { samples: StatsSample[] } {
  return statsOf(p.deps.ledger);
}

/** The dashboard's samples as the ledger keeps them (the leader writes them, a follower reads them). */
export function statsOf(ledger: Ledger): { samples: StatsSample[] } {
  const slots = ledger
    .valuesWithPrefix<SampleSlot>(SAMPLE_PREFIX)
    .map((r) => r.value)
    .sort((a, b) => a.seq - b.seq);
  // A single value written before the slots (a leader not yet upgraded) holds older samples.
  const legacy = ledger.getValue<StatsSample[]>(LEGACY_STATS_KEY) ?? [];
  return { samples: [...legacy, ...slots.map((x) => x.sample)].slice(-MAX_SAMPLES) };
}

/**
 * Keeps a sample in the next slot (in one transaction with the sequence number). Not synced to
 * disk on its own (transactionUnsynced): a sample is derived from the jobs' totals and the
 * capacity view, and was the one sync of a quiet cycle; a power cut may take back the last few.
 */
function keepSample(ledger: Ledger, sample: StatsSample): void {
  ledger.transactionUnsynced(() => {
    let seq = ledger.getValue<number>(NEXT_SAMPLE_KEY);
    if (seq === undefined) {
      seq = 0;
      const legacy = ledger.getValue<StatsSample[]>(LEGACY_STATS_KEY);
      for (const old of (legacy ?? []).slice(-MAX_SAMPLES)) {
        ledger.setValue(slotOf(seq), { seq, sample: old } satisfies SampleSlot);
        seq++;
      }
      if (legacy !== undefined) ledger.deleteValue(LEGACY_STATS_KEY);
    }
    ledger.setValue(slotOf(seq), { seq, sample } satisfies SampleSlot);
    ledger.setValue(NEXT_SAMPLE_KEY, seq + 1);
  });
}

/**
 * One sample of the dashboard's charts, kept in the ledger (the latest MAX_SAMPLES). Its counts
 * and energy come from the totals the ledger keeps as jobs are written: a cycle's sample costs
 * the same with 100 jobs in the ledger or 100,000.
 */
export function sample(p: LoopParts): void {
  const { ledger } = p.deps;
  const counts = ledger.countJobs();
  const sum = (f: (c: (typeof counts)[number]) => boolean) => counts.filter(f).reduce((a, c) => a + c.n, 0);
  const accepted = sum((c) => c.decision === 'admitted');
  const rejected = sum((c) => c.decision === 'rejected');
  const met = sum((c) => c.outcome === 'met');
  const missed = sum((c) => c.outcome === 'missed');
  // A failed or killed app has no met/missed outcome: counted apart, by its state.
  const failed = sum((c) => c.decision === 'admitted' && c.state === 'failed');
  const killed = sum((c) => c.decision === 'admitted' && c.state === 'killed');
  const e = { joules: 0, kWhByLabel: {} as Record<string, number> };
  for (const { label, joules } of ledger.admittedEnergyByLabel()) {
    e.joules += joules;
    const key = label ?? '';
    e.kWhByLabel[key] = (e.kWhByLabel[key] ?? 0) + joules / 3.6e6;
  }
  const utilizationByLabel: Record<string, number> = {};
  for (const part of p.observation.capacity?.partitions ?? [])
    utilizationByLabel[part.label] = part.utilization;
  const next: StatsSample = {
    at: new Date(p.deps.now()).toISOString(),
    accepted,
    rejected,
    met,
    missed,
    failed,
    killed,
    acceptRatio: accepted + rejected > 0 ? accepted / (accepted + rejected) : null,
    successRatio: met + missed > 0 ? met / (met + missed) : null,
    utilizationByLabel,
    energyKWh: e.joules / 3.6e6,
    energyKWhByLabel: { ...e.kWhByLabel },
    predictedToMiss: ledger.openAdmittedJobsReused().filter(predictedToMiss).length,
  };
  keepSample(ledger, next);
}

/** What kind of failure the last poll met, in the words /readyz uses. */
function pollFailureKind(err: unknown): string {
  if (err instanceof RmAuthError) return 'RM refuses the sidecar (authentication)';
  if (err instanceof RmMalformedResponseError) return 'RM answer unreadable';
  if (err instanceof RmResponseTooLargeError) return 'RM answer too large';
  if (err instanceof RmTimeoutError) return 'RM too slow';
  if (err instanceof RmUnavailableError && err.noActiveRm) return 'no active RM (standby)';
  if (err instanceof RmRemoteError) return 'RM refused a read';
  if (err instanceof RmHttpError) return 'RM answered an error';
  // A network failure has a code (ECONNREFUSED, RM_UNAVAILABLE, RM_CLIENT_CLOSED, …); an error
  // without one is the sidecar's own, and not said to be the RM's.
  const code = (err as { code?: unknown } | undefined)?.code;
  if (err instanceof RmUnavailableError || typeof code === 'string') return 'RM unreachable';
  return 'poll failed (internal error)';
}

export function readiness(p: LoopParts): Readiness {
  const o = p.observation;
  // Writes refused for want of authentication: the sidecar decides, but nothing reaches YARN.
  const refused = p.enforcer.writesRefused;
  const writes = refused ? { writesRefused: redactText(refused.message) } : {};
  if (o.lastPollOkMs === undefined) {
    return {
      ready: false,
      reason: o.lastPollError ? `${pollFailureKind(o.lastPollFailure)}: ${o.lastPollError}` : 'no poll yet',
      ...writes,
    };
  }
  if (o.lastPollError !== undefined) {
    return {
      ready: false,
      reason: `${pollFailureKind(o.lastPollFailure)}: ${o.lastPollError}`,
      lastPollOkAt: new Date(o.lastPollOkMs).toISOString(),
      lastPollError: o.lastPollError,
      ...writes,
    };
  }
  return { ready: true, lastPollOkAt: new Date(o.lastPollOkMs).toISOString(), ...writes };
}
