/**
 * A real MapReduce job (Hadoop's SleepJob: 2 maps, 1 reduce, whose tasks sleep) submitted as a
 * client would, then read back from the RM and the JobHistory server, where the sidecar reads
 * finished jobs' task costs.
 */
import { at, list, read, runHadoopClient, sharedCluster, waitFor } from './cluster';

const hadoop = sharedCluster();

describe('a real SleepJob', () => {
  let appId: string;

  beforeAll(async () => {
    // A tag of its own finds this job's app among the shared cluster's others (SleepJob names
    // every job "Sleep job"); ToolRunner takes it as a generic -D option.
    const tag = `sleep-job-test-${process.pid}-${Date.now()}`;
    const run = await runHadoopClient(
      hadoop,
      [
        'org.apache.hadoop.mapreduce.SleepJob',
        `-Dmapreduce.job.tags=${tag}`,
        ...['-m', '2', '-r', '1', '-mt', '2000', '-rt', '1000'],
      ],
      170_000,
    );
    if (run.code !== 0) throw new Error(`SleepJob exited with ${run.code}:\n${run.stderr.slice(-3000)}`);
    const apps = list(at(await read(`${hadoop.rm}/ws/v1/cluster/apps?applicationTags=${tag}`), 'apps.app'));
    expect(apps).toHaveLength(1);
    appId = String(at(apps[0], 'id'));
  }, 180_000);

  it('SUCCEEDED on the RM, in the default queue, as a MAPREDUCE app', async () => {
    const app = at(await read(`${hadoop.rm}/ws/v1/cluster/apps/${appId}`), 'app');
    expect(at(app, 'name')).toBe('Sleep job');
    expect(at(app, 'state')).toBe('FINISHED');
    expect(at(app, 'finalStatus')).toBe('SUCCEEDED');
    expect(at(app, 'queue')).toBe('root.default');
    expect(at(app, 'applicationType')).toBe('MAPREDUCE');
    expect(at(app, 'user')).toBe(hadoop.user);
  });

  it('is listed by the JobHistory server with its 2 maps and 1 reduce', async () => {
    const jobId = appId.replace(/^application_/, 'job_');
    const job = await waitFor('the job in the JobHistory server', async () => {
      const jobs = list(at(await read(`${hadoop.jhs}/ws/v1/history/mapreduce/jobs`), 'jobs.job'));
      return jobs.find((j) => at(j, 'id') === jobId);
    });
    expect(at(job, 'state')).toBe('SUCCEEDED');
    expect(at(job, 'name')).toBe('Sleep job');
    expect([at(job, 'mapsCompleted'), at(job, 'reducesCompleted')]).toEqual([2, 1]);
    const tasks = list(
      at(await read(`${hadoop.jhs}/ws/v1/history/mapreduce/jobs/${jobId}/tasks`), 'tasks.task'),
    );
    expect(tasks.map((t) => at(t, 'type')).sort()).toEqual(['MAP', 'MAP', 'REDUCE']);
    for (const t of tasks) {
      expect(at(t, 'state')).toBe('SUCCEEDED');
      // Each task slept at least its -mt / -rt time.
      expect(Number(at(t, 'elapsedTime'))).toBeGreaterThanOrEqual(at(t, 'type') === 'MAP' ? 2000 : 1000);
    }
  });
});
