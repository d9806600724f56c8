import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCustomPlan } from '../../src/cli/simulate';
import { TraceInvalidError } from '../../src/errors/trace-invalid';
import { runPolicies } from '../../src/sim/driver';
import { JsonObjectScanner, scanJsonObjects } from '../../src/sim/formats/json-stream';
import { detectFormat, readTraceFile, readTraceText } from '../../src/sim/formats/trace-reader';

/** Hadoop SLS's own sample traces (Apache-2.0, see test/fixtures/hadoop-sls/NOTICE). */
const hadoop = (name: string): string => join(__dirname, '..', 'fixtures', 'hadoop-sls', name);
const cluster = join(__dirname, '..', '..', 'examples', 'cluster.yaml');

function traceError(f: () => unknown): TraceInvalidError {
  try {
    f();
  } catch (e) {
    if (e instanceof TraceInvalidError) return e;
    throw e;
  }
  throw new Error('no TraceInvalidError');
}

describe("Hadoop SLS's sample traces", () => {
  it.each([
    ['inputsls.json', 'sls'],
    ['sls_dag.json', 'sls'],
    ['2jobs2min-rumen-jh.excerpt.json', 'rumen'],
    ['syn.json', 'synth'],
    ['syn_generic.json', 'synth'],
    ['syn_stream.json', 'synth'],
  ])('%s is detected as %s', (file, format) => {
    expect(readTraceFile(hadoop(file)).format).toBe(format);
  });

  it.each(['inputsls.json', 'sls_dag.json'])('%s: two jobs replaying their containers', (file) => {
    const jobs = readTraceFile(hadoop(file), { deadlineFactor: 2 }).jobs(1);
    expect(jobs.map((j) => [j.id, j.arrival, j.queue, j.maps, j.reduces, j.deadline])).toEqual([
      ['job_1', 0, 'sls_queue_1', 3, 0, 190.75],
      ['job_2', 105.204, 'sls_queue_2', 2, 0, 184.104],
    ]);
    expect(jobs[0]?.replay?.mapSeconds).toEqual([17.043, 14.928, 17.843]);
  });

  it('the Rumen job history: the successful attempts replayed, recorded splits, deadline from the duration', () => {
    const [job, ...rest] = readTraceFile(hadoop('2jobs2min-rumen-jh.excerpt.json'), {
      deadlineFactor: 2,
    }).jobs(1);
    expect(rest).toEqual([]);
    expect(job).toEqual({
      id: 'job_1369942127770_1205',
      arrival: 0,
      // 2 x (finishTime 1371222153874 - submitTime 1371222054499) ms
      deadline: 198.75,
      maps: 2,
      reduces: 0,
      inputBytes: 167,
      splits: [82, 85],
      type: 'cpu',
      user: 'jenkins',
      queue: 'sls_queue_1',
      blocks: null,
      // attempt finishTime - startTime: 1371222078206 - 1371222061163, 1371222076092 - 1371222061164
      replay: { mapSeconds: [17.043, 14.928], reduceSeconds: [] },
    });
  });

  it('a stream of concatenated multi-line Rumen jobs: arrivals from the earliest submission', () => {
    const one = readFileSync(hadoop('2jobs2min-rumen-jh.excerpt.json'), 'utf8');
    const two = one
      .replace('job_1369942127770_1205', 'job_1369942127770_1206')
      .replace('"submitTime" : 1371222054499', '"submitTime" : 1371222064499');
    const read = readTraceText(one + two, 'two.json');
    expect(read.format).toBe('rumen');
    expect(read.jobs(1).map((j) => [j.id, j.arrival])).toEqual([
      ['job_1369942127770_1205', 0],
      ['job_1369942127770_1206', 10],
    ]);
  });

  it("syn.json: num_jobs jobs drawn from the class's distributions, deterministic per seed", () => {
    const read = readTraceFile(hadoop('syn.json'));
    const jobs = read.jobs(1);
    expect(jobs).toHaveLength(10);
    expect(read.jobs(1)).toEqual(jobs);
    expect(read.jobs(2)).not.toEqual(jobs);
    for (const j of jobs) {
      expect([j.queue, j.user, j.workloadClass, j.type]).toEqual(['sls_queue_1', 'foobar', 'class_1', 'cpu']);
      // time_distribution: all weight on the bucket [1, 60) s
      expect(j.arrival).toBeGreaterThanOrEqual(1);
      expect(j.arrival).toBeLessThan(60);
      expect(j.replay?.mapSeconds).toHaveLength(j.maps);
      expect(j.replay?.reduceSeconds).toHaveLength(j.reduces);
    }
    expect(jobs.map((j) => j.arrival)).toEqual([...jobs.map((j) => j.arrival)].sort((a, b) => a - b));
    expect(jobs[0]).toMatchObject({ id: 'job_0', maps: 4, reduces: 5 });
    // deadline factor ~10 (sd 0.001) x duration ~60 s (sd 5)
    expect(jobs[0]?.deadline).toBeCloseTo(638.664, 3);
  });

  it('syn_stream.json: the stream containers run as map tasks of their recorded time', () => {
    const jobs = readTraceFile(hadoop('syn_stream.json')).jobs(1);
    expect(jobs).toHaveLength(5);
    for (const j of jobs) expect([j.maps, j.reduces, j.replay?.mapSeconds]).toEqual([2, 0, [60000, 60000]]);
  });

  it.each(['inputsls.json', '2jobs2min-rumen-jh.excerpt.json', 'syn_generic.json'])(
    'simulate: %s runs under rtmr and fifo-all on the example cluster',
    (file) => {
      const plan = loadCustomPlan(cluster, hadoop(file), 'rtmr,fifo-all', 3);
      const jobs = plan.jobs(1);
      const results = runPolicies({ cluster: plan.cluster, jobs, specs: plan.specs, seed: 1 });
      expect(results.map((r) => [r.spec.label, r.summary.jobs])).toEqual([
        ['rtmr', jobs.length],
        ['fifo-all', jobs.length],
      ]);
      // fifo-all admits every job and every job runs to its end.
      expect(results[1]?.outcomes.filter((o) => o.finish !== null)).toHaveLength(jobs.length);
    },
  );
});

