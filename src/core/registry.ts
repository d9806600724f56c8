import { ValidationError } from '../errors/validation';
import { dc, fifoAll, rtmr, rtmrFifo, rtmrNoFeedback, type AdmissionPolicy } from './admission';
import { edfAllEntry } from './admission/edf-all';
import { createYarnGreedy } from './admission/yarn-greedy';
import type { EnergyProfile } from './energy/profile';
import { createAsrpt } from './placement/asrpt';
import { createDelay } from './placement/delay';
import { createEfh } from './placement/efh';
import { createEfhNoAe } from './placement/efh-no-ae';
import { createFairDelay } from './placement/fair-delay';
import { createFairMatchmaking } from './placement/fair-matchmaking';
import { createFifo } from './placement/fifo';
import { createIdealEnergy } from './placement/ideal-energy';
import { createJobSize } from './placement/job-size';
import { createMatchmaking } from './placement/matchmaking';
import type { PartitionRanking } from './placement/locality';
import type { PlacementPolicy } from './placement/types';

/** What a factory may need besides its own arguments: values validated elsewhere at start. */
export interface PolicyContext {
  readonly energyProfile?: EnergyProfile;
}

export type PolicyKind = 'placement' | 'admission';

/**
 * What an admission policy needs and offers, so that drivers (the simulator, the live loop) ask
 * the registry instead of comparing names. Every policy runs in lanes (src/core/lanes): one
 * instance per kind of container or label partition.
 */
export interface AdmissionCapabilities {
  /** False for a baseline that admits every job: no deadline is promised (a job may have none). */
  readonly promisesDeadlines: boolean;
  /** The order placement serves admitted jobs in: the policy's queue (EDF, ...) or arrival. */
  readonly queueOrder: 'policy' | 'arrival';
  /**
   * Its own dispatcher, naming the job for each free slot: `reservation` (RTMR, Alg. 5.4: reduce
   * slots held back for earlier jobs), `minimum-tasks` (Kc and Anyanwu, DC, III), or none.
   */
  readonly dispatch: 'reservation' | 'minimum-tasks' | null;
  /** Its arguments: worst-case `estimates` (RTMR's), or `unit-costs` (DC's c_m, c_r, filter ratio). */
  readonly args: 'estimates' | 'unit-costs';
  /** The estimate model it is defined with when it has one of its own (DC: the papers'). */
  readonly estimateModel?: 'paper';
  /**
   * Rebuilds its state from a snapshot of the running cluster (AM task progress, overruns); its
   * lane state is then RTMR's slot vectors, whose committed work the sidecar shows.
   */
  readonly snapshotRebuild: boolean;
  /** Has a feedback controller: a finished job's actual task times update the vectors (SATU). */
  readonly feedback: boolean;
  /** A rejection names the earliest deadline that would be admitted now. */
  readonly earliestDeadline: boolean;
  /** Can hold capacity with a YARN reservation (enforcement.reservations) shaped by its estimates. */
  readonly reservations: boolean;
  /**
   * Its test runs all of a job's reduces at once (Kc and Anyanwu, DC): a job with more reduces than
   * the cluster has reduce slots lies outside its model (the RTMR paper, V, leaves such jobs out of
   * DC's runs).
   */
  readonly reducesAtOnce: boolean;
  /**
   * The policy with the same test on arrival order, planned with where YARN cannot be given the
   * queue's order: an RM whose application priority cap is 0 starts a queue's apps in the order
   * they came, so a lane planned in EDF order would promise a late arrival a place ahead that
   * YARN never gives it. Null: the policy is in arrival order already, or has no such twin.
   */
  readonly arrivalOrderTwin: string | null;
}

/** What a placement policy needs and offers. */
export interface PlacementCapabilities {
  /** Needs the energy profile (PolicyContext.energyProfile). */
  readonly energyProfile: boolean;
  /** How the live sidecar orders a job's candidate label partitions (core/placement/locality.ts). */
  readonly partitionRanking: PartitionRanking;
  /** An adaptive job may run on either kind of container; without, it counts as a GPU job. */
  readonly adaptiveExecution: boolean;
}

