/**
 * The RM web proxy in front of a running app's MapReduce AM (INDEX.md section 12, A1-A2), read
 * through the real client in JSON and XML: the tasks of a job caught mid-run against the
 * simulated one, and what the proxy answers once there is no AM to reach.
 */
import fs from 'node:fs';
import path from 'node:path';
import { RmHttpError } from '../../src/errors/rm-http';
import { RmRemoteError } from '../../src/errors/rm-remote';
import { MB } from '../../src/sim/model';
import { JobHistoryClient } from '../../src/yarn/jobhistory';
import { appIdToJobId } from '../../src/yarn/ids';
import { client, harness, type Harness } from './helpers';
import { amCommand } from '../../src/yarn/submission';

const SAMPLES = path.join(__dirname, '..', 'fixtures', 'yarn-rm-api', 'jhs-samples');
const MAPS = 60;

async function submit(rm: ReturnType<typeof client>, name: string, applicationType: string, maps: number) {
  const { applicationId } = await rm.newApplication();
  await rm.submitApp({
    applicationId,
    name,
    queue: 'default',
    priority: 1,
    applicationType,
    tags: [`maps:${maps}`, 'reduces:2', `input-bytes:${maps * 64 * MB}`, 'type:cpu'],
    appNodeLabelExpression: '',
    amNodeLabelExpression: '',
    amResource: { memoryMB: 1024, vcores: 1 },
    am: amCommand('true'),
  });
  return applicationId;
}

