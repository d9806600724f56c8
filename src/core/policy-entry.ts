import type { AdmissionPolicy } from './admission/common/types';
import type { EnergyProfile } from './energy/profile';
import type { PartitionRanking } from './placement/common/locality';
import type { PlacementPolicy } from './placement/common/types';

/**
 * The shape every policy exports from its folder, as a Kubernetes scheduler plugin exports its
 * `Name` and `New`: `name`, the name configuration and the simulator use, and `entry`, its
 * description, its factory (which validates its own arguments) and what it needs and offers.
 * The registry (registry.ts) lists the entries, one line each; the drivers ask it by name.
 */

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
  /** How the live sidecar orders a job's candidate label partitions (core/placement/common/locality.ts). */
  readonly partitionRanking: PartitionRanking;
  /** An adaptive job may run on either kind of container; without, it counts as a GPU job. */
  readonly adaptiveExecution: boolean;
}

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

/** Admission policies as the registry sees them: their state type is the policy's own business. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each policy threads its own state type
export type AnyAdmissionPolicy = AdmissionPolicy<any>;

export type AdmissionEntry<A = AnyAdmissionPolicy> = PolicyEntry<A, AdmissionCapabilities>;

/** An entry, frozen: its capabilities only where they differ from the registry's defaults. */
export function entry<P, C = AdmissionCapabilities & PlacementCapabilities>(
  description: string,
  create: (args: unknown, ctx: PolicyContext) => P,
  capabilities: Partial<C> = {},
): PolicyEntry<P, C> {
  return Object.freeze({ description, create, capabilities: Object.freeze({ ...capabilities }) });
}

/** An admission policy's entry; `capabilitiesOf` when its arguments turn a capability off or on. */
export function admissionEntry(
  description: string,
  create: (args: unknown, ctx: PolicyContext) => AnyAdmissionPolicy,
  capabilities: Partial<AdmissionCapabilities> = {},
  capabilitiesOf?: (args: unknown) => Partial<AdmissionCapabilities>,
): AdmissionEntry {
  const e = entry(description, create, capabilities);
  return capabilitiesOf ? Object.freeze({ ...e, capabilitiesOf }) : e;
}

/** A placement policy's entry. */
export function placementEntry(
  description: string,
  create: (args: unknown, ctx: PolicyContext) => PlacementPolicy<unknown>,
  capabilities: Partial<PlacementCapabilities> = {},
): PlacementEntry {
  return entry(description, create, capabilities);
}

/**
 * A factory taking its own typed arguments, registered as one taking the raw ones: each factory
 * validates what it is given (a ValidationError names each bad field).
 */
export const fromArgs =
  <A>(create: (args: A) => AnyAdmissionPolicy) =>
  (args: unknown): AnyAdmissionPolicy =>
    create(args as A);

/** Locality-first placement policies: the live sidecar ranks partitions by dop (data locality) alone. */
export const LOCALITY_FIRST: Partial<PlacementCapabilities> = Object.freeze({ partitionRanking: 'locality' });
