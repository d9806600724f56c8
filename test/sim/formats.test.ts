import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCustomPlan } from '../../src/cli/simulate';
import { parseClusterFile } from '../../src/sim/formats/cluster-file';
import { splitJsonObjects } from '../../src/sim/formats/sls';
import { parseSlsTrace } from '../../src/sim/formats/trace-reader';
import { formatTrace, parseTraceFile } from '../../src/sim/formats/trace-file';
import { workloadII } from '../../src/sim/workloads';
import { issuesOf } from '../validation-issues';

const examples = join(__dirname, '..', '..', 'examples');

const cpuCluster = `version: 1
slotModel: mr1
nodeClasses:
  - name: worker
    count: 4
    mapSlots: 2
    reduceSlots: 1
`;

describe('cluster file', () => {
  it('parses the shipped example with defaults filled in', () => {
    const c = parseClusterFile(readFileSync(join(examples, 'cluster.yaml'), 'utf8'), 'cluster.yaml');
    expect(c.nodeClasses.map((n) => [n.name, n.count])).toEqual([
      ['opteron275', 20],
      ['opteron64', 10],
      ['gpu', 2],
    ]);
    expect(c.heartbeatSeconds).toBe(3);
    expect(c.nodeClasses[2]!.taskEnergyKWh.gpuOnCpu).toBeGreaterThan(0);
  });

  it('reports a cluster with zero nodes with file and line', () => {
    const text = `version: 1\nnodeClasses:\n  - name: a\n    count: 0\n    mapSlots: 2\n    reduceSlots: 1\n`;
    expect(issuesOf(() => parseClusterFile(text, 'zero.yaml'))).toEqual([
      { path: 'nodeClasses', message: 'the cluster has zero nodes', file: 'zero.yaml', line: 3 },
    ]);
  });

  it('reports unknown keys and bad values at their lines', () => {
    const text = `version: 1\nnodeClasses:\n  - name: a\n    count: 2\n    mapSlots: -1\n    colour: blue\n`;
    const issues = issuesOf(() => parseClusterFile(text, 'bad.yaml'));
    expect(issues.find((i) => i.path === 'nodeClasses[0].mapSlots')).toMatchObject({
      file: 'bad.yaml',
      line: 5,
    });
    expect(issues.find((i) => /colour/.test(i.message))).toMatchObject({ file: 'bad.yaml', line: 3 });
  });
});