const ADMISSION_DEFAULTS: AdmissionCapabilities = Object.freeze({
  arrivalOrderTwin: null,
  promisesDeadlines: true,
  queueOrder: 'policy',
  dispatch: null,
  args: 'estimates',
  snapshotRebuild: false,
  feedback: false,
  earliestDeadline: false,
  reservations: false,
  reducesAtOnce: false,
});

const PLACEMENT_DEFAULTS: PlacementCapabilities = Object.freeze({
  energyProfile: false,
  partitionRanking: 'given',
  adaptiveExecution: true,
});

export interface PolicyEntry<P, C = unknown> {
  readonly description: string;
  /** Builds the policy from its raw arguments, validating them (a ValidationError names each bad field). */
  readonly create: (args: unknown, ctx: PolicyContext) => P;
  /** What it needs and offers (AdmissionCapabilities, PlacementCapabilities); defaults where not said. */
  readonly capabilities: Partial<C>;
  /** What its arguments turn off or on (RTMR's `feedback: false`), over `capabilities`. */
  readonly capabilitiesOf?: (args: unknown) => Partial<C>;
}

export type PlacementEntry = PolicyEntry<PlacementPolicy<unknown>, PlacementCapabilities>;

function place(
  description: string,
  create: (args: unknown, ctx: PolicyContext) => PlacementPolicy<unknown>,
  capabilities: Partial<PlacementCapabilities> = {},
): PlacementEntry {
  return entry(description, create, capabilities);
}

/** Locality-first policies: the live sidecar ranks partitions by dop (data locality) alone. */
const LOCALITY: Partial<PlacementCapabilities> = { partitionRanking: 'locality' };

/**
 * Every placement policy, by the name configuration and the simulator use. Written out here,
 * one line each, rather than filled in by importing modules.
 */
export const placementEntries: Readonly<Record<string, PlacementEntry>> = Object.freeze({
  fifo: place(
    'Hadoop FIFO: local tasks of the first job, else one non-local task per heartbeat',
    (a) => createFifo(a),
    LOCALITY,
  ),
  delay: place(
    'delay scheduling (skip a job without a local task for up to D) on FIFO order',
    (a) => createDelay(a),
    LOCALITY,
  ),
  matchmaking: place(
    'matchmaking with locality markers on FIFO order (He, dissertation, Alg. 1-2)',
    (a) => createMatchmaking(a),
    LOCALITY,
  ),
  'fair-delay': place('delay scheduling on fair-share order', (a) => createFairDelay(a), LOCALITY),
  'fair-matchmaking': place('matchmaking on fair-share order', (a) => createFairMatchmaking(a), LOCALITY),
  efh: place(
    'EFH energy-efficient two-level scheduler with adaptive execution (He, dissertation, Tables 6.2, 6.4)',
    (a, c) => createEfh(a, c),
    { energyProfile: true, partitionRanking: 'fitness' },
  ),
  'efh-no-ae': place(
    'EFH without adaptive execution (He, dissertation, Tables 6.3, 6.4)',
    (a, c) => createEfhNoAe(a, c),
    { energyProfile: true, partitionRanking: 'fitness', adaptiveExecution: false },
  ),
  'ideal-energy': place(
    'every map task on its least-energy container type only (He, dissertation, section 6.3.3.3)',
    (a, c) => createIdealEnergy(a, c),
    { energyProfile: true, partitionRanking: 'energy' },
  ),
  asrpt: place('available shortest remaining processing time (Zheng et al., ASRPT, Alg. 1)', (a) =>
    createAsrpt(a),
  ),
  'job-size': place('job-size based two-tier scheduler (Madhumala and Ravichandra, job size)', (a) =>
    createJobSize(a),
  ),
});

