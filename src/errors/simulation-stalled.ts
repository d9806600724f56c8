import { SidecarError, type SidecarErrorOptions } from './base';

/**
 * A simulation in which no event can make progress any more: jobs are waiting, no task runs,
 * no job is due to arrive, and no slot has been given out for `idleSeconds` of simulated time
 * (the nodes would heartbeat for ever). Raised instead of running without end; `waiting` names
 * each job left with its pending tasks.
 */
export class SimulationStalledError extends SidecarError {
  static override readonly code = 'SIMULATION_STALLED';
  static override readonly httpStatus = 500;
  readonly now: number;
  readonly waiting: ReadonlyArray<{ id: string; pendingMaps: number; pendingReduces: number }>;

  constructor(
    details: {
      now: number;
      idleSeconds: number;
      waiting: ReadonlyArray<{ id: string; pendingMaps: number; pendingReduces: number }>;
    },
    options: SidecarErrorOptions = {},
  ) {
    const shown = details.waiting
      .slice(0, 5)
      .map((w) => `${w.id} (${w.pendingMaps} maps, ${w.pendingReduces} reduces pending)`)
      .join(', ');
    const more = details.waiting.length > 5 ? ` and ${details.waiting.length - 5} more` : '';
    super(
      `simulation stalled at ${details.now.toFixed(1)} s: no task ran for ${details.idleSeconds} s and no event can start one; waiting: ${shown}${more}`,
      { ...options, context: { ...options.context, ...details } },
    );
    this.now = details.now;
    this.waiting = details.waiting;
  }
}