describe('bad trace records', () => {
  const sls = (tasks: string, id = 'a'): string =>
    `{\n  "job.start.ms": 0,\n  "job.id": "${id}",\n  "job.tasks": [\n    ${tasks}\n  ]\n}\n`;

  it('the key container.duration.ms is read (SLS names the duration so)', () => {
    const jobs = readTraceText(sls('{ "container.duration.ms": 5000 }'), 's.json').jobs(0);
    expect(jobs[0]?.replay?.mapSeconds).toEqual([5]);
  });

  it('names file, line and field; reads every record before failing; --skip-bad leaves them out and counts them', () => {
    const text =
      sls('{ "container.duration.ms": 5000 }', 'good') +
      sls('{ "container.duration.ms": "soon" }', 'bad-1') +
      sls('{ "container.type": "shuffle", "duration.ms": 1 }', 'bad-2') +
      'not json at all\n' +
      sls('{ "container.duration.ms": 7000 }', 'good-2');
    const e = traceError(() => readTraceText(text, 'trace.json'));
    expect(e.code).toBe('TRACE_INVALID');
    expect(e.badRecords).toBe(3);
    expect(e.issues).toEqual([
      {
        path: 'job.tasks[0].container.duration.ms',
        message: 'must be a number, got "soon"',
        file: 'trace.json',
        line: 8,
      },
      {
        path: 'job.tasks[0].container.type',
        message: 'must be map or reduce, got shuffle',
        file: 'trace.json',
        line: 15,
      },
      { path: '(syntax)', message: 'text outside a JSON object', file: 'trace.json', line: 22 },
    ]);
    const skipped = readTraceText(text, 'trace.json', { skipBad: true });
    expect(skipped.jobs(0).map((j) => j.id)).toEqual(['good', 'good-2']);
    expect(skipped.skipped.records).toBe(3);
    expect(skipped.skipped.issues).toEqual(e.issues);
  });

  it('a Rumen job without submitTime, and an unclosed last object', () => {
    const e = traceError(() =>
      readTraceText('{ "jobID": "job_1", "mapTasks": [] }\n{ "jobID": "job_2", "submitTime": 5,', 'r.json', {
        format: 'rumen',
      }),
    );
    expect(e.issues.map((i) => [i.line, i.path, i.message])).toEqual([
      [1, 'submitTime', 'required, the submit time in epoch milliseconds'],
      [2, '(syntax)', 'a JSON object that the file ends inside (unclosed)'],
    ]);
  });

  it('JSON Lines too: a bad line is skipped and counted with --skip-bad', () => {
    const text =
      '{"id":"a","arrival":0,"deadline":10,"maps":1,"reduces":0,"inputBytes":1}\n{"id":"b","arrival":-1,"deadline":10,"maps":1,"reduces":0,"inputBytes":1}\n';
    expect(traceError(() => readTraceText(text, 't.jsonl')).issues.map((i) => [i.line, i.path])).toEqual([
      [2, 'arrival'],
    ]);
    const r = readTraceText(text, 't.jsonl', { skipBad: true });
    expect([r.format, r.jobs(0).map((j) => j.id), r.skipped.records]).toEqual(['jsonl', ['a'], 1]);
  });

  it('a synthetic-load file with a bad field names its line', () => {
    const e = traceError(() =>
      readTraceText('{\n  "num_jobs": 0,\n  "workloads": []\n}\n', 'syn.json', { format: 'synth' }),
    );
    expect(e.issues.map((i) => [i.line, i.path])).toEqual([
      [2, 'num_jobs'],
      // too short, and no workload with weight > 0
      [3, 'workloads'],
      [3, 'workloads'],
    ]);
  });

  it('the first problems are kept, all bad records are counted', () => {
    const text = Array.from({ length: 250 }, (_, i) => `{"id":"j${i}"}`).join('\n');
    const e = traceError(() => readTraceText(text, 'many.jsonl'));
    expect([e.badRecords, e.issues.length]).toEqual([250, 100]);
  });
});

