import { ValidationError } from '../../errors/validation';
import { taskEstimates, validateEstimates, type Estimates } from '../estimates';
import { absoluteDeadline, validateJob, type DeadlineJob } from '../job';
import { validateSlotModel, type SlotModel } from '../slots/model';
import type { AdmissionPolicy, AdmissionResult, JobActuals } from './types';

/**
 * `yarn-greedy`: the admission test YARN itself offers, as a baseline beside RTMR.
 *
 * YARN's ReservationSystem (Rayon) admits a reservation when its planning agent can fit the
 * reservation's stages into the plan's free capacity between arrival and deadline. The
 * default agent, GreedyReservationAgent, is an IterativePlanner that walks the stages of an
 * R_ORDER reservation from the last to the first (reduces, then maps), giving each stage the
 * interval [arrival, start of the stage after it], and allocates each stage with the greedy
 * rule: repeatedly place as many containers as fit over the latest window of the stage's
 * duration ending at the current stage deadline, then move the deadline left to the most
 * constraining instant and try again (StageAllocatorGreedy). The reservation is accepted
 * only if every stage is fully placed; its allocations then occupy the plan.
 *
 * Mapped onto a MapReduce job J = (A, D, M, R, delta):
 *  - stage 1 = M map containers of eps^m seconds each, stage 2 = R reduce containers of
 *    eps^r seconds each (the same worst-case task estimates RTMR uses, seed 000 IV.A);
 *  - the plan is a step function of containers in use over time, one per lane: with the
 *    `mr1` slot model map stages use the map-slot lane and reduce stages the reduce-slot lane
 *    (the plan's capacity per lane is the slot count); with `unified` one lane of containers;
 *  - time is discretised in plan steps (`planStepSeconds`, YARN's plan step): durations
 *    rounded up, the deadline rounded down, the earliest start rounded up, as
 *    IterativePlanner does;
 *  - the earliest start of every stage is max(A, now) (StageEarliestStartByJobArrival).
 *
 * Admitted jobs are dispatched in EDF order (the same queue RTMR uses), and a finished job
 * leaves its reservation in the plan until it expires (YARN does not shrink a reservation
 * when its job ends early); a killed job's reservation is deleted.
 *
 * Worked example (a test): 4 map slots, 1 reduce slot, step 1 s. J1 = 4 maps x 10 s,
 * 1 reduce x 5 s, A = 0, D = 20: the reduce goes to [15, 20), the four maps to [5, 15).
 * J2, the same job with D = 30: reduce at [25, 30), maps at [15, 25): admitted. J3, the same
 * job with D = 20 again: the reduce slot is taken in [15, 20), so its reduce moves to
 * [10, 15); its maps would then need [0, 10), but J1's maps hold every map slot in [5, 10):
 * rejected. Where the greedy plan differs from RTMR is a job that fits only if an earlier
 * reservation were moved: the agent never moves one (the test "left-packed vs right-packed").
 */

export interface YarnGreedyArgs {
  slotModel: SlotModel;
  estimates: Estimates;
  /** The plan's time step, seconds (YARN's reservation plan step; default 1 s). */
  planStepSeconds: number;
}

interface Allocation {
  readonly lane: number;
  /** [fromStep, toStep) in plan steps. */
  readonly from: number;
  readonly to: number;
  readonly count: number;
}

interface Reservation {
  readonly job: DeadlineJob;
  readonly allocations: readonly Allocation[];
  readonly estimatedFinish: number;
  readonly started: boolean;
}

export interface YarnGreedyState {
  readonly kind: 'yarn-greedy';
  readonly args: YarnGreedyArgs;
  /** Containers in use per plan step, one array per lane (index = step). */
  readonly plan: readonly Int32Array[];
  /** Admitted, unfinished jobs in EDF order. */
  readonly queue: readonly Reservation[];
}