describe('trace file (JSON Lines)', () => {
  const cluster = parseClusterFile(cpuCluster, 'c.yaml');
  const good = '{"id":"a","arrival":0,"deadline":300,"maps":2,"reduces":1,"inputBytes":1000}';

  it('round-trips a generated workload', () => {
    const jobs = workloadII(3);
    const back = parseTraceFile(formatTrace(jobs), 't.jsonl', cluster);
    expect(back.map((j) => [j.id, j.maps, j.reduces, j.deadline])).toEqual(
      jobs.map((j) => [j.id, j.maps, j.reduces, j.deadline]),
    );
  });

  it('the optional workload class: read, written back, and checked like the API field', () => {
    const text = `${good}\n{"id":"m","arrival":5,"deadline":900,"maps":1,"reduces":1,"inputBytes":61440,"class":"md-run"}\n`;
    const jobs = parseTraceFile(text, 't.jsonl', cluster);
    expect(jobs.map((j) => j.workloadClass)).toEqual([undefined, 'md-run']);
    expect(parseTraceFile(formatTrace(jobs), 't.jsonl', cluster).map((j) => j.workloadClass)).toEqual([
      undefined,
      'md-run',
    ]);
    const bad = `{"id":"m","arrival":5,"deadline":900,"maps":1,"reduces":1,"inputBytes":1,"class":"MD Run"}`;
    expect(issuesOf(() => parseTraceFile(bad, 'trace.jsonl', cluster))).toEqual([
      {
        path: 'class',
        message: 'must be 1-64 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit',
        file: 'trace.jsonl',
        line: 1,
      },
    ]);
  });

  it('a line with a missing field: file, line and field', () => {
    const text = `${good}\n{"id":"b","arrival":5,"deadline":300,"reduces":1,"inputBytes":1000}\n`;
    expect(issuesOf(() => parseTraceFile(text, 'trace.jsonl', cluster))).toEqual([
      { path: 'maps', message: 'required field is missing', file: 'trace.jsonl', line: 2 },
    ]);
  });

  it('a negative deadline', () => {
    const text = `${good}\n\n{"id":"b","arrival":5,"deadline":-10,"maps":1,"reduces":1,"inputBytes":1000}\n`;
    const [i] = issuesOf(() => parseTraceFile(text, 'trace.jsonl', cluster));
    expect(i).toMatchObject({ path: 'deadline', file: 'trace.jsonl', line: 3 });
  });

  it('a job whose type needs a label no node has', () => {
    const text = `${good}\n{"id":"g","arrival":5,"deadline":100,"maps":1,"reduces":1,"inputBytes":1000,"type":"gpu"}\n`;
    expect(issuesOf(() => parseTraceFile(text, 'trace.jsonl', cluster))).toEqual([
      {
        path: 'type',
        message: "job type gpu needs label 'gpu', which no node in the cluster has",
        file: 'trace.jsonl',
        line: 2,
      },
    ]);
  });

  it('collects every problem of every line, and splits that do not add up', () => {
    const text = `not json\n{"id":"a","arrival":0,"deadline":9,"maps":2,"reduces":1,"inputBytes":10,"splits":[4,4]}\n${good}\n`;
    const issues = issuesOf(() => parseTraceFile(text, 't.jsonl', cluster));
    expect(issues.map((i) => [i.line, i.path])).toEqual([
      [1, '(syntax)'],
      [2, 'splits'],
      [3, 'id'],
    ]);
  });

  it('the simulate command stops before simulating: bad trace, bad cluster', () => {
    expect(() =>
      loadCustomPlan(join(examples, 'cluster.yaml'), join(examples, 'bad', 'missing-field.jsonl'), 'rtmr'),
    ).toThrow(/missing-field\.jsonl:2: maps/);
    expect(() =>
      loadCustomPlan(join(examples, 'bad', 'zero-nodes.yaml'), join(examples, 'trace.jsonl'), 'rtmr'),
    ).toThrow(/zero-nodes\.yaml:5: nodeClasses/);
    expect(() =>
      loadCustomPlan(join(examples, 'cluster.yaml'), join(examples, 'trace.jsonl'), 'rtmr,nonsense'),
    ).toThrow(/unknown policy "nonsense"/);
  });
});

describe('SLS reader', () => {
  it('reads the documented example (with // comments), skipping the topology object', () => {
    const jobs = parseSlsTrace(readFileSync(join(examples, 'sls-sample.json'), 'utf8'), 'sls-sample.json', {
      deadlineFactor: 2,
    });
    expect(jobs.map((j) => [j.id, j.arrival, j.maps, j.reduces, j.queue])).toEqual([
      ['job_1', 0, 3, 0, 'sls_queue_1'],
      ['job_2', 105.204, 2, 0, 'sls_queue_2'],
    ]);
    expect(jobs[0]!.replay!.mapSeconds).toEqual([17.043, 14.928, 17.843]);
    expect(jobs[0]!.deadline).toBeCloseTo(2 * 95.375, 9);
  });

  it('reports a broken job with its first line', () => {
    const text = `{"num.nodes": 3}\n{\n "job.start.ms": 0,\n "job.tasks": []\n}\n`;
    expect(issuesOf(() => parseSlsTrace(text, 's.json'))).toEqual([
      { path: 'job.tasks', message: 'required, a non-empty list of containers', file: 's.json', line: 2 },
    ]);
    expect(splitJsonObjects('{"a":"}{"}\n{"b":1}').objects.map((o) => o.line)).toEqual([1, 2]);
  });
});
