import type { DcState } from '../../core/admission/dc';
import type { AdmissionPolicy } from '../../core/admission/types';
import { withClass, type EstimateBook } from '../../core/estimate-book';
import type { DeadlineJob } from '../../core/job';
import {
  admitInLanes,
  laneFinished,
  laneLeft,
  laneStarted,
  queueRanks,
  soonestRejection,
  type LaneTry,
} from '../../core/lanes';
import type { AdmissionCapabilities } from '../../core/registry';
import { usableMapSlots, type SlotModel } from '../../core/slots/model';
import { ValidationError } from '../../errors/validation';
import type { ClusterSpec, TraceJob } from '../model';
import type { OverrunFeedback } from '../overrun-feedback';
import type { AdmissionDecision, FinishedJobRecord, JobView } from '../policy-port';
import { coreSlotModel, lanesForJob, unrunnableReason } from './cluster-slots';
import { judgedBy, toDeadlineJob, traceClassOf } from './estimates';
import type { LaneSharing } from './sharing';

/** One admission lane: a policy instance sized to its containers, with its own state. */
export interface AdmissionLane {
  /** The kind of container the lane owns (null: the whole cluster, no lanes). */
  readonly kind: 'cpu' | 'gpu' | null;
  /** Replaced, with the model, when a lane another tenant shares is rebuilt to another size. */
  policy: AdmissionPolicy<unknown>;
  /** The slots the lane's policy reasons about. */
  model: SlotModel;
  state: unknown;
  /** Each admitted job's position in the lane's queue. */
  rank: Map<string, number>;
}

/** How a policy's admission is divided among the cluster's slots (admission-port.ts). */
export interface LaneLayout {
  /** Container lanes (unified with GPU containers, a policy with its own dispatcher), or null. */
  readonly laneSpecs: ReadonlyArray<{ kind: 'cpu' | 'gpu'; containers: number }> | null;
  /** RTMR on mr1: the dispatcher names the job for each map slot. */
  readonly mr1Dispatch: boolean;
  /** ... and GPU map slots are a lane of maps of their own. */
  readonly mapLanes: boolean;
}

/** DC's minimum task counts of one admitted job (seed 001 III.B). */
export interface DcJob {
  job: DeadlineJob;
  /** n_m^min, from its plan at admission. */
  mapSlots: number;
  /** n_r^min, once its maps are done (dcReduceSlots). */
  reduceSlots: number | null;
}

/** One lane (by index into the lanes) a job may be admitted in, with map lanes its kind of map slot. */
interface LaneChoice {
  lane: number;
  mapKind?: 'cpu' | 'gpu';
}

type Candidate = { lane: AdmissionLane; index: number; mapKind?: 'cpu' | 'gpu'; job: DeadlineJob };

/**
 * An admission policy run in lanes: which lanes a job is tried in, its place in its lane's
 * queue, and the lifecycle calls routed to its lane. The engine reaches it through the
 * AdmissionPort that admissionPort() builds around it.
 */
export class LanedAdmission {
  /** Each admitted job's lane (index into lanes). */
  readonly laneOf = new Map<string, number>();
  /** With map lanes (mr1, GPU map slots): the kind of map slot each admitted job's maps run in. */
  readonly mapKindOf = new Map<string, 'cpu' | 'gpu'>();
  /** DC's minimum task counts per admitted job. */
  readonly dcJobs = new Map<string, DcJob>();
  private readonly laneIndex: Map<'cpu' | 'gpu' | null, number>;
  private readonly mapModel: SlotModel;
  /** Each lane's containers when nothing of its guarantee is held (a lane another tenant shares). */
  private readonly baseSize: Map<AdmissionLane, number>;

  constructor(
    readonly lanes: readonly AdmissionLane[],
    private readonly layout: LaneLayout,
    private readonly cluster: ClusterSpec,
    private readonly book: EstimateBook,
    private readonly caps: AdmissionCapabilities,
    private readonly feedback: OverrunFeedback | null,
    /** Another tenant sharing the CPU containers, as admission sees it (sharing.ts); null: none. */
    readonly sharing: LaneSharing | null = null,
    /** Search a rejected job's earliest admissible deadline (the replay's report; costs a search per rejection). */
    private readonly searchEarliest = false,
  ) {
    this.laneIndex = new Map(lanes.map((l, i) => [l.kind, i]));
    this.mapModel = coreSlotModel(cluster, layout.mapLanes);
    this.baseSize = new Map(lanes.map((l) => [l, l.model.name === 'unified' ? l.model.containers : 0]));
  }