export function validateYarnGreedyArgs(raw: unknown, path = 'admission.args'): YarnGreedyArgs {
  const rec = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const slotModel = validateSlotModel(rec.slotModel, `${path}.slotModel`);
  const estimates = validateEstimates(rec.estimates, `${path}.estimates`);
  const step = rec.planStepSeconds ?? 1;
  if (typeof step !== 'number' || !Number.isFinite(step) || step <= 0) {
    throw new ValidationError([{ path: `${path}.planStepSeconds`, message: 'must be a number > 0' }]);
  }
  return Object.freeze({ slotModel, estimates, planStepSeconds: step });
}

function capacities(model: SlotModel): number[] {
  return model.name === 'mr1' ? [model.mapSlots, model.reduceSlots] : [model.containers];
}

function reduceLaneOf(model: SlotModel): number {
  return model.name === 'mr1' ? 1 : 0;
}

/** A read view of the plan plus this planning round's tentative allocations. */
export class Workspace {
  private readonly extra = new Map<number, Map<number, number>>();
  constructor(
    private readonly plan: readonly Int32Array[],
    private readonly caps: readonly number[],
  ) {}

  available(lane: number, step: number): number {
    const used = (this.plan[lane] as Int32Array)[step] ?? 0;
    return (this.caps[lane] as number) - used - (this.extra.get(lane)?.get(step) ?? 0);
  }

  add(a: Allocation): void {
    let m = this.extra.get(a.lane);
    if (!m) this.extra.set(a.lane, (m = new Map()));
    for (let s = a.from; s < a.to; s++) m.set(s, (m.get(s) ?? 0) + a.count);
  }
}

/**
 * StageAllocatorGreedy: place `containers` containers of `dur` steps within
 * [earliest, deadline), right to left. Returns the allocations, or null when the stage does
 * not fit (the caller then rejects the whole reservation).
 */
export function allocateStage(
  ws: Workspace,
  lane: number,
  containers: number,
  dur: number,
  earliest: number,
  deadline: number,
): Allocation[] | null {
  const out: Allocation[] = [];
  let toPlace = containers;
  let stageDeadline = deadline;
  while (toPlace > 0 && stageDeadline - dur >= earliest) {
    // Scan the window [stageDeadline - dur, stageDeadline) from the right; remember the
    // smallest availability and the leftmost instant where it occurs ("minPoint").
    let maxGang = toPlace;
    let minPoint = stageDeadline;
    for (let t = stageDeadline - 1; t >= stageDeadline - dur && maxGang > 0; t--) {
      const fit = Math.min(toPlace, Math.max(0, ws.available(lane, t)));
      if (fit <= maxGang) {
        maxGang = fit;
        minPoint = t;
      }
    }
    if (maxGang > 0) {
      const a: Allocation = { lane, from: stageDeadline - dur, to: stageDeadline, count: maxGang };
      ws.add(a);
      out.push(a);
      toPlace -= maxGang;
    }
    // Nothing right of the most constraining instant can take a whole container any more.
    stageDeadline = minPoint;
  }
  return toPlace === 0 ? out : null;
}

function planWith(
  plan: readonly Int32Array[],
  allocations: readonly Allocation[],
  sign: 1 | -1,
): Int32Array[] {
  const next = plan.map((l) => l);
  const touched = new Set<number>();
  for (const a of allocations) {
    if (!touched.has(a.lane)) {
      const old = next[a.lane] as Int32Array;
      const need = Math.max(old.length, a.to);
      const copy = new Int32Array(need);
      copy.set(old);
      next[a.lane] = copy;
      touched.add(a.lane);
    } else if ((next[a.lane] as Int32Array).length < a.to) {
      const old = next[a.lane] as Int32Array;
      const copy = new Int32Array(a.to);
      copy.set(old);
      next[a.lane] = copy;
    }
    const lane = next[a.lane] as Int32Array;
    for (let s = a.from; s < a.to; s++) lane[s] = (lane[s] as number) + sign * a.count;
  }
  return next;
}