export interface PolicyRegistry<A = unknown> {
  readonly placement: Readonly<Record<string, PlacementEntry>>;
  readonly admission: Readonly<Record<string, AdmissionEntry<A>>>;
  names(kind: PolicyKind): string[];
  /**
   * What the admission policy `name` needs and offers (an unknown name is a ValidationError);
   * with its arguments, as they configure it (RTMR with `feedback: false` has no feedback).
   */
  admissionCapabilities(name: string, args?: unknown): AdmissionCapabilities;
  /** What the placement policy `name` needs and offers (an unknown name is a ValidationError). */
  placementCapabilities(name: string): PlacementCapabilities;
  createPlacement(name: string, args?: unknown, ctx?: PolicyContext): PlacementPolicy<unknown>;
  createAdmission(name: string, args?: unknown, ctx?: PolicyContext): A;
}

/**
 * Builds the registry: the placement policies above plus the admission policies given.
 * The admission core (src/core/admission) adds its entries with one line each in
 * `defaultRegistry` below, e.g. `rtmr: entry('...', (a) => createRtmr(a))`.
 */
export function buildRegistry<A = unknown>(
  admission: Readonly<Record<string, AdmissionEntry<A>>> = {},
  placement: Readonly<Record<string, PlacementEntry>> = placementEntries,
): PolicyRegistry<A> {
  const clash = Object.keys(admission).filter((n) => n in placement);
  if (clash.length > 0) {
    throw new ValidationError(
      clash.map((n) => ({ path: `registry.${n}`, message: 'named both as placement and admission policy' })),
    );
  }
  const frozenAdmission = Object.freeze({ ...admission });
  const frozenPlacement = Object.freeze({ ...placement });

  function lookup<P, C>(
    kind: PolicyKind,
    table: Readonly<Record<string, PolicyEntry<P, C>>>,
    name: string,
  ): PolicyEntry<P, C> {
    if (Object.prototype.hasOwnProperty.call(table, name)) return table[name];
    const other = kind === 'placement' ? frozenAdmission : frozenPlacement;
    const hint = Object.prototype.hasOwnProperty.call(other, name)
      ? ` ("${name}" is ${kind === 'placement' ? 'an admission' : 'a placement'} policy)`
      : '';
    const known = Object.keys(table).sort();
    throw new ValidationError([
      {
        path: `${kind}.policy`,
        message: `unknown ${kind} policy "${name}"${hint}; known: ${known.length > 0 ? known.join(', ') : '(none registered)'}`,
      },
    ]);
  }

  return Object.freeze({
    placement: frozenPlacement,
    admission: frozenAdmission,
    names: (kind: PolicyKind) => Object.keys(kind === 'placement' ? frozenPlacement : frozenAdmission).sort(),
    createPlacement: (name: string, args: unknown = {}, ctx: PolicyContext = {}) =>
      lookup('placement', frozenPlacement, name).create(args, ctx),
    createAdmission: (name: string, args: unknown = {}, ctx: PolicyContext = {}) =>
      lookup('admission', frozenAdmission, name).create(args, ctx),
    admissionCapabilities: (name: string, args?: unknown) => {
      const e = lookup('admission', frozenAdmission, name);
      return {
        ...ADMISSION_DEFAULTS,
        ...e.capabilities,
        ...(args === undefined ? {} : e.capabilitiesOf?.(args)),
      };
    },
    placementCapabilities: (name: string) => ({
      ...PLACEMENT_DEFAULTS,
      ...lookup('placement', frozenPlacement, name).capabilities,
    }),
  });
}

/** Admission policies as the registry sees them: their state type is the policy's own business. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each policy threads its own state type
export type AnyAdmissionPolicy = AdmissionPolicy<any>;

function admit(
  description: string,
  create: (args: unknown, ctx: PolicyContext) => AnyAdmissionPolicy,
  capabilities: Partial<AdmissionCapabilities> = {},
  capabilitiesOf?: (args: unknown) => Partial<AdmissionCapabilities>,
): AdmissionEntry {
  const e = entry(description, create, capabilities);
  return capabilitiesOf ? Object.freeze({ ...e, capabilitiesOf }) : e;
}

/**
 * A factory taking its own typed arguments, registered as one taking the raw ones: each factory
 * validates what it is given (a ValidationError names each bad field).
 */
