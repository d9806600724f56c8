import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { emulatorSetupFrom, type EmulatorCliOptions } from '../../src/cli/emulator';
import { defaultEmulatorCluster, defaultEmulatorConfig, type QueueConfig } from '../../src/emulator/config';
import {
  EMULATOR_CONFIG_FORMAT,
  loadEmulatorConfigFile,
  parseEmulatorConfigFile,
} from '../../src/emulator/config-file';
import { issuesOf } from '../validation-issues';

/**
 * The emulator's configuration file (docs/emulator.md, "Configuration file"): the shipped
 * example is the built-in configuration, and every rule names its file, line and field.
 */
const examples = join(__dirname, '..', '..', 'examples');
const HEADER = `format: ${EMULATOR_CONFIG_FORMAT}\nversion: 1\n`;

const parse = (body: string) => parseEmulatorConfigFile(HEADER + body, 'emu.yaml');
/** Each problem as `line path: message`, the way an operator reads them. */
const problems = (body: string) =>
  issuesOf(() => parse(body)).map((i) => `${i.line} ${i.path}: ${i.message}`);

const TWO_QUEUES = `queues:
  - name: a
    capacity: 50
    accessibleNodeLabels: [gpu]
    labelCapacity: { gpu: 50 }
  - name: b
    capacity: 50
    accessibleNodeLabels: [gpu]
    labelCapacity: { gpu: 50 }
`;