describe.each(['json', 'xml'] as const)('the AM through the RM proxy (%s)', (format) => {
  let h: Harness;
  let rm: ReturnType<typeof client>;
  let appId: string;
  let sparkId: string;

  beforeAll(async () => {
    h = await harness({ speed: 1 });
    rm = client(h.emu.url, format);
    appId = await submit(rm, 'wide', 'MAPREDUCE', MAPS);
    sparkId = await submit(rm, 'not-mr', 'SPARK', 1);
    // 9 s in: the first wave of 64 MB maps (at most 7.8 s each) has ended, the second runs.
    h.advance(9);
  });
  afterAll(() => h.emu.close());

  it('serves a running job’s tasks as the simulated run has them: SUCCEEDED, RUNNING and SCHEDULED', async () => {
    const am = JobHistoryClient.forRunningApp(rm.transport, appId);
    const tasks = await am.tasksOfApp(appId);
    const emu = h.emu.rm;
    const nowMs = emu.time.nowEpochMs();
    const suffix = appId.slice('application_'.length);
    expect(tasks).toHaveLength(MAPS + 2);
    const done = emu.taskRecordsOf(appId).filter((t) => t.completed);
    const running = emu.engine.runningTasksOf(appId);
    const states = { SUCCEEDED: 0, RUNNING: 0, SCHEDULED: 0 } as Record<string, number>;
    for (const t of tasks) {
      expect(t.id).toMatch(new RegExp(`^task_${suffix}_[mr]_\\d{6}$`));
      const kind = t.type === 'MAP' ? 'map' : 'reduce';
      expect(t.id.includes(kind === 'map' ? '_m_' : '_r_')).toBe(true);
      const index = Number(t.id.slice(t.id.lastIndexOf('_') + 1));
      states[t.state] = (states[t.state] ?? 0) + 1;
      if (t.state === 'SUCCEEDED') {
        const sim = done.find((r) => r.kind === kind && r.index === index)!;
        expect([t.startTime, t.finishTime, t.progress]).toEqual([
          emu.epoch(sim.start),
          emu.epoch(sim.end),
          100,
        ]);
      } else if (t.state === 'RUNNING') {
        const sim = running.find((r) => r.kind === kind && r.index === index)!;
        expect([t.startTime, t.finishTime]).toEqual([emu.epoch(sim.start), 0]);
        expect(t.elapsedTime).toBe(nowMs - t.startTime);
      } else {
        expect(t.state).toBe('SCHEDULED');
        expect([t.startTime, t.finishTime, t.elapsedTime]).toEqual([-1, 0, 0]);
      }
    }
    expect(states.SUCCEEDED).toBe(done.length);
    expect(states.RUNNING).toBe(running.length);
    // The instant was chosen to catch all three.
    expect(Object.values(states).every((n) => n > 0)).toBe(true);
    expect(states.SUCCEEDED + states.RUNNING + states.SCHEDULED).toBe(MAPS + 2);
  });

  it('answers in the shape of the AM sample', async () => {
    const res = await rm.transport.send({
      method: 'GET',
      path: `/proxy/${appId}/ws/v1/mapreduce/jobs/${appIdToJobId(appId)}/tasks`,
    });
    const sampleKeys = Object.keys(
      (
        JSON.parse(fs.readFileSync(path.join(SAMPLES, 'am-job-tasks.response.json'), 'utf8')) as {
          tasks: { task: Array<Record<string, unknown>> };
        }
      ).tasks.task[0]!,
    ).sort();
    if (format === 'json') {
      const body = JSON.parse(res.text) as { tasks: { task: Array<Record<string, unknown>> } };
      for (const t of body.tasks.task) expect(Object.keys(t)).toEqual(expect.arrayContaining(sampleKeys));
    } else {
      expect(res.text).toMatch(
        /^<\?xml version="1.0" encoding="UTF-8" standalone="yes"\?><tasks><task><startTime>/,
      );
      for (const k of sampleKeys) expect(res.text).toContain(`<${k}>`);
    }
  });

  it('filters by type, serves one task and the job, and refuses a wrong job id or type', async () => {
    const am = JobHistoryClient.forRunningApp(rm.transport, appId);
    const jobId = appIdToJobId(appId);
    const maps = await am.tasksOfApp(appId, 'MAP');
    expect(maps).toHaveLength(MAPS);
    expect(new Set(maps.map((t) => t.type))).toEqual(new Set(['MAP']));
    expect((await am.tasksOfApp(appId, 'REDUCE')).map((t) => [t.type, t.state])).toEqual([
      ['REDUCE', 'SCHEDULED'],
      ['REDUCE', 'SCHEDULED'],
    ]);
    const one = maps.find((t) => t.state === 'RUNNING')!;
    expect(await am.task(jobId, one.id)).toEqual(one);
    const job = await am.job(jobId);
    expect(job).toMatchObject({
      id: jobId,
      name: 'wide',
      state: 'RUNNING',
      mapsTotal: MAPS,
      mapsCompleted: maps.filter((t) => t.state === 'SUCCEEDED').length,
      reducesTotal: 2,
      reducesCompleted: 0,
      finishTime: 0,
    });
    expect((await am.jobs()).map((j) => j.id)).toEqual([jobId]);
    await expect(am.tasks('job_1_0001')).rejects.toMatchObject({
      status: 404,
      exception: 'NotFoundException',
    });
    await expect(am.task(jobId, 'task_1_0001_m_000000')).rejects.toBeInstanceOf(RmRemoteError);
    const bad = await rm.transport
      .send({
        method: 'GET',
        path: `/proxy/${appId}/ws/v1/mapreduce/jobs/${jobId}/tasks`,
        query: { type: 'MAP' },
      })
      .catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 400, exception: 'BadRequestException' });
  });

  it('answers 404 for an app it does not know and for an AM that is not MapReduce', async () => {
    const unknown = await JobHistoryClient.forRunningApp(rm.transport, 'application_1_0999')
      .tasksOfApp('application_1_0999')
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(RmHttpError);
    expect(unknown).toMatchObject({ status: 404 });
    expect((unknown as RmHttpError).text).toContain('could not be found in RM or history server');
    expect((await rm.app(sparkId)).state).toBe('RUNNING');
    const spark = await JobHistoryClient.forRunningApp(rm.transport, sparkId)
      .tasksOfApp(sparkId)
      .catch((e: unknown) => e);
    expect(spark).toMatchObject({ status: 404, text: 'Not Found' });
  });

  it('redirects to the history server once the app has ended, as Hadoop’s proxy does', async () => {
    for (let k = 0; k < 20 && (await rm.app(appId)).state !== 'FINISHED'; k++) h.advance(30);
    expect((await rm.app(appId)).state).toBe('FINISHED');
    const jobId = appIdToJobId(appId);
    const err = await JobHistoryClient.forRunningApp(rm.transport, appId)
      .tasksOfApp(appId, 'MAP')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmHttpError);
    expect(err).toMatchObject({ status: 302 });
    const res = await fetch(`${h.emu.url}/proxy/${appId}/ws/v1/mapreduce/jobs/${jobId}/tasks?type=m`, {
      redirect: 'manual',
    });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(
      `${h.emu.jhsUrl}/jobhistory/job/${jobId}/ws/v1/mapreduce/jobs/${jobId}/tasks?type=m`,
    );
  });
});