const fromArgs =
  <A>(create: (args: A) => AnyAdmissionPolicy) =>
  (args: unknown): AnyAdmissionPolicy =>
    create(args as A);

/** RTMR's feedback controller can be turned off by its arguments (`feedback: false`). */
const feedbackArg = (args: unknown): Partial<AdmissionCapabilities> =>
  (args as { feedback?: unknown } | null)?.feedback === false ? { feedback: false } : {};

/** RTMR and the policies built on its slot vectors (createRtmrPolicy). */
const VECTORS: Partial<AdmissionCapabilities> = {
  dispatch: 'reservation',
  snapshotRebuild: true,
  feedback: true,
  earliestDeadline: true,
  reservations: true,
};
/** RTMR's EDF queue: where YARN cannot be given that order, the same test on a FIFO queue. */
const ON_EDF_VECTORS: Partial<AdmissionCapabilities> = { ...VECTORS, arrivalOrderTwin: 'rtmr-fifo' };
/** An RTMR admission test on the slot vectors, its feedback on unless its arguments turn it off. */
const onVectors = <A>(description: string, create: (args: A) => AnyAdmissionPolicy): AdmissionEntry =>
  admit(description, fromArgs(create), VECTORS, feedbackArg);

/** Baselines that admit every job and only estimate its finish on the vectors. */
const ADMIT_ALL: Partial<AdmissionCapabilities> = {
  promisesDeadlines: false,
  snapshotRebuild: true,
  feedback: true,
};

/**
 * The admission policies of src/core/admission, one registration each. Each factory validates
 * its own arguments (a ValidationError names each bad field).
 */
export const admissionEntries: Readonly<Record<string, AdmissionEntry<AnyAdmissionPolicy>>> = Object.freeze({
  rtmr: admit(
    'RTMR: EDF admission on slot vectors, with feedback (He et al., RTMR)',
    fromArgs(rtmr),
    ON_EDF_VECTORS,
    feedbackArg,
  ),
  'rtmr-no-feedback': admit('RTMR without the feedback controller', fromArgs(rtmrNoFeedback), {
    ...ON_EDF_VECTORS,
    feedback: false,
  }),
  dc: admit('Deadline Constraint scheduler, a baseline (Kc and Anyanwu, DC)', fromArgs(dc), {
    dispatch: 'minimum-tasks',
    args: 'unit-costs',
    estimateModel: 'paper',
    earliestDeadline: true,
    reducesAtOnce: true,
  }),
  'rtmr-fifo': onVectors('RTMR admission on a FIFO queue instead of EDF', rtmrFifo),
  'fifo-all': admit('admit every job, FIFO, with estimated finish times', fromArgs(fifoAll), {
    ...ADMIT_ALL,
    queueOrder: 'arrival',
  }),
  'edf-all': edfAllEntry,
  'yarn-greedy': admit(
    "YARN ReservationSystem's GreedyReservationAgent as an admission test",
    (a) => createYarnGreedy(a),
    { earliestDeadline: true },
  ),
});

/** The registry the sidecar and the simulator start with: every placement and admission policy. */
export function defaultRegistry(): PolicyRegistry<AnyAdmissionPolicy> {
  return buildRegistry(admissionEntries);
}

export type AdmissionEntry<A = AnyAdmissionPolicy> = PolicyEntry<A, AdmissionCapabilities>;

export function entry<P, C = AdmissionCapabilities & PlacementCapabilities>(
  description: string,
  create: (args: unknown, ctx: PolicyContext) => P,
  capabilities: Partial<C> = {},
): PolicyEntry<P, C> {
  return Object.freeze({ description, create, capabilities: Object.freeze({ ...capabilities }) });
}
