import {
  commandName,
  runSubmission,
  sparkMemoryMb,
  sparkShape,
  sparkSize,
  sparkSubmitArgs,
  withTicket,
} from '../../src/cli/run';
import { parseSubmission } from '../../src/model/deadline-submission';
import type { RunTicket } from '../../src/cli/run';

const JAR = '/opt/apps/yss-spark-apps.jar';
const submit = (...opts: string[]) => ['spark-submit', ...opts, JAR, '10'];

describe('run reads a spark-submit command line', () => {
  it('reads options up to the application jar, --conf k=v and --opt=value forms', () => {
    const { options, conf, jar } = sparkSubmitArgs(
      submit('--master', 'yarn', '--verbose', '--conf', 'spark.a=1', '-c', 'spark.b=2', '--name=x'),
    );
    expect(options.get('--master')).toBe('yarn');
    expect(options.get('--name')).toBe('x');
    expect(Object.fromEntries(conf)).toEqual({ 'spark.a': '1', 'spark.b': '2' });
    expect(jar).toBe(9);
  });

  it("reads Spark's memory sizes as MB", () => {
    expect(sparkMemoryMb('512m')).toBe(512);
    expect(sparkMemoryMb('2g')).toBe(2048);
    expect(sparkMemoryMb('2GB')).toBe(2048);
    expect(sparkMemoryMb('1024')).toBe(1024);
    expect(sparkMemoryMb('1t')).toBe(1024 * 1024);
    expect(sparkMemoryMb('lots')).toBeUndefined();
  });

  it("takes Spark on YARN's defaults: 2 executors of 1 core and 1 GB", () => {
    expect(sparkShape(submit('--master', 'yarn'))).toEqual({
      executors: 2,
      executorCores: 1,
      executorMemoryMb: 1024,
    });
  });

  it('takes the flags over --conf, as SparkSubmit does', () => {
    expect(
      sparkShape(
        submit(
          '--conf',
          'spark.executor.instances=4',
          '--num-executors',
          '3',
          '--conf',
          'spark.executor.cores=2',
          '--executor-memory',
          '512m',
          '--conf',
          'spark.executor.memory=4g',
          '--conf',
          'spark.executor.memoryOverhead=600m',
        ),
      ),
    ).toEqual({ executors: 3, executorCores: 2, executorMemoryMb: 512, executorMemoryOverheadMb: 600 });
    expect(sparkShape(submit('--conf', 'spark.executor.instances=4'))).toMatchObject({ executors: 4 });
  });

  it('plans spark.dynamicAllocation.maxExecutors, and refuses dynamic allocation without it', () => {
    expect(
      sparkShape(
        submit(
          '--conf',
          'spark.dynamicAllocation.enabled=true',
          '--conf',
          'spark.dynamicAllocation.maxExecutors=6',
        ),
      ),
    ).toMatchObject({ executors: 2, dynamicMax: 6 });
    expect(sparkShape(submit('--conf', 'spark.dynamicAllocation.enabled=true'))).toMatch(
      /spark.dynamicAllocation.maxExecutors=N/,
    );
  });

  it('names a bad value and where it was given', () => {
    expect(sparkShape(submit('--num-executors', 'two'))).toBe(
      '--num-executors=two on the command: not a whole number from 0',
    );
    expect(sparkShape(submit('--conf', 'spark.executor.memory=lots'))).toBe(
      '--conf spark.executor.memory=lots on the command: not a memory size (512m, 2g)',
    );
    expect(sparkShape(submit('--num-executors', '0'))).toMatch(/no executor would run/);
  });

  it('refuses --maps and --reduces for a Spark app', () => {
    expect(sparkSize({ reduces: 0 }, submit())).toMatch(/leave out --maps and --reduces/);
    expect(sparkSize({}, submit('--num-executors', '1'))).toEqual({
      spark: { executors: 1, executorCores: 1, executorMemoryMb: 1024 },
    });
  });

  it('names a Spark job by --name, else its main class, else its jar', () => {
    expect(commandName(submit('--name', 'daily-etl', '--class', 'org.x.Etl'))).toBe('daily-etl');
    expect(commandName(submit('--class', 'yss.spark.WordCount'))).toBe('WordCount');
    expect(commandName(submit('--master', 'yarn'))).toBe('yss-spark-apps.jar');
  });

  it('sends the executors instead of maps and reduces, and the sidecar takes it', () => {
    const body = runSubmission(
      {
        sidecar: 'http://x',
        token: 't',
        deadline: 600,
        spark: { executors: 1, executorCores: 1, executorMemoryMb: 512 },
      },
      submit('--class', 'yss.spark.Pi'),
    );
    expect(body).toMatchObject({
      name: 'Pi',
      deadline: 600,
      inputBytes: 0,
      spark: { executors: 1, executorCores: 1, executorMemoryMb: 512 },
    });
    expect(body).not.toHaveProperty('maps');
    expect(body).not.toHaveProperty('reduces');
    expect(parseSubmission(body, 0).spark).toEqual({ executors: 1, executorCores: 1, executorMemoryMb: 512 });
  });

  it("puts the ticket's options before the application jar", () => {
    const ticket = { spark: ['--queue', 'realtime', '--conf', 'spark.yarn.tags=a,b'] } as RunTicket;
    expect(withTicket(submit('--class', 'yss.spark.Pi'), ticket)).toEqual([
      'spark-submit',
      '--queue',
      'realtime',
      '--conf',
      'spark.yarn.tags=a,b',
      '--class',
      'yss.spark.Pi',
      JAR,
      '10',
    ]);
  });
});

describe('the API takes a Spark submission', () => {
  const base = { name: 'pi', user: 'alice', deadline: 600 };
  it('without maps or reduces, with its defaults', () => {
    expect(parseSubmission({ ...base, spark: {} }, 0).spark).toEqual({
      executors: 2,
      executorCores: 1,
      executorMemoryMb: 1024,
    });
  });
  it('refuses maps or reduces beside spark, and a job with neither spark nor reduces', () => {
    expect(() => parseSubmission({ ...base, spark: {}, maps: 2, reduces: 0 }, 0)).toThrow(
      /counted by its executors/,
    );
    expect(() => parseSubmission({ ...base, maps: 2, inputBytes: 0 }, 0)).toThrow(/reduces.*required/);
  });
});
