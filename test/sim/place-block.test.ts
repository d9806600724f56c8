/**
 * Engine.placeBlock: a named block put on given nodes before a job reads it (the emulator's
 * HDFS files). The job's maps then see exactly those replicas, locality follows them, and a
 * block placed on fewer nodes than the replication factor leaves no phantom replica.
 */
import fc from 'fast-check';
import { Engine } from '../../src/sim/engine';
import { acceptAll, cluster, greedyLocal, nodeClass, traceJob } from './doubles';

const spec = cluster({ nodeClasses: [nodeClass('n', 5)], hdfs: { blockMB: 128, replication: 2, blocks: 3 } });

function engine(seed = 1): Engine {
  return new Engine(spec, { seed, admission: acceptAll(), placement: greedyLocal() });
}

describe('Engine.placeBlock', () => {
  it('places a block where it is told, and a job naming it reads those replicas', () => {
    const e = engine();
    e.placeBlock('/data/a#0', [3, 1]);
    e.placeBlock('/data/a#1', [4]);
    expect(e.replicasOf('/data/a#0')).toEqual([3, 1]);
    expect(e.replicasOf('/data/a#1')).toEqual([4]);
    e.submit(traceJob('j', { maps: 2, blocks: ['/data/a#0', '/data/a#1'] }));
    e.run();
    // One replica of the two: the empty place is no node, so the view shows one holder.
    const maps = e.taskRecords().filter((t) => t.kind === 'map' && t.completed);
    expect(maps).toHaveLength(2);
    for (const t of maps) {
      const holders = e.replicasOf(t.index === 0 ? '/data/a#0' : '/data/a#1').map((i) => e.nodeId(i));
      expect(t.local).toBe(holders.includes(t.node));
    }
    expect(e.outcomes()[0]!.localMaps).toBe(maps.filter((t) => t.local).length);
  });

  it('refuses a block placed before, a generated block, a bad node index, a node twice, too many replicas', () => {
    const e = engine();
    e.placeBlock('b', [0, 1]);
    expect(() => e.placeBlock('b', [2])).toThrow(/already placed/);
    expect(() => e.placeBlock('blk_0', [2])).toThrow(/already placed/);
    e.submit(traceJob('j', { maps: 2 }));
    expect(() => e.placeBlock('j/blk_1', [2])).toThrow(/already placed/);
    expect(() => e.placeBlock('c', [5])).toThrow(/no node with index 5/);
    expect(() => e.placeBlock('c', [-1])).toThrow(/no node with index -1/);
    expect(() => e.placeBlock('c', [1.5])).toThrow(/no node with index 1.5/);
    expect(() => e.placeBlock('c', [2, 2])).toThrow(/two replicas/);
    expect(() => e.placeBlock('c', [0, 1, 2])).toThrow(/between 1 and 2/);
    expect(() => e.placeBlock('c', [])).toThrow(/between 1 and 2/);
    expect(e.replicasOf('c')).toEqual([]);
  });

  it('draws nothing from the block stream: the other jobs of a run keep their blocks', () => {
    const plain = engine(9);
    const placed = engine(9);
    placed.placeBlock('/f#0', [0]);
    for (const e of [plain, placed]) {
      e.submit(traceJob('a', { maps: 6 }));
      e.submit(traceJob('b', { maps: 1, blocks: ['/f#0'], arrival: 1 }));
    }
    const blocksOf = (e: Engine) => Array.from({ length: 6 }, (_, i) => e.replicasOf(`a/blk_${i}`));
    expect(blocksOf(placed)).toEqual(blocksOf(plain));
  });

  it('property: replicas read back as placed, and every map attempt is local exactly on a holder', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uniqueArray(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 2 }), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.integer({ min: 1, max: 1000 }),
        (placements, seed) => {
          const e = engine(seed);
          placements.forEach((nodes, b) => e.placeBlock(`/p#${b}`, nodes));
          placements.forEach((nodes, b) => expect(e.replicasOf(`/p#${b}`)).toEqual(nodes));
          const blocks = placements.map((_, b) => `/p#${b}`);
          e.submit(traceJob('j', { maps: blocks.length, blocks }));
          e.run();
          for (const t of e.taskRecords().filter((r) => r.kind === 'map')) {
            const holders = placements[t.index]!.map((i) => e.nodeId(i));
            expect(t.local).toBe(holders.includes(t.node));
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