function edfInsert(
  queue: readonly Reservation[],
  r: Reservation,
): { queue: Reservation[]; position: number } {
  const d = absoluteDeadline(r.job);
  let i = queue.length;
  // Never ahead of a started job (no preemption), otherwise by deadline, ties by arrival.
  while (i > 0) {
    const prev = queue[i - 1] as Reservation;
    if (prev.started || absoluteDeadline(prev.job) <= d) break;
    i--;
  }
  const out = queue.slice();
  out.splice(i, 0, r);
  return { queue: out, position: i };
}

export function createYarnGreedy(rawArgs: unknown): AdmissionPolicy<YarnGreedyState> {
  const args = validateYarnGreedyArgs(rawArgs);
  const caps = capacities(args.slotModel);
  const step = args.planStepSeconds;

  const plan = (
    state: YarnGreedyState,
    job: DeadlineJob,
    now: number,
  ): { allocations: Allocation[]; finish: number } | null => {
    const ws = new Workspace(state.plan, caps);
    const est = taskEstimates(args.estimates, job);
    const earliest = Math.ceil(Math.max(job.arrival, now) / step - 1e-9);
    const deadline = Math.floor(absoluteDeadline(job) / step + 1e-9);
    const mapDur = Math.max(1, Math.ceil(est.mapSeconds / step - 1e-9));
    const reduceDur = Math.max(1, Math.ceil(est.reduceSeconds / step - 1e-9));
    // IterativePlanner: stages in reverse order; each stage's deadline is the start of the next.
    const reduces = allocateStage(
      ws,
      reduceLaneOf(args.slotModel),
      job.reduces,
      reduceDur,
      earliest,
      deadline,
    );
    if (!reduces) return null;
    const reduceStart = Math.min(...reduces.map((a) => a.from));
    const maps = allocateStage(ws, 0, job.maps, mapDur, earliest, reduceStart);
    if (!maps) return null;
    const finish = Math.max(...reduces.map((a) => a.to)) * step;
    return { allocations: [...maps, ...reduces], finish };
  };

  return {
    name: 'yarn-greedy',
    initialState: () => ({ kind: 'yarn-greedy', args, plan: caps.map(() => new Int32Array(0)), queue: [] }),

    admit(state, rawJob, now): AdmissionResult<YarnGreedyState> {
      const job = validateJob(rawJob);
      const placed = plan(state, job, now);
      if (!placed) {
        return {
          admitted: false,
          jobId: job.id,
          reason: {
            kind: 'new-job-misses',
            jobId: job.id,
            deadline: absoluteDeadline(job),
            estimatedFinish: null,
            lateBySeconds: null,
          },
          earliestAdmissibleDeadline: null,
          state,
        };
      }
      const reservation: Reservation = {
        job,
        allocations: placed.allocations,
        estimatedFinish: placed.finish,
        started: false,
      };
      const { queue, position } = edfInsert(state.queue, reservation);
      return {
        admitted: true,
        jobId: job.id,
        estimatedFinish: placed.finish,
        position,
        state: { ...state, plan: planWith(state.plan, placed.allocations, 1), queue },
      };
    },

    markStarted(state, jobId) {
      return { ...state, queue: state.queue.map((r) => (r.job.id === jobId ? { ...r, started: true } : r)) };
    },

    complete(state, jobId, _actuals: JobActuals) {
      // The reservation stays in the plan until it expires: YARN keeps it to its end time.
      return { ...state, queue: state.queue.filter((r) => r.job.id !== jobId) };
    },

    leave(state, jobId) {
      const r = state.queue.find((x) => x.job.id === jobId);
      if (!r) return state;
      return {
        ...state,
        plan: planWith(state.plan, r.allocations, -1),
        queue: state.queue.filter((x) => x.job.id !== jobId),
      };
    },

    queue: (state) => state.queue.map((r) => r.job),
  };
}
