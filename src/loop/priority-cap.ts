import type { Logger } from '../log';
import type { Ledger } from '../store/types';
import type { ResourceManagerApi } from '../yarn/api';

/** The RM's priority cap as last learned from a capped write (PriorityCap). */
const PRIORITY_CAP_KEY = 'priorityCap';
/** What the sidecar assumes of the cap before the RM has said: Hadoop's documented example. */
const ASSUMED_PRIORITY_CAP = 10;
/** An RM that hides /conf is asked again after this long, not every cycle. */
const ASK_AGAIN_MS = 600_000;

/**
 * yarn.cluster.max-application-priority as the sidecar knows it: configured by the operator,
 * read from the RM's /conf, learned from a write the RM capped (the lowest wins), or assumed
 * until one of those says.
 */
export interface PriorityCap {
  value: number;
  source: 'configured' | 'rm' | 'learned' | 'assumed';
}

/** The cap, and EDF positions as YARN application priorities within it. */
export class PriorityCapTracker {
  private current: PriorityCap;
  /** Warned once: the cap leaves no room for the EDF order. */
  private warnedFlat = false;
  /** When the RM's /conf was last asked for the cap without an answer (epoch ms). */
  private askedMs: number | undefined;
  private knownFromRm = false;

  constructor(
    private readonly configured: number | undefined,
    private readonly ledger: Ledger,
    private readonly log: Logger,
  ) {
    const learned = ledger.getValue<number>(PRIORITY_CAP_KEY);
    this.current =
      configured !== undefined
        ? { value: Math.min(configured, learned ?? configured), source: 'configured' }
        : learned !== undefined
          ? { value: learned, source: 'learned' }
          : { value: ASSUMED_PRIORITY_CAP, source: 'assumed' };
  }

  get cap(): PriorityCap {
    return this.current;
  }

  /**
   * The YARN priority of EDF position p (0 = first): cap - p, at least 1, within the RM's cap.
   * With a cap of 0 (a stock Hadoop) every app runs at 0 and EDF order is not expressible.
   */
  priorityAt(position: number): number {
    const cap = this.current.value;
    return cap <= 0 ? 0 : Math.max(1, cap - position);
  }

  /** The RM set less than was written: it caps priorities lower than the sidecar thought. */
  capped(appId: string, requested: number, got: number): void {
    if (got >= this.current.value) return;
    const before = this.current;
    this.current = { value: Math.max(0, got), source: 'learned' };
    this.ledger.setValue(PRIORITY_CAP_KEY, this.current.value);
    this.log.warn('the RM caps application priorities lower than assumed; using its cap', {
      app: appId,
      requested,
      got,
      before: before.value,
      beforeSource: before.source,
      cap: this.current.value,
    });
    this.warnIfFlat();
  }

  private set(value: number, source: PriorityCap['source']): void {
    const { value: was } = this.current;
    this.current = { value, source };
    if (value !== was) this.log.info('application priority cap', { cap: value, source, before: was });
    this.warnIfFlat();
  }

  private warnIfFlat(): void {
    if (this.current.value > 0 || this.warnedFlat) return;
    this.warnedFlat = true;
    this.log.warn(
      'the RM caps application priorities at 0 (yarn.cluster.max-application-priority): every app runs at priority 0, so the EDF order cannot be given to YARN; set the property (e.g. to 10) in yarn-site.xml to enable it',
      { cap: 0, source: this.current.source },
    );
  }

  /** Reads the cap from the RM's /conf while it is only assumed; a failure leaves it assumed. */
  async readFrom(rm: ResourceManagerApi, now: () => number): Promise<void> {
    if (this.knownFromRm || this.current.source === 'learned' || !rm.maxApplicationPriority) return;
    const nowMs = now();
    if (this.askedMs !== undefined && nowMs - this.askedMs < ASK_AGAIN_MS) return;
    this.askedMs = nowMs;
    let cap: number | undefined;
    try {
      cap = await rm.maxApplicationPriority();
    } catch (err) {
      cap = undefined;
      this.log.debug('the RM did not give its priority cap', { error: String(err) });
    }
    if (cap === undefined) return;
    this.knownFromRm = true;
    const configured = this.configured;
    if (configured !== undefined && configured > cap) {
      this.log.warn("yarn.maxApplicationPriority is above the RM's cap; using the RM's", {
        configured,
        rm: cap,
      });
    }
    if (configured === undefined || cap < configured) this.set(cap, 'rm');
    else if (this.current.source === 'assumed') this.set(configured, 'configured');
  }
}
