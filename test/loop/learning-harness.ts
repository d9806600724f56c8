import { SidecarMetrics } from '../../src/metrics';
import { parseSubmission } from '../../src/model/deadline-submission';
import { buildConfig } from '../../src/config/load';
import { defaultRegistry } from '../../src/core/registry';
import { silentLogger } from '../../src/log';
import { Sidecar } from '../../src/loop/sidecar';
import type { Ledger } from '../../src/store/types';
import { SLEEP_AM } from '../yarn-submission';
import { FakeJobHistory } from './fake-jobhistory';
import { FakeRm } from './fake-rm';

export const T0 = Date.parse('2026-11-22T08:00:00Z');

/**
 * A live sidecar over a fake RM and JobHistory server, for the tests of learning: `submit` a
 * job, or `runJob` one from submission to its end with the task times the JobHistory server
 * then reports (it runs for 60 s and ends 240 s later; its tasks start at T0, or `taskStartMs`).
 */
export function learningSidecar(ledger: Ledger, config: Record<string, unknown>) {
  const rm = new FakeRm();
  const jhs = new FakeJobHistory(T0);
  let now = T0;
  let n = 0;
  const sidecar = new Sidecar({
    config: buildConfig(config),
    rm: rm.api(),
    jobHistory: jhs.client(),
    ledger,
    registry: defaultRegistry(),
    metrics: new SidecarMetrics(),
    logger: silentLogger(),
    now: () => now,
    newId: () => `dl-${ledger.listJobs({}).total + ++n}`,
  });
  const submit = async (body: Record<string, unknown>) => {
    const res = await sidecar.submit(
      parseSubmission({ name: 'job', user: 'alice', yarnSubmission: SLEEP_AM, reduces: 1, ...body }, now),
      { submitter: 'ci', requestHash: JSON.stringify(body) },
    );
    return res as { status: number; body: Record<string, unknown> & { id: string } };
  };
  const runJob = async (
    body: Record<string, unknown>,
    mapSeconds: number[],
    reduceSeconds: number[],
    taskStartMs?: number,
  ) => {
    const res = await submit({ deadline: 3600, ...body });
    expect(res.status).toBe(201);
    await sidecar.runOnce();
    const appId = ledger.getJob(res.body.id)!.appId!;
    jhs.report(appId, mapSeconds, reduceSeconds, taskStartMs);
    rm.run(appId);
    now += 60_000;
    await sidecar.runOnce();
    rm.finish(appId, now + 240_000);
    now += 300_000;
    await sidecar.runOnce();
    return res;
  };
  /**
   * A job from submission to its end on a timeline: its app starts `startAfter` s after the
   * answer, its maps `setup` s later and its reduces when the longest map ends, and the app ends
   * `commit` s after the last task. Answers the submission's answer and the app's finish (ms).
   */
  const runTimed = async (
    body: Record<string, unknown>,
    t: { startAfter?: number; setup: number; maps: number[]; reduces: number[]; commit: number },
  ) => {
    const res = await submit({ deadline: 3600, ...body });
    expect(res.status).toBe(201);
    await sidecar.runOnce();
    const appId = ledger.getJob(res.body.id)!.appId!;
    const started = now + (t.startAfter ?? 0) * 1000;
    const mapsAt = started + t.setup * 1000;
    const reducesAt = mapsAt + Math.max(0, ...t.maps) * 1000;
    const last = Math.max(
      reducesAt,
      ...t.maps.map((s) => mapsAt + s * 1000),
      ...t.reduces.map((s) => reducesAt + s * 1000),
    );
    jhs.report(appId, t.maps, t.reduces, mapsAt, reducesAt);
    rm.run(appId, started);
    await sidecar.runOnce();
    const finished = Math.round(last + t.commit * 1000);
    now = finished;
    rm.finish(appId, finished);
    await sidecar.runOnce();
    return { res, finished };
  };
  return {
    sidecar,
    rm,
    submit,
    runJob,
    runTimed,
    now: () => now,
    advance: (ms: number) => void (now += ms),
  };
}
