import fc from 'fast-check';
import {
  hostOf,
  hostPartitionsOf,
  inputFiles,
  partitionDop,
  rankPartitions,
  uniformLocality,
  type LocatedBlock,
} from '../../../src/core/placement/common/locality';

const MB = 1024 * 1024;

/** cpu-1, cpu-2 in the default partition; gpu-1, gpu-2 labelled `gpu`. */
const HOSTS = hostPartitionsOf([
  { host: 'cpu-1', nodeLabels: [] },
  { host: 'cpu-2', nodeLabels: [] },
  { host: 'gpu-1', nodeLabels: ['gpu'] },
  { host: 'GPU-2', nodeLabels: ['gpu'] },
]);
const block = (mb: number, ...hosts: string[]): LocatedBlock => ({ length: mb * MB, hosts });

describe('hostOf: a block location names hosts and host:port names, matched on the host', () => {
  it.each([
    ['dn1.example.com:9866', 'dn1.example.com'],
    ['DN1.Example.com', 'dn1.example.com'],
    ['10.0.0.7:9866', '10.0.0.7'],
    ['[::1]:9866', '::1'],
    ['fe80::1', 'fe80::1'],
    ['host', 'host'],
  ])('%s -> %s', (name, host) => expect(hostOf(name)).toBe(host));
});

describe('dop per partition (He, dissertation, eq. 6.2, lifted to label partitions)', () => {
  it('the three blocks of the doc comment: 0.6 in the default partition, 0.8 in gpu', () => {
    const blocks = [block(128, 'gpu-1', 'cpu-1'), block(128, 'gpu-1', 'gpu-2'), block(64, 'cpu-2')];
    const loc = partitionDop(blocks, HOSTS, ['', 'gpu']);
    expect(loc).toEqual({
      known: true,
      totalBytes: 320 * MB,
      locatedBytes: 320 * MB,
      dop: { '': 0.6, gpu: 0.8 },
    });
  });

  it('matches replicas by their host:port names too, and host names case-insensitively', () => {
    const blocks: LocatedBlock[] = [
      { length: 100, hosts: [], names: ['gpu-2:9866'] },
      { length: 300, hosts: ['CPU-1'], names: ['10.0.0.1:9866'] },
    ];
    expect(partitionDop(blocks, HOSTS, ['', 'gpu']).dop).toEqual({ '': 0.75, gpu: 0.25 });
  });

  it('counts bytes on unknown hosts in the total but in no partition', () => {
    const loc = partitionDop([block(64, 'gpu-1'), block(192, 'datanode-9')], HOSTS, ['', 'gpu']);
    expect(loc.known).toBe(true);
    expect(loc.locatedBytes).toBe(64 * MB);
    expect(loc.dop).toEqual({ '': 0, gpu: 0.25 });
  });

  it('is uniform, 1 everywhere, when no replica is on a node the RM reports, or there is no byte', () => {
    expect(partitionDop([block(128, 'elsewhere')], HOSTS, ['', 'gpu'])).toEqual({
      known: false,
      totalBytes: 128 * MB,
      locatedBytes: 0,
      dop: { '': 1, gpu: 1 },
    });
    expect(partitionDop([], HOSTS, ['', 'gpu']).dop).toEqual({ '': 1, gpu: 1 });
    expect(partitionDop([block(0, 'gpu-1')], HOSTS, ['gpu']).known).toBe(false);
  });

  const arbBlocks = fc.array(
    fc.record({
      length: fc.integer({ min: 0, max: 512 * MB }),
      hosts: fc.uniqueArray(fc.constantFrom('cpu-1', 'cpu-2', 'gpu-1', 'gpu-2', 'other'), { maxLength: 3 }),
    }),
    { maxLength: 30 },
  );

  it('property: dop is in [0, 1] in every partition', () => {
    fc.assert(
      fc.property(arbBlocks, (blocks) => {
        const { dop } = partitionDop(blocks, HOSTS, ['', 'gpu']);
        for (const v of Object.values(dop)) expect(v >= 0 && v <= 1).toBe(true);
      }),
    );
  });

  it('property: over disjoint partitions the dops cover every located byte at least once, at most once per replica', () => {
    fc.assert(
      fc.property(arbBlocks, (blocks) => {
        const loc = partitionDop(blocks, HOSTS, ['', 'gpu']);
        fc.pre(loc.known);
        const sum = loc.dop['']! + loc.dop.gpu!;
        const eps = 1e-9;
        expect(sum).toBeGreaterThanOrEqual(loc.locatedBytes / loc.totalBytes - eps);
        // Each located block counts in at most two partitions here.
        expect(sum).toBeLessThanOrEqual((2 * loc.locatedBytes) / loc.totalBytes + eps);
        // Every block with a replica on a known host: the partitions cover the whole input.
        if (blocks.every((b) => b.length === 0 || b.hosts.some((h) => h !== 'other')))
          expect(sum).toBeGreaterThanOrEqual(1 - eps);
      }),
    );
  });

  it('property: a block with replicas only in one partition moves dop there and nowhere else', () => {
    fc.assert(
      fc.property(arbBlocks, fc.integer({ min: 1, max: 512 * MB }), (blocks, extra) => {
        const before = partitionDop(blocks, HOSTS, ['', 'gpu']);
        fc.pre(before.known);
        const after = partitionDop([...blocks, { length: extra, hosts: ['gpu-1'] }], HOSTS, ['', 'gpu']);
        expect(after.dop.gpu!).toBeGreaterThanOrEqual(before.dop.gpu! - 1e-12);
        expect(after.dop['']!).toBeLessThanOrEqual(before.dop['']! + 1e-12);
      }),
    );
  });
});