  decide(job: TraceJob, now: number): AdmissionDecision {
    const refused = this.refusedBeforePolicy(job);
    if (refused !== null) return { admit: false, reason: refused };
    const tried = this.candidateLanes(job);
    if (tried.length === 0) return { admit: false, reason: `no ${job.type} containers to admit it in` };
    if (this.feedback) {
      this.feedback.beforeDecision(now);
      this.rerankAll();
    }
    const book = this.feedback?.estimates ?? this.book;
    const sharing = this.sharing;
    if (sharing) {
      sharing.beforeDecision(
        this.lanes,
        (l) => this.baseSize.get(l as AdmissionLane) ?? 0,
        book.default,
        now,
      );
      this.rerankAll();
    }
    const cls = traceClassOf(job);
    const open = sharing ? tried.filter(({ lane: i }) => !sharing.shareOf(this.lanes[i]!)?.blocked) : tried;
    if (open.length === 0) {
      const held = sharing?.describe(this.lanes[tried[0]!.lane]!);
      return {
        admit: false,
        reason: `guarantee-held: ${held ?? 'every guaranteed container is held by other queues'}`,
      };
    }
    const tries: Candidate[] = open.map(({ lane: i, mapKind }) => ({
      lane: this.lanes[i] as AdmissionLane,
      index: i,
      mapKind,
      job: {
        ...withClass(toDeadlineJob(job), cls, book),
        // A replayed job carries what the sidecar had learned by its arrival.
        ...(job.estimates === undefined ? {} : { estimates: job.estimates }),
        ...(mapKind === undefined ? {} : { lane: mapKind }),
      },
    }));
    let firstReason: string | null = null;
    let admitted;
    let rejected: Array<LaneTry<Candidate>> = [];
    try {
      ({ admitted, rejected } = admitInLanes(tries, now, { searchEarliest: this.searchEarliest }, (t) => {
        t.lane.state = t.result.state;
        firstReason ??= withSharing(
          rejectionText(t, `(${job.estimates === undefined ? judgedBy(book, cls) : 'its own estimates'})`),
          sharing?.describe(t.lane),
        );
      }));
    } catch (e) {
      if (e instanceof ValidationError)
        return { admit: false, reason: `invalid for admission: ${e.message}` };
      throw e;
    }
    if (admitted && admitted.result.admitted) {
      this.admittedIn(job.id, admitted);
      return { admit: true, estimatedFinish: admitted.result.estimatedFinish };
    }
    const soonest = this.searchEarliest ? soonestRejection(rejected) : undefined;
    return {
      admit: false,
      reason: firstReason ?? 'not admitted',
      ...(soonest && !soonest.result.admitted
        ? { earliestDeadline: soonest.result.earliestAdmissibleDeadline }
        : {}),
    };
  }

  /**
   * Queue position within the job's lane; jobs of different lanes never compete for a
   * container, so across lanes the order only has to be total: position, then lane.
   */
  compare(a: JobView, b: JobView): number {
    const la = this.laneOf.get(a.id);
    const lb = this.laneOf.get(b.id);
    return this.rankIn(la, a.id) - this.rankIn(lb, b.id) || (la ?? 0) - (lb ?? 0);
  }

  jobStarted(jobId: string): void {
    for (const lane of this.lanesOfJob(jobId)) laneStarted(lane, jobId);
  }

  jobFinished(record: FinishedJobRecord, now: number): void {
    for (const lane of this.lanesOfJob(record.job.id)) {
      const actuals = {
        mapFinishTimes: record.mapFinishes,
        reduceFinishTimes: record.reduceFinishes,
        finishedAt: record.finish,
      };
      laneFinished(lane, record.job.id, actuals, now);
      this.rerank(lane);
    }
    if (this.feedback) {
      this.feedback.finished(record, now);
      this.rerankAll();
    }
    this.forget(record.job.id);
  }