describe('streaming', () => {
  it('the scanner finds the same objects and lines whatever the chunk size', () => {
    const text = '// c\n{"a": "}{", // x\n "b": [1]}\n, {"c": {"d": "\\"/"}}\nxx\n{"e": 1';
    const whole = scanJsonObjects(text);
    expect(whole.objects.map((o) => [o.line, JSON.parse(o.text)])).toEqual([
      [2, { a: '}{', b: [1] }],
      [4, { c: { d: '"/' } }],
    ]);
    expect(whole.problems).toEqual([
      { kind: 'stray', line: 5 },
      { kind: 'unclosed', line: 6 },
    ]);
    for (const size of [1, 2, 3, 5, 7]) {
      const objects: unknown[] = [];
      const problems: unknown[] = [];
      const s = new JsonObjectScanner();
      for (let i = 0; i < text.length; i += size)
        s.push(
          text.slice(i, i + size),
          (o) => objects.push(o),
          (p) => problems.push(p),
        );
      s.end((p) => problems.push(p));
      expect({ objects, problems }).toEqual(whole);
    }
  });

  it('an object larger than the bound is reported, not kept', () => {
    const s = new JsonObjectScanner(16);
    const problems: unknown[] = [];
    const objects: unknown[] = [];
    s.push(
      '{"a": "0123456789abcdef"}\n{"b": 1}',
      (o) => objects.push(o),
      (p) => problems.push(p),
    );
    expect(problems).toEqual([{ kind: 'too-large', line: 1, chars: 25 }]);
    expect(objects).toEqual([{ text: '{"b": 1}', line: 2 }]);
  });

  it('a file of 20,000 SLS jobs is read in chunks', () => {
    const dir = mkdtempSync(join(tmpdir(), 'yss-trace-'));
    try {
      const file = join(dir, 'big.json');
      const job = (i: number): string =>
        `{"job.start.ms": ${i * 1000}, "job.id": "j${i}", "job.tasks": [{"count": 3, "container.duration.ms": 4000}]}\n`;
      writeFileSync(file, Array.from({ length: 20000 }, (_, i) => job(i)).join(''));
      const jobs = readTraceFile(file).jobs(0);
      expect(jobs).toHaveLength(20000);
      expect(jobs[19999]).toMatchObject({ id: 'j19999', arrival: 19999, maps: 3 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('detects formats from the start of a file', () => {
    expect(detectFormat('{"format":"yarn-sched-sidecar-trace","version":1}\n')).toBe('jsonl');
    expect(detectFormat('{\n  "priority" : "NORMAL",\n  "jobID" : "job_1",')).toBe('rumen');
    expect(detectFormat('{\n  "num.nodes": 3\n}')).toBe('sls');
    expect(detectFormat('{\n "description": "x",\n "num_jobs": 1,\n "workloads": [')).toBe('synth');
  });
});
