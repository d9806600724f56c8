import {
  containersPerExecutor,
  executorContainerMb,
  plannedExecutors,
  sparkPlan,
  sparkRun,
} from '../../src/core/spark';

const container = { memoryMb: 2048, vcores: 1 };

describe('a Spark app in the job model', () => {
  it("counts an executor's memory with Spark's overhead: max(384 MB, 10 %)", () => {
    expect(executorContainerMb({ executors: 1, executorCores: 1, executorMemoryMb: 512 })).toBe(896);
    expect(executorContainerMb({ executors: 1, executorCores: 1, executorMemoryMb: 8192 })).toBe(9012);
    expect(
      executorContainerMb({
        executors: 1,
        executorCores: 1,
        executorMemoryMb: 512,
        executorMemoryOverheadMb: 100,
      }),
    ).toBe(612);
  });

  it('holds as many containers as its cores or its memory need, the larger (the worked example)', () => {
    const s = { executors: 2, executorCores: 2, executorMemoryMb: 2048 };
    expect(containersPerExecutor(s, container)).toBe(2);
    expect(containersPerExecutor({ ...s, executorCores: 1 }, container)).toBe(2); // 2432 MB
    expect(containersPerExecutor({ ...s, executorCores: 1, executorMemoryMb: 512 }, container)).toBe(1);
    expect(sparkPlan(s, container)).toEqual({
      executors: 2,
      containersPerExecutor: 2,
      maps: 4,
      reduces: 0,
      executorContainerMb: 2432,
      executorsFrom: 'executors',
    });
  });

  it('plans the dynamic maximum when dynamic allocation is on', () => {
    const s = { executors: 1, executorCores: 1, executorMemoryMb: 512, dynamicMax: 5 };
    expect(plannedExecutors(s)).toBe(5);
    expect(sparkPlan(s, container)).toMatchObject({
      executors: 5,
      maps: 5,
      executorsFrom: 'dynamicAllocation.maxExecutors',
    });
  });

  it("takes a run's set-up to its first executor, else to its AM's launch", () => {
    const t = { startedMs: 10_000, finishedMs: 56_000, launchMs: 10_500 };
    expect(sparkRun({ ...t, firstExecutorMs: 36_000 })).toEqual({
      setupSeconds: 26,
      executorSeconds: 20,
      commitSeconds: 0,
    });
    expect(sparkRun(t)).toEqual({ setupSeconds: 0.5, executorSeconds: 45.5, commitSeconds: 0 });
    expect(sparkRun({ ...t, firstExecutorMs: 36_000, lastStageEndMs: 54_000 })).toEqual({
      setupSeconds: 26,
      executorSeconds: 18,
      commitSeconds: 2,
    });
    // Times outside the app's life are not taken.
    expect(sparkRun({ ...t, firstExecutorMs: 70_000, launchMs: 5_000 })).toEqual({
      setupSeconds: 0,
      executorSeconds: 46,
      commitSeconds: 0,
    });
    expect(sparkRun({ startedMs: 0, finishedMs: 5 })).toBeUndefined();
  });
});