  jobKilled(jobId: string, now: number): void {
    for (const lane of this.lanesOfJob(jobId)) {
      laneLeft(lane, jobId, now);
      this.rerank(lane);
    }
    this.forget(jobId);
  }

  /** The queue's jobs in the lane of `container` (every job without lanes). */
  inLane(queue: readonly JobView[], container: 'cpu' | 'gpu' | undefined): readonly JobView[] {
    if (this.layout.mapLanes && container !== undefined)
      return queue.filter((v) => this.mapKindOf.get(v.id) === container);
    if (!this.layout.laneSpecs || container === undefined) return queue;
    const i = this.laneIndex.get(container);
    return queue.filter((v) => this.laneOf.get(v.id) === i);
  }

  /** Refused by every policy, before the policy is asked: no deadline to promise, or no slot to run in. */
  private refusedBeforePolicy(job: TraceJob): string | null {
    if (job.deadline === null && this.caps.promisesDeadlines) return 'no deadline';
    return unrunnableReason(this.cluster, job);
  }

  /** Where a job may be admitted, in the order tried: a lane, and with map lanes a kind of map slot. */
  private candidateLanes(job: TraceJob): LaneChoice[] {
    if (this.layout.mapLanes)
      return lanesForJob(this.cluster, job.type)
        .filter((k) => usableMapSlots(this.mapModel, k) > 0)
        .map((k) => ({ lane: 0, mapKind: k }));
    if (!this.layout.laneSpecs) return [{ lane: 0 }];
    const out: LaneChoice[] = [];
    for (const k of lanesForJob(this.cluster, job.type)) {
      const i = this.laneIndex.get(k);
      if (i !== undefined) out.push({ lane: i });
    }
    return out;
  }

  /** Records the lane that admitted the job (and DC's minimum map tasks for it). */
  private admittedIn(jobId: string, t: LaneTry<Candidate>): void {
    const { lane, index, mapKind, job } = t;
    lane.state = t.result.state;
    this.laneOf.set(jobId, index);
    if (mapKind !== undefined) this.mapKindOf.set(jobId, mapKind);
    this.rerank(lane);
    if (this.caps.dispatch === 'minimum-tasks') {
      const entry = (lane.state as DcState).entries.find((e) => e.job.id === jobId);
      // Never below 1: a job with no input would otherwise never get a slot.
      this.dcJobs.set(jobId, { job, mapSlots: Math.max(1, entry?.mapSlots ?? 1), reduceSlots: null });
    }
  }

  private rankIn(lane: number | undefined, jobId: string): number {
    return lane === undefined
      ? Number.MAX_SAFE_INTEGER
      : (this.lanes[lane]?.rank.get(jobId) ?? Number.MAX_SAFE_INTEGER);
  }

  /** The lanes a call about `jobId` concerns: its own, or every lane for a job never admitted. */
  private lanesOfJob(jobId: string): readonly AdmissionLane[] {
    const i = this.laneOf.get(jobId);
    return i === undefined ? this.lanes : [this.lanes[i] as AdmissionLane];
  }

  private rerank(lane: AdmissionLane): void {
    lane.rank = queueRanks(lane);
  }

  private rerankAll(): void {
    this.lanes.forEach((l) => this.rerank(l));
  }

  private forget(jobId: string): void {
    this.laneOf.delete(jobId);
    this.mapKindOf.delete(jobId);
    this.dcJobs.delete(jobId);
  }
}

/** A rejection's reason with the sharing of its lane named (when part of its guarantee was held). */
function withSharing(reason: string | null, sharing: string | undefined): string | null {
  return reason === null || sharing === undefined ? reason : `${reason}; ${sharing}`;
}

/** A lane's rejection as the job's reason: the lane, who would be late and by how much, whose estimates. */
function rejectionText(t: LaneTry<Candidate>, judged: string): string | null {
  if (t.result.admitted) return null;
  const r = t.result.reason;
  const laneName = t.lane.kind ?? (t.mapKind === undefined ? null : `${t.mapKind} map`);
  const late = r.lateBySeconds !== null ? ` late by ${r.lateBySeconds.toFixed(1)} s` : '';
  return `${laneName ? `${laneName} lane: ` : ''}${r.kind}: ${r.jobId}${late} ${judged}`;
}
