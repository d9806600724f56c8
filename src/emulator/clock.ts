/**
 * Time for the emulator. The simulated cluster runs `speed` simulated seconds per real second,
 * measured on an injectable real clock: the CLI uses the process clock, tests a ManualClock they
 * move forward themselves (no sleeping).
 *
 * Simulated instants are reported to clients as epoch milliseconds: the cluster started at
 * `startEpochMs` (its clusterTimestamp), and simulated second t is `startEpochMs + 1000 t`.
 */
export interface RealClock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: RealClock = { now: () => Date.now() };

/** A clock that moves only when told to. */
export class ManualClock implements RealClock {
  constructor(private ms: number) {}

  now(): number {
    return this.ms;
  }

  /** Move forward by `ms` real milliseconds. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`a clock only moves forward, got ${ms} ms`);
    this.ms += ms;
  }
}

/** Scaled time: real clock → simulated seconds and simulated epoch milliseconds. */
export class SimTime {
  readonly startEpochMs: number;
  /** Simulated seconds added by `skip` (a control, not a clock). */
  private skipped = 0;

  constructor(
    private readonly clock: RealClock,
    /** Simulated seconds per real second. */
    readonly speed: number,
  ) {
    if (!(speed > 0) || !Number.isFinite(speed)) throw new RangeError(`speed must be positive, got ${speed}`);
    this.startEpochMs = clock.now();
  }

  /** Simulated seconds since the cluster started. */
  seconds(): number {
    return ((this.clock.now() - this.startEpochMs) / 1000) * this.speed + this.skipped;
  }

  /** Jump simulated time forward, as if `seconds` had passed at once. */
  skip(seconds: number): void {
    if (!(seconds >= 0) || !Number.isFinite(seconds))
      throw new RangeError(`can only skip forward, got ${seconds}`);
    this.skipped += seconds;
  }

  /** The simulated instant `seconds` as epoch ms (what the RM reports). */
  toEpochMs(seconds: number): number {
    return Math.round(this.startEpochMs + seconds * 1000);
  }

  /** Epoch ms (a client's deadline or expiry time) as simulated seconds. */
  fromEpochMs(epochMs: number): number {
    return (epochMs - this.startEpochMs) / 1000;
  }

  nowEpochMs(): number {
    return this.toEpochMs(this.seconds());
  }
}