describe('the partition order by h = ef * dop (He, dissertation, eq. 6.1)', () => {
  // The default energy profile's md-simulation (adaptive): 0.0269 kWh per map task on a CPU
  // node, 0.01908 kWh in a GPU container of a GPU node.
  const candidates = [
    { label: '', mapEnergy: 0.0269 },
    { label: 'gpu', mapEnergy: 0.01908 },
  ];

  it('with uniform dop it is the energy order: gpu first for the adaptive workload', () => {
    const ranked = rankPartitions(candidates, uniformLocality(['', 'gpu']));
    expect(ranked.map((r) => r.label)).toEqual(['gpu', '']);
    expect(ranked[0]!.h).toBeCloseTo(1 / 0.01908, 6);
    expect(ranked[1]!.h).toBeCloseTo(1 / 0.0269, 6);
  });

  it('data on the CPU nodes outweighs the GPU energy advantage: h = 37.2 * 0.9 > 52.4 * 0.2', () => {
    const ranked = rankPartitions(candidates, {
      known: true,
      totalBytes: 10,
      locatedBytes: 10,
      dop: { '': 0.9, gpu: 0.2 },
    });
    expect(ranked.map((r) => [r.label, r.dop])).toEqual([
      ['', 0.9],
      ['gpu', 0.2],
    ]);
    expect(ranked[0]!.h).toBeCloseTo(0.9 / 0.0269, 6);
    expect(ranked[1]!.h).toBeCloseTo(0.2 / 0.01908, 6);
  });

  it('without an energy profile it orders by dop alone, and keeps the given order on ties', () => {
    const none = [
      { label: '', mapEnergy: undefined },
      { label: 'gpu', mapEnergy: undefined },
    ];
    const byDop = rankPartitions(none, {
      known: true,
      totalBytes: 4,
      locatedBytes: 4,
      dop: { '': 0.25, gpu: 0.75 },
    });
    expect(byDop.map((r) => [r.label, r.ef, r.h])).toEqual([
      ['gpu', null, 0.75],
      ['', null, 0.25],
    ]);
    expect(rankPartitions(none, uniformLocality(['', 'gpu'])).map((r) => r.label)).toEqual(['', 'gpu']);
  });

  it('a partition without an energy figure ranks last when another has one', () => {
    const ranked = rankPartitions(
      [
        { label: '', mapEnergy: undefined },
        { label: 'gpu', mapEnergy: 2 },
      ],
      { known: true, totalBytes: 1, locatedBytes: 1, dop: { '': 1, gpu: 0.1 } },
    );
    expect(ranked.map((r) => [r.label, r.ef, r.h])).toEqual([
      ['gpu', 0.5, 0.05],
      ['', 0, 0],
    ]);
  });

  it('ranks the lower energy first when two energies a few ulps apart have equal reciprocals', () => {
    const [eGpu, eCpu] = [0.00010000000000000003, 0.00010000000000000005];
    expect(1 / eGpu).toBe(1 / eCpu);
    const order = rankPartitions(
      [
        { label: '', mapEnergy: eCpu },
        { label: 'gpu', mapEnergy: eGpu },
      ],
      uniformLocality(['', 'gpu']),
    ).map((r) => r.label);
    expect(order).toEqual(['gpu', '']);
  });

  it('property: with uniform dop the order is the energy order (the sidecar before locality)', () => {
    fc.assert(
      fc.property(
        fc.option(fc.double({ min: 1e-4, max: 10, noNaN: true }), { nil: undefined }),
        fc.option(fc.double({ min: 1e-4, max: 10, noNaN: true }), { nil: undefined }),
        (eCpu, eGpu) => {
          const order = rankPartitions(
            [
              { label: '', mapEnergy: eCpu },
              { label: 'gpu', mapEnergy: eGpu },
            ],
            uniformLocality(['', 'gpu']),
          ).map((r) => r.label);
          // The rule the sidecar used: gpu first iff it has a figure and it is strictly lower.
          const gpuFirst = eGpu !== undefined && (eCpu === undefined || eGpu < eCpu);
          expect(order).toEqual(gpuFirst ? ['gpu', ''] : ['', 'gpu']);
        },
      ),
    );
  });

  it('property: the ranking is a permutation, sorted by h', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.double({ min: 1e-3, max: 5, noNaN: true }), { nil: undefined }), {
          minLength: 1,
          maxLength: 5,
        }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 5, maxLength: 5 }),
        (energies, dops) => {
          const cands = energies.map((e, i) => ({ label: `p${i}`, mapEnergy: e }));
          const loc = {
            known: true,
            totalBytes: 1,
            locatedBytes: 1,
            dop: Object.fromEntries(cands.map((c, i) => [c.label, dops[i]!])),
          };
          const ranked = rankPartitions(cands, loc);
          expect(ranked.map((r) => r.label).sort()).toEqual(cands.map((c) => c.label).sort());
          for (let i = 1; i < ranked.length; i++)
            expect(ranked[i - 1]!.h).toBeGreaterThanOrEqual(ranked[i]!.h);
        },
      ),
    );
  });
});

