import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { dataOverlap, energyEfficiency, mapTaskEnergy } from '../../../src/core/energy/fitness';
import { parseEnergyProfile, type ClusterNodeClass } from '../../../src/core/energy/profile';
import { issueLines } from '../../validation-issues';

const shipped = () => parse(readFileSync(join(__dirname, '../../../config/energy-profile.yaml'), 'utf8'));
const seedCluster: ClusterNodeClass[] = [
  { nodeClass: 'cpu', nodes: 6, labels: [] },
  { nodeClass: 'gpu', nodes: 1, labels: ['gpu'] },
  { nodeClass: 'gpu-210', nodes: 1, labels: ['gpu'] },
];

describe('energy profile', () => {
  it('the shipped profile loads for the seed cluster and holds the measured values (Tables 6.8-6.10)', () => {
    const p = parseEnergyProfile(shipped(), seedCluster);
    expect(p.nodeClasses.cpu.idleWatts).toBe(235);
    expect(mapTaskEnergy(p, 'md-simulation', 'cpu', 'cpu')).toBe(0.0269);
    // The efficiency factors of Table 6.9 come back from the energies to two decimals.
    const factor = (cls: string, kind: 'cpu' | 'gpu') =>
      0.0269 / mapTaskEnergy(p, 'md-simulation', cls, kind)!;
    expect(
      [factor('gpu', 'cpu'), factor('gpu', 'gpu'), factor('gpu-210', 'cpu'), factor('gpu-210', 'gpu')].map(
        (f) => +f.toFixed(2),
      ),
    ).toEqual([1.23, 1.41, 1.4, 1.52]);
    // Table 6.10 is given as factors: energies are relative, and the efficiencies are the factors.
    expect(p.workloads.loadgen.unit).toBe('relative');
    expect(energyEfficiency(p, 'loadgen', 'gpu-210', 'cpu')).toBeCloseTo(1.05, 12);
    expect(mapTaskEnergy(p, 'loadgen', 'cpu', 'gpu')).toBeUndefined();
    expect(Object.isFrozen(p.workloads)).toBe(true);
  });

  it('rejects a profile missing a node class the cluster has, naming the class and its node count', () => {
    const cluster = [...seedCluster, { nodeClass: 'gpu-node', nodes: 2, labels: ['gpu'] }];
    const issues = issueLines(() => parseEnergyProfile(shipped(), cluster));
    expect(issues).toContain('profile.nodeClasses.gpu-node: missing, the cluster has 2 nodes of this class');
    expect(issues).toContain(
      'profile.workloads.md-simulation.mapTaskKwh.gpu-node: missing, the cluster has 2 nodes of this class',
    );
    expect(issues).toContain(
      'profile.workloads.loadgen.efficiencyFactor.gpu-node: missing, the cluster has 2 nodes of this class',
    );
  });

  it('rejects a negative or zero energy, naming the entry', () => {
    const raw = shipped();
    raw.workloads['md-simulation'].mapTaskKwh.gpu.gpu = -0.01;
    raw.workloads.loadgen.efficiencyFactor.cpu.cpu = 0;
    const issues = issueLines(() => parseEnergyProfile(raw, seedCluster));
    expect(issues).toContain('profile.workloads.md-simulation.mapTaskKwh.gpu.gpu: must be a positive number');
    expect(issues).toContain('profile.workloads.loadgen.efficiencyFactor.cpu.cpu: must be a positive number');
  });

  it('rejects an unknown label, naming the entry and the labels the cluster has', () => {
    const raw = shipped();
    raw.nodeClasses['gpu-210'].labels = ['gpu', 'cuda'];
    expect(issueLines(() => parseEnergyProfile(raw, seedCluster))).toEqual([
      'profile.nodeClasses.gpu-210.labels.1: unknown label "cuda"; the cluster\'s labels are: gpu',
    ]);
  });

  it('rejects a GPU energy on a class without the GPU label, labels that differ from the cluster, unknown keys and workloads', () => {
    const raw = shipped();
    raw.workloads['md-simulation'].mapTaskKwh.cpu.gpu = 0.01;
    raw.nodeClasses.gpu.labels = [];
    raw.defaultWorkload.cpu = 'terasort';
    raw.nodeClasses.cpu.idle = 3;
    const issues = issueLines(() => parseEnergyProfile(raw, seedCluster));
    expect(issues).toEqual(['profile.nodeClasses.cpu.idle: Unrecognized key: "idle"']);
    delete raw.nodeClasses.cpu.idle;
    expect(issueLines(() => parseEnergyProfile(raw, seedCluster))).toEqual([
      "profile.nodeClasses.gpu.labels: [] differ from the cluster's labels for this class [gpu]",
      'profile.workloads.md-simulation.mapTaskKwh.cpu.gpu: node class "cpu" does not carry the GPU label "gpu"',
      'profile.workloads.md-simulation.mapTaskKwh.gpu.gpu: node class "gpu" does not carry the GPU label "gpu"',
      'profile.defaultWorkload.cpu: unknown workload "terasort"; known: md-simulation, loadgen',
    ]);
  });
});

describe('fitness inputs', () => {
  it("dop is the share of the job's blocks with a replica on the node, and uniform without replica information", () => {
    const tasks = [
      { taskId: 'a', replicaNodes: ['n1', 'n2'] },
      { taskId: 'b', replicaNodes: ['n2'] },
      { taskId: 'c', replicaNodes: ['n3'] },
      { taskId: 'd', replicaNodes: ['n1'] },
    ];
    expect(dataOverlap(tasks, 'n1')).toBe(0.5);
    expect(dataOverlap(tasks, 'n4')).toBe(0);
    expect(dataOverlap([{ taskId: 'x', replicaNodes: [] }], 'n4')).toBe(1);
  });
});
