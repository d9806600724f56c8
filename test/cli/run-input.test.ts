/**
 * `run` without --maps: the job's maps come from its input's splits (the sidecar reads them from
 * WebHDFS), its reduces and split settings from the client's -D options, and the ticket's
 * options land after a ProgramDriver's program name. Units first, then `run` as a process
 * against the emulated RM, whose WebHDFS serves the files in 128 MB blocks.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  genericOptionsAt,
  hadoopConf,
  jobSize,
  runSubmission,
  withTicket,
  type RunOptions,
  type RunTicket,
} from '../../src/cli/run';
import {
  MB,
  REPO,
  spawnCli,
  startEmulatorProc,
  startSidecarProc,
  stopAll,
  tempDir,
  TOKEN,
  waitReady,
  type EmulatorProc,
  type SidecarProc,
} from '../e2e/support/procs';

const TICKET: RunTicket = {
  id: 'dl-1',
  expiresAt: '2026-11-22T08:10:00.000Z',
  queue: 'realtime',
  priority: 10,
  labelExpression: null,
  tags: ['sidecar-id:dl-1'],
  mapreduce: ['-Dmapreduce.job.queuename=realtime', '-Dmapreduce.job.tags=sidecar-id:dl-1'],
  spark: ['--queue', 'realtime', '--conf', 'spark.yarn.tags=sidecar-id:dl-1'],
  env: { YSS_TICKET_ID: 'dl-1' },
};
const D = TICKET.mapreduce;
const EXAMPLES = 'org.apache.hadoop.examples.ExampleDriver';
const TEST_DRIVER = 'org.apache.hadoop.test.MapredTestDriver';

describe('the ticket after a ProgramDriver’s program name', () => {
  it('java -cp CP ExampleDriver wordcount in out: after wordcount', () => {
    expect(withTicket(['java', '-cp', 'cp/*', EXAMPLES, 'wordcount', '/in', '/out'], TICKET)).toEqual([
      'java',
      '-cp',
      'cp/*',
      EXAMPLES,
      'wordcount',
      ...D,
      '/in',
      '/out',
    ]);
    expect(withTicket(['java', '-cp', 'cp/*', TEST_DRIVER, 'sleep', '-m', '1'], TICKET)).toEqual([
      'java',
      '-cp',
      'cp/*',
      TEST_DRIVER,
      'sleep',
      ...D,
      '-m',
      '1',
    ]);
  });

  it('hadoop jar examples.jar wordcount in out (the manifest’s Main-Class is the driver): after wordcount', () => {
    expect(
      withTicket(['hadoop', 'jar', 'hadoop-mapreduce-examples.jar', 'wordcount', '/in', '/out'], TICKET),
    ).toEqual(['hadoop', 'jar', 'hadoop-mapreduce-examples.jar', 'wordcount', ...D, '/in', '/out']);
    // A jar without Main-Class, the driver named: after its program name.
    expect(withTicket(['yarn', 'jar', 'tests.jar', TEST_DRIVER, 'sleep', '-m', '1'], TICKET)).toEqual([
      'yarn',
      'jar',
      'tests.jar',
      TEST_DRIVER,
      'sleep',
      ...D,
      '-m',
      '1',
    ]);
  });

  it('a jar whose Main-Class is a Tool taking a path first: right after the jar', () => {
    expect(withTicket(['hadoop', 'jar', 'job.jar', '/in', '/out'], TICKET)).toEqual([
      'hadoop',
      'jar',
      'job.jar',
      ...D,
      '/in',
      '/out',
    ]);
    expect(withTicket(['java', '-jar', 'examples.jar', 'pi', '2', '10'], TICKET)).toEqual([
      'java',
      '-jar',
      'examples.jar',
      'pi',
      ...D,
      '2',
      '10',
    ]);
  });

  it('--driver and --no-driver override the guess', () => {
    const own = ['java', '-cp', 'cp', 'com.example.Driver', 'etl', '/in'];
    expect(genericOptionsAt(own)).toBe(4);
    expect(genericOptionsAt(own, true)).toBe(5);
    const tool = ['hadoop', 'jar', 'job.jar', 'daily', '/in'];
    expect(genericOptionsAt(tool)).toBe(4);
    expect(genericOptionsAt(tool, false)).toBe(3);
    expect(withTicket(tool, TICKET, { driver: false })).toEqual([
      'hadoop',
      'jar',
      'job.jar',
      ...D,
      'daily',
      '/in',
    ]);
    // A driver with no program name yet: at the end.
    expect(withTicket(['java', '-cp', 'cp', EXAMPLES], TICKET)).toEqual([
      'java',
      '-cp',
      'cp',
      EXAMPLES,
      ...D,
    ]);
  });
});

describe('the client’s -D options', () => {
  it('are read where GenericOptionsParser reads them, in both spellings, up to the first argument', () => {
    const conf = hadoopConf([
      'hadoop',
      'jar',
      'examples.jar',
      'wordcount',
      '-D',
      'mapreduce.job.reduces=3',
      '-libjars',
      'x.jar',
      '-Dmapreduce.input.fileinputformat.split.maxsize=67108864',
      '/in',
      '-Dmapreduce.job.maps=9',
    ]);
    expect(Object.fromEntries(conf)).toEqual({
      'mapreduce.job.reduces': '3',
      'mapreduce.input.fileinputformat.split.maxsize': '67108864',
    });
    // A JVM system property before the main class is no job setting.
    expect(hadoopConf(['java', '-Dmapreduce.job.reduces=4', '-cp', 'cp', 'org.x.Job', '/in']).size).toBe(0);
    expect(hadoopConf(['spark-submit', '-Dmapreduce.job.reduces=4']).size).toBe(0);
  });

  it('give the reduces, the split settings, and the maps of a job without input', () => {
    const cmd = (...d: string[]) => ['hadoop', 'jar', 'examples.jar', 'teragen', ...d, '1000', '/out'];
    expect(jobSize({}, cmd('-Dmapreduce.job.maps=4', '-D', 'mapreduce.job.reduces=0'))).toEqual({
      maps: 4,
      reduces: 0,
    });
    expect(
      jobSize(
        { input: ['/in'], reduces: 2 },
        cmd('-Dmapreduce.job.reduces=7', '-Dmapreduce.input.fileinputformat.split.minsize=0x10000000'),
      ),
    ).toEqual({ reduces: 2, splitMinBytes: 256 * MB });
    // With --input the maps are the sidecar's to derive, whatever mapreduce.job.maps says.
    expect(jobSize({ input: ['/in'] }, cmd('-Dmapreduce.job.maps=4', '-Dmapreduce.job.reduces=1'))).toEqual({
      reduces: 1,
    });
  });

  it('a value that is no number, or a size that is missing, is named', () => {
    expect(jobSize({ maps: 1 }, ['hadoop', 'jar', 'x.jar', 'wc', '-Dmapreduce.job.reduces=two'])).toBe(
      '-D mapreduce.job.reduces=two on the command: not a whole number from 0',
    );
    expect(
      jobSize({ input: ['/in'], reduces: 1 }, [
        'hadoop',
        'jar',
        'x.jar',
        'wc',
        '-Dmapreduce.input.fileinputformat.split.maxsize=-1',
      ]),
    ).toBe('-D mapreduce.input.fileinputformat.split.maxsize=-1 on the command: not a whole number from 0');
    expect(jobSize({ maps: 2 }, ['hadoop', 'jar', 'x.jar', 'wc'])).toBe(
      'give --reduces N, or -D mapreduce.job.reduces=N on the command',
    );
    expect(jobSize({ reduces: 1 }, ['hadoop', 'jar', 'x.jar', 'wc'])).toBe(
      "give --input PATH... (the maps are then the input's splits), --maps N, or -D mapreduce.job.maps=N on the command",
    );
  });

  it('become the submission: no maps with --input, split settings only then, no input is 0 bytes', () => {
    const base: RunOptions = { sidecar: 'http://x', token: 't', deadline: 60, reduces: 1, user: 'alice' };
    const derived = runSubmission({ ...base, input: ['/in'], splitMaxBytes: 5 }, [
      'hadoop',
      'jar',
      'x.jar',
      'wc',
    ]);
    expect(derived).toMatchObject({ reduces: 1, inputPaths: ['/in'], splitMaxBytes: 5 });
    expect(derived).not.toHaveProperty('maps');
    expect(derived).not.toHaveProperty('inputBytes');
    const given = runSubmission({ ...base, input: ['/in'], maps: 3, splitMaxBytes: 5 }, ['x']);
    expect(given).toMatchObject({ maps: 3, inputPaths: ['/in'] });
    expect(given).not.toHaveProperty('splitMaxBytes');
    expect(runSubmission({ ...base, maps: 2 }, ['x'])).toMatchObject({ maps: 2, inputBytes: 0 });
  });
});

describe('run --input against the emulated RM and its WebHDFS', () => {
  let emu: EmulatorProc;
  let sc: SidecarProc;
  let tmp: ReturnType<typeof tempDir>;
  const FAKE = join(REPO, 'test', 'cli', 'fake-client', 'hadoop');

  beforeAll(async () => {
    tmp = tempDir('run-input');
    const config = join(tmp.dir, 'emulator.json');
    // 128 MB blocks (the emulated cluster's): 200 MB is 2 splits, 1 MB one, an empty file one.
    writeFileSync(
      config,
      JSON.stringify({
        format: 'yarn-sched-sidecar-emulator',
        version: 1,
        hdfsFiles: [
          { path: '/data/in/part-0', bytes: 200 * MB },
          { path: '/data/in/part-1', bytes: 1 * MB },
          { path: '/data/in/part-2', bytes: 0 },
          { path: '/data/in/_SUCCESS', bytes: 0 },
        ],
      }),
    );
    emu = await startEmulatorProc('emulator', ['--config', config, '--speed', '10', '--seed', '3']);
    sc = await startSidecarProc('sidecar', {
      rmUrls: [emu.url],
      jhsUrl: emu.jhsUrl,
      ledgerPath: join(tmp.dir, 'ledger.db'),
      config: {
        rm: { webHdfsAddress: emu.url },
        admission: { initialEstimates: { eta: 1, mapSecondsPerMb: 0.01, reduceSecondsPerMb: 0.01 } },
      },
    });
    await waitReady(sc, [sc.proc, emu.proc]);
  }, 60_000);

  afterAll(async () => {
    await stopAll();
    tmp?.cleanup();
  });

  const run = (args: string[], command: string[]) =>
    spawnCli('run', ['run', ...args, '--', ...command], {
      YSS_URL: sc.url,
      YSS_TOKEN: TOKEN,
      FAKE_RM_URL: emu.url,
    });
  const ticketOf = (out: string) => /admitted as (dl-[0-9a-f]+)/.exec(out)?.[1];
  type JobDetail = { maps: number; reduces: number; inputBytes: number };

  it('without --maps: 4 maps from the splits, the reduces from -D mapreduce.job.reduces', async () => {
    const p = run(
      ['--deadline', '1h', '--input', '/data/in'],
      [FAKE, 'jar', 'wc.jar', 'wordcount', '-Dmapreduce.job.reduces=2', '/data/in', '/out'],
    );
    expect(await p.exited).toBe(0);
    const out = p.output();
    expect(out).toContain('run: maps: 4, one per split of the input (read by the sidecar from WebHDFS)');
    const id = ticketOf(out)!;
    expect(await sc.get<JobDetail>(`/api/v1/jobs/${id}`)).toMatchObject({
      maps: 4,
      reduces: 2,
      inputBytes: 201 * MB,
    });
  }, 60_000);

  it('an explicit --maps wins, and says so', async () => {
    const p = run(
      ['--deadline', '1h', '--input', '/data/in', '--maps', '9', '--reduces', '1'],
      [FAKE, 'jar', 'wc.jar', 'wordcount', '/data/in', '/out'],
    );
    expect(await p.exited).toBe(0);
    const out = p.output();
    expect(out).toContain("run: maps: 9 as given by --maps; the input's splits were not counted");
    expect((await sc.get<JobDetail>(`/api/v1/jobs/${ticketOf(out)!}`)).maps).toBe(9);
  }, 60_000);

  it('a missing input path: refused naming it, nothing run (exit 2)', async () => {
    const p = run(
      ['--deadline', '1h', '--input', '/data/nope', '--reduces', '1'],
      [FAKE, 'jar', 'wc.jar', 'wc'],
    );
    expect(await p.exited).toBe(2);
    expect(p.output()).toMatch(
      /run: the sidecar answered 400 VALIDATION_FAILED: .*\/data\/nope does not exist/,
    );
    expect(p.output()).not.toContain('fake hadoop');
  }, 60_000);
});