describe('input files as FileInputFormat lists them (one level, no hidden files)', () => {
  const file = (pathSuffix: string, length: number, blockSize = 134217728) => ({
    pathSuffix,
    type: 'FILE',
    length,
    blockSize,
  });
  it('a file path is itself; a directory gives its visible files, not its subdirectories', () => {
    expect(
      inputFiles([
        { path: '/data/a.csv', entries: [file('', 100)] },
        {
          path: '/data/logs/',
          entries: [
            file('part-0', 10, 1048576),
            file('_SUCCESS', 0),
            file('.part-1.crc', 1),
            { pathSuffix: 'sub', type: 'DIRECTORY', length: 0 },
            file('part-1', 20),
          ],
        },
        { path: '/data/empty', entries: [] },
        { path: '/data/a.csv', entries: [file('', 100)] },
      ]),
    ).toEqual([
      { path: '/data/a.csv', length: 100, blockSize: 134217728 },
      { path: '/data/logs/part-0', length: 10, blockSize: 1048576 },
      { path: '/data/logs/part-1', length: 20, blockSize: 134217728 },
    ]);
  });

  it("reads Hadoop's LISTSTATUS samples: a directory's one file, and a file path", () => {
    // webhdfs-liststatus.response.json: a.patch (24930 bytes) and the directory bar.
    expect(
      inputFiles([
        {
          path: '/foo',
          entries: [file('a.patch', 24930), { pathSuffix: 'bar', type: 'DIRECTORY', length: 0 }],
        },
      ]),
    ).toEqual([{ path: '/foo/a.patch', length: 24930, blockSize: 134217728 }]);
  });
});
