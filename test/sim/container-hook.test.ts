/**
 * The engine's per-container placement hook (PlacementPort.assignContainer): asked one
 * container at a time with current views, maps and reduces alike, told which node asks;
 * a reduce that cannot start is a port bug the engine reports instead of running it.
 */
import { Engine } from '../../src/sim/engine';
import type { ContainerAssignment, JobView, NodeView, PlacementPort } from '../../src/sim/policy-port';
import { acceptAll, cluster, nodeClass, traceJob } from './doubles';

/** Maps on any node (first pending of the first job); reduces only on nodes of class `r`. */
function reducesOn(className: string): PlacementPort & { asked: Array<[string, number]> } {
  const asked: Array<[string, number]> = [];
  const port = {
    name: 'reduces-on',
    asked,
    jobAdded: () => undefined,
    jobRemoved: () => undefined,
    assignMaps: () => [],
    assignContainer(node: NodeView, queue: readonly JobView[]): ContainerAssignment | null {
      asked.push([node.id, node.freeMapSlots]);
      if (node.className === className && node.freeReduceSlots > 0) {
        const r = queue.find((j) => j.mapsDone && j.pendingReduces > 0);
        if (r) return { kind: 'reduce', jobId: r.id };
      }
      if (node.freeMapSlots <= 0) return null;
      const m = queue.find((j) => j.pendingMaps.length > 0);
      return m ? { kind: 'map', jobId: m.id, mapIndex: m.pendingMaps[0]! } : null;
    },
  };
  return port;
}

describe('Engine with a per-container placement port', () => {
  const spec = cluster({
    slotModel: 'unified',
    nodeClasses: [nodeClass('m', 2, { containers: 2 }), nodeClass('r', 1, { containers: 2 })],
  });

  it('puts every reduce where the port says, and fills a node container by container', () => {
    const placement = reducesOn('r');
    const engine = new Engine(spec, { seed: 3, admission: acceptAll(), placement });
    for (let i = 0; i < 3; i++) engine.submit(traceJob(`j${i}`, { maps: 4, reduces: 3, arrival: i }));
    engine.run();
    const records = engine.taskRecords().filter((t) => t.completed);
    expect(records.filter((t) => t.kind === 'reduce')).toHaveLength(9);
    expect(new Set(records.filter((t) => t.kind === 'reduce').map((t) => t.nodeClass))).toEqual(
      new Set(['r']),
    );
    expect(records.filter((t) => t.kind === 'map')).toHaveLength(12);
    expect(engine.outcomes().map((o) => o.status)).toEqual(['finished', 'finished', 'finished']);
    // Within one heartbeat the port saw the node's free count go down one container at a time.
    const firstNode = placement.asked[0]![0];
    expect(placement.asked.slice(0, 2)).toEqual([
      [firstNode, 2],
      [firstNode, 1],
    ]);
  });

  it('refuses a reduce of a job whose maps are not done', () => {
    const bad: PlacementPort = {
      name: 'bad',
      jobAdded: () => undefined,
      jobRemoved: () => undefined,
      assignMaps: () => [],
      assignContainer: (_node, queue) => (queue[0] ? { kind: 'reduce', jobId: queue[0].id } : null),
    };
    const engine = new Engine(spec, { seed: 1, admission: acceptAll(), placement: bad });
    engine.submit(traceJob('j', { maps: 2, reduces: 1 }));
    expect(() => engine.run()).toThrow(/assigned a reduce of j that cannot start/);
  });
});
