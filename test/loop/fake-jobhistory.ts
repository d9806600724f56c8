import type { JobHistoryClient } from '../../src/yarn/jobhistory';
import type { TaskReport } from '../../src/yarn/model';

/** A JobHistory server that knows the tasks of the apps a test finished; counts its reads. */
export class FakeJobHistory {
  readonly tasks = new Map<string, TaskReport[]>();
  reads = 0;

  constructor(private readonly startMs: number) {}

  /** SUCCEEDED tasks of the given seconds each, all starting at the start time (or `startMs`). */
  report(appId: string, maps: number[], reduces: number[], startMs = this.startMs): void {
    const task = (type: 'MAP' | 'REDUCE', s: number, i: number): TaskReport => ({
      id: `task_${type}_${i}`,
      type,
      state: 'SUCCEEDED',
      startTime: startMs,
      finishTime: startMs + Math.round(s * 1000),
      elapsedTime: Math.round(s * 1000),
      progress: 100,
      successfulAttempt: `attempt_${type}_${i}`,
    });
    this.tasks.set(appId, [
      ...maps.map((s, i) => task('MAP', s, i)),
      ...reduces.map((s, i) => task('REDUCE', s, i)),
    ]);
  }

  client(): JobHistoryClient {
    return {
      tasksOfApp: async (appId: string) => {
        this.reads++;
        const t = this.tasks.get(appId);
        if (!t) throw new Error(`404 ${appId}`);
        return t;
      },
    } as unknown as JobHistoryClient;
  }
}