describe('emulator configuration file', () => {
  it('examples/emulator.yaml is the built-in configuration with a priority cap of 10', () => {
    const s = loadEmulatorConfigFile(join(examples, 'emulator.yaml'));
    expect(s.config).toEqual(defaultEmulatorConfig({ maxApplicationPriority: 10 }));
    expect(s.hdfsFiles).toEqual([]);
  });

  it('the built-in configuration is a stock cluster: priority cap 0, 2 AM attempts, no auth, no ACLs', () => {
    const c = defaultEmulatorConfig();
    expect([c.maxApplicationPriority, c.amMaxAttempts, c.auth, c.aclEnabled, c.adminAcl]).toEqual([
      0,
      2,
      'none',
      false,
      '*',
    ]);
  });

  it('reads auth, ACLs and the AM attempts, and refuses an auth mode it does not know', () => {
    const s = parse(`auth: simple\naclEnabled: true\nadminAcl: root\namMaxAttempts: 3\n`);
    expect([s.config.auth, s.config.aclEnabled, s.config.adminAcl, s.config.amMaxAttempts]).toEqual([
      'simple',
      true,
      'root',
      3,
    ]);
    expect(() => parse('auth: kerberos\n')).toThrow(/auth/);
  });

  it('a file with only its header is the built-in configuration too', () => {
    expect(parse('').config).toEqual(defaultEmulatorConfig());
  });

  it('fills what a queue leaves out with the documented defaults', () => {
    const s = parse(TWO_QUEUES);
    expect(s.config.queues[0]).toEqual({
      name: 'a',
      capacity: 50,
      maxCapacity: 100,
      accessibleNodeLabels: ['gpu'],
      labelCapacity: { gpu: 50 },
      defaultNodeLabelExpression: '',
      reservable: false,
      submitAcl: '*',
    });
  });

  it('reads every field, WebHDFS files included, and freezes the result', () => {
    const s = parse(`${TWO_QUEUES}maxApplicationPriority: 3
defaultJob: { maps: 2, reduces: 0, inputBytes: 1000 }
containerMemoryMB: 4096
containerVcores: 2
defaultUser: etl
placementPolicy: delay
placementArgs: { maxDelayMs: 3000 }
hadoopVersion: 3.4.1
hdfsFiles:
  - { path: /data/gpu/part-0, bytes: 300000000, label: gpu }
  - { path: /data/any/part-0, bytes: 5 }
`);
    expect(s.config).toMatchObject({
      maxApplicationPriority: 3,
      defaultJob: { maps: 2, reduces: 0, inputBytes: 1000 },
      containerMemoryMB: 4096,
      containerVcores: 2,
      defaultUser: 'etl',
      placementPolicy: 'delay',
      placementArgs: { maxDelayMs: 3000 },
      hadoopVersion: '3.4.1',
    });
    expect(s.hdfsFiles).toEqual([
      { path: '/data/gpu/part-0', bytes: 300000000, label: 'gpu' },
      { path: '/data/any/part-0', bytes: 5 },
    ]);
    expect(Object.isFrozen(s.config.queues[0])).toBe(true);
  });

  it('reads a cluster file named relative to the configuration file', () => {
    const asked: string[] = [];
    const cluster = readFileSync(join(examples, 'cluster.yaml'), 'utf8');
    const s = parseEmulatorConfigFile(
      `${HEADER}cluster: ../cluster.yaml\n`,
      join('conf', 'emu.yaml'),
      {},
      (p) => {
        asked.push(p);
        return cluster;
      },
    );
    expect(asked).toEqual([join('conf', '..', 'cluster.yaml')]);
    expect(s.config.cluster.nodeClasses.map((c) => c.name)).toEqual(['opteron275', 'opteron64', 'gpu']);
    // No queues given: the built-in ones, on the cluster's GPU label.
    expect(s.config.queues.map((q) => q.name)).toEqual(['realtime', 'besteffort', 'default']);
  });

  it("reports a cluster file's problems with that file's name and line", () => {
    const bad = readFileSync(join(examples, 'bad', 'zero-nodes.yaml'), 'utf8');
    const issues = issuesOf(() =>
      parseEmulatorConfigFile(`${HEADER}cluster: zero.yaml\n`, 'emu.yaml', {}, () => bad),
    );
    expect(issues).toEqual([
      { path: 'nodeClasses', message: 'the cluster has zero nodes', file: 'zero.yaml', line: 5 },
    ]);
  });

  it('reports a missing cluster file at the line naming it', () => {
    const issues = issuesOf(() =>
      parseEmulatorConfigFile(`${HEADER}cluster: nosuch.yaml\n`, 'emu.yaml', {}, () => {
        throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
      }),
    );
    expect(issues).toEqual([
      {
        path: 'cluster',
        message: 'cannot read the cluster file nosuch.yaml: ENOENT',
        file: 'emu.yaml',
        line: 3,
      },
    ]);
  });

  it("reports an inline cluster's problems under cluster., at their lines in the configuration", () => {
    expect(
      problems(`cluster:
  version: 1
  slotModel: unified
  nodeClasses:
    - { name: w, count: 2, containers: 4, speed: { cpu: 0 } }
`),
    ).toEqual(['7 cluster.nodeClasses[0].speed.cpu: Too small: expected number to be >0']);
  });

  it('says when the built-in queues do not fit the cluster', () => {
    expect(
      problems(`cluster:
  version: 1
  slotModel: unified
  nodeClasses: [{ name: w, count: 3, containers: 4 }]
`),
    ).toEqual([
      '1 queues[0].accessibleNodeLabels[0]: no node has label gpu (the built-in queues; give queues for this cluster)',
      '1 queues[1].accessibleNodeLabels[0]: no node has label gpu (the built-in queues; give queues for this cluster)',
    ]);
  });

  it('needs the format header', () => {
    const issues = issuesOf(() => parseEmulatorConfigFile('version: 1\nqueues: []\n', 'emu.yaml'));
    expect(issues).toEqual([
      { path: 'format', message: 'required field is missing', file: 'emu.yaml', line: 1 },
    ]);
  });

  // Each invalid case, with the line and field it is reported at.
  it.each<[string, string, string[]]>([
    [
      'a queue without its capacity',
      'queues:\n  - { name: a }\n',
      ['4 queues[0].capacity: required field is missing'],
    ],
    ['an unknown top-level key', 'colour: blue\n', ['3 colour: unknown key']],
    ['an unknown queue key', `${TWO_QUEUES}    weight: 2\n`, ['12 queues[1].weight: unknown key']],
    [
      'default-partition capacities not adding up to 100',
      TWO_QUEUES.replace(
        'capacity: 50\n    accessibleNodeLabels: [gpu]\n    labelCapacity: { gpu: 50 }\n  - name: b',
        'capacity: 40\n    accessibleNodeLabels: [gpu]\n    labelCapacity: { gpu: 50 }\n  - name: b',
      ),
      ["4 queues: children's capacities in the default partition add up to 90, not 100"],
    ],
    [
      'label capacities not adding up to 100',
      TWO_QUEUES.replace('{ gpu: 50 }\n  - name: b', '{ gpu: 70 }\n  - name: b'),
      ["4 queues: children's capacities in the partition gpu add up to 120, not 100"],
    ],
    [
      'a maximum below the capacity',
      TWO_QUEUES.replace(
        '  - name: b\n    capacity: 50\n',
        '  - name: b\n    capacity: 50\n    maxCapacity: 20\n',
      ),
      ['10 queues[1].maxCapacity: maximum 20 is below the capacity 50'],
    ],
    [
      'a label no node has',
      `${TWO_QUEUES.replace('  - name: b\n    capacity: 50\n    accessibleNodeLabels: [gpu]', '  - name: b\n    capacity: 50\n    accessibleNodeLabels: [gpu, ssd]')}`,
      ['10 queues[1].accessibleNodeLabels[1]: no node has label ssd'],
    ],
    [
      'a default label the queue cannot access',
      `${TWO_QUEUES}    defaultNodeLabelExpression: fpga\n`,
      ['12 queues[1].defaultNodeLabelExpression: label fpga is not accessible to the queue'],
    ],
    [
      'a label capacity without access',
      TWO_QUEUES.replace(
        '  - name: b\n    capacity: 50\n    accessibleNodeLabels: [gpu]',
        '  - name: b\n    capacity: 50\n    accessibleNodeLabels: []',
      ),
      ['11 queues[1].labelCapacity.gpu: a capacity in label gpu, which the queue cannot access'],
    ],
    [
      'duplicate queue names',
      TWO_QUEUES.replace('name: b', 'name: a'),
      ['8 queues[1].name: duplicate queue name a (also queues[0])'],
    ],
    [
      'a capacity over 100',
      TWO_QUEUES.replace('capacity: 50', 'capacity: 150'),
      ['5 queues[0].capacity: Too big: expected number to be <=100'],
    ],
    [
      'a negative container size',
      'containerMemoryMB: -2048\n',
      ['3 containerMemoryMB: Too small: expected number to be >0'],
    ],
    [
      'a negative default input',
      'defaultJob: { maps: 4, reduces: 1, inputBytes: -1 }\n',
      ['3 defaultJob.inputBytes: Too small: expected number to be >=0'],
    ],
    [
      'a negative file size',
      'hdfsFiles:\n  - { path: /d/f, bytes: -5 }\n',
      ['4 hdfsFiles[0].bytes: Too small: expected number to be >=0'],
    ],
    [
      'a relative file path',
      'hdfsFiles:\n  - { path: d/f, bytes: 5 }\n',
      ['4 hdfsFiles[0].path: an absolute file path, e.g. /data/events/part-00000'],
    ],
    [
      'a file label no node has',
      'hdfsFiles:\n  - { path: /d/f, bytes: 5, label: ssd }\n',
      ['4 hdfsFiles[0].label: no node has label ssd'],
    ],
    [
      'a duplicate file and a file that is a directory',
      'hdfsFiles:\n  - { path: /d, bytes: 5 }\n  - { path: /d/f, bytes: 5 }\n  - { path: /d/f, bytes: 6 }\n',
      [
        '4 hdfsFiles[0].path: /d is a file and also the directory of /d/f',
        '6 hdfsFiles[2].path: duplicate path /d/f (also hdfsFiles[1])',
      ],
    ],
    [
      'an unknown placement policy',
      'placementPolicy: fastest\n',
      [
        expect.stringMatching(
          /^3 placementPolicy: unknown placement policy "fastest"; known: .*fifo/,
        ) as unknown as string,
      ],
    ],
    [
      'a bad placement argument',
      'placementPolicy: delay\nplacementArgs: { maxDelayMs: -1 }\n',
      [expect.stringMatching(/^4 placementArgs.maxDelayMs: /) as unknown as string],
    ],
    [
      'a priority cap that is not an integer',
      'maxApplicationPriority: 2.5\n',
      ['3 maxApplicationPriority: Invalid input: expected int, received number'],
    ],
    ['a YAML syntax error', 'queues: [\n', [expect.stringMatching(/^4 \(syntax\): /) as unknown as string]],
  ])('%s', (_name, body, expected) => {
    const got = problems(body);
    expect(got).toEqual(expected);
    // Every problem names the file.
    expect(issuesOf(() => parse(body)).every((i) => i.file === 'emu.yaml')).toBe(true);
  });

  it('examples/bad/emulator-capacities.yaml: the gpu partition adds up to 80, besteffort max below its capacity', () => {
    const file = join(examples, 'bad', 'emulator-capacities.yaml');
    expect(issuesOf(() => loadEmulatorConfigFile(file))).toEqual([
      {
        path: 'queues',
        message: "children's capacities in the partition gpu add up to 80, not 100",
        file,
        line: 6,
      },
      { path: 'queues[1].maxCapacity', message: 'maximum 30 is below the capacity 40', file, line: 13 },
    ]);
  });

  it('property: any queue layout whose capacities add up to 100 per partition loads as written', () => {
    const shares = (n: number) =>
      fc.array(fc.integer({ min: 0, max: 100 }), { minLength: n - 1, maxLength: n - 1 }).map((cuts) => {
        const points = [0, ...cuts.sort((a, b) => a - b), 100];
        return points.slice(1).map((p, i) => p - points[i]!);
      });
    const layout = fc
      .integer({ min: 1, max: 6 })
      .chain((n) => fc.tuple(shares(n), shares(n), fc.array(fc.boolean(), { minLength: n, maxLength: n })));
    fc.assert(
      fc.property(layout, ([cap, gpu, reservable]) => {
        const queues: QueueConfig[] = cap.map((c, i) => ({
          name: `q${i}`,
          capacity: c,
          maxCapacity: Math.min(100, c + 10),
          // Every queue may use the GPU partition: one with a 0 share of it is still legal.
          accessibleNodeLabels: ['gpu'],
          labelCapacity: { gpu: gpu[i]! },
          defaultNodeLabelExpression: i % 2 ? 'gpu' : '',
          reservable: reservable[i]!,
          submitAcl: '*',
        }));
        const s = parseEmulatorConfigFile(
          stringify({ format: EMULATOR_CONFIG_FORMAT, version: 1, queues }),
          'p.yaml',
        );
        expect(s.config.queues).toEqual(queues);
        expect(s.config.cluster).toEqual(defaultEmulatorCluster());
      }),
      { numRuns: 60 },
    );
  });

  it("property: moving one queue off 100 in one partition gives exactly that partition's problem", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -30, max: 30 }).filter((d) => d !== 0),
        fc.constantFrom('default', 'gpu'),
        (delta, partition) => {
          const queues = defaultEmulatorConfig().queues.map((q) => ({
            ...q,
            labelCapacity: { ...q.labelCapacity },
          }));
          // besteffort: 30 in the default partition, 50 in gpu; both stay within [0, 100].
          if (partition === 'default') queues[1]!.capacity += delta;
          else queues[1]!.labelCapacity.gpu! += delta;
          queues[1]!.maxCapacity = 100;
          const text = stringify({ format: EMULATOR_CONFIG_FORMAT, version: 1, queues });
          const got = issuesOf(() => parseEmulatorConfigFile(text, 'p.yaml')).map(
            (i) => `${i.path}: ${i.message}`,
          );
          expect(got).toEqual([
            `queues: children's capacities in the ${partition === 'default' ? 'default partition' : 'partition gpu'} add up to ${100 + delta}, not 100`,
          ]);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('command-line flags over the configuration file', () => {
  const base: EmulatorCliOptions = {
    config: join(examples, 'emulator.yaml'),
    host: '127.0.0.1',
    port: 0,
    jhsPort: 0,
    speed: 1,
    seed: 1,
    maxPriority: 0,
    placement: 'fifo',
    auth: 'none',
    latencyMs: 0,
    failShare: 0,
    failStatus: '500,503',
    truncateShare: 0,
    corruptShare: 0,
    loseAnswerShare: 0,
  };

  it("a flag left at its default does not override the file's value", () => {
    const dir = join(examples, 'emulator.yaml');
    const s = emulatorSetupFrom({ ...base, config: dir, maxPriority: 0 }, () => false);
    expect(s.config).toEqual(defaultEmulatorConfig({ maxApplicationPriority: 10 }));
  });

  it('flags given replace the priority cap, the placement policy, the cluster and the per-MB costs', () => {
    const given = new Set(['maxPriority', 'placement']);
    const s = emulatorSetupFrom(
      {
        ...base,
        maxPriority: 4,
        placement: 'delay',
        cluster: join(examples, 'cluster.yaml'),
        mapSecondsPerMb: 0.5,
      },
      (k) => given.has(k),
    );
    expect(s.config.maxApplicationPriority).toBe(4);
    expect(s.config.placementPolicy).toBe('delay');
    expect(s.config.cluster.nodeClasses.map((c) => c.name)).toEqual(['opteron275', 'opteron64', 'gpu']);
    expect(s.config.cluster.costs.cpu.mapSecondsPerMB).toBe(0.5);
    expect(s.config.cluster.costs.gpu.mapSecondsPerMB).toBe(0.5);
    // The file's queues are kept, and were checked against the cluster of the flag.
    expect(s.config.queues).toEqual(defaultEmulatorConfig().queues);
  });

  it('a flag that makes the file invalid is reported at the field it overrides', () => {
    const issues = issuesOf(() =>
      emulatorSetupFrom({ ...base, placement: 'nosuch' }, (k) => k === 'placement'),
    );
    expect(issues.map((i) => `${i.line} ${i.path}`)).toEqual(['88 placementPolicy']);
  });

  it('without --config, the built-in queues on a cluster lacking their label are an error, not a crash', () => {
    const issues = issuesOf(() =>
      emulatorSetupFrom({
        ...base,
        config: undefined,
        cluster: join(examples, 'bad', 'cpu-only-cluster.yaml'),
      }),
    );
    expect(issues[0]!.message).toMatch(
      /no node has label gpu \(the built-in queues; give them in a --config file\)/,
    );
  });
});
