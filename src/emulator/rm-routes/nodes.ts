import type { Request } from 'express';
import { remoteRejection } from '../../errors/emulated-rm-rejection';
import { answer, queryList } from '../http';
import { nodePartition } from '../ports';
import type { Content } from '../render';
import type { EmulatedRm, NodeUsage } from '../rm-state';
import { C, resource, type RmContext } from './context';

/** Nodes (`/nodes`, `/nodes/{id}`) and node labels (`/get-node-labels` and the rest). */
export function registerNodeRoutes(c: RmContext): void {
  const { app, rm, h } = c;
  app.get(
    `${C}/nodes`,
    h((req, res) => {
      const states = queryList(req, 'states')?.map((s) => s.toUpperCase());
      for (const s of states ?? []) {
        if (!NODE_STATES.includes(s)) {
          throw remoteRejection(
            400,
            'BadRequestException',
            `java.lang.IllegalArgumentException: No enum constant org.apache.hadoop.yarn.api.records.NodeState.${s}`,
          );
        }
      }
      const nodes = rm
        .nodeUsage()
        .filter((n) => !states || states.length === 0 || states.includes(n.alive ? 'RUNNING' : 'LOST'));
      answer(req, res, 'nodes', { node: nodes.map((n) => nodeContent(c, n)) });
    }),
  );
  app.get(
    `${C}/nodes/:nodeId`,
    h((req, res) => answer(req, res, 'node', nodeContent(c, mustNode(rm, String(req.params.nodeId))))),
  );
}

export function registerLabelRoutes(c: RmContext): void {
  const { app, rm, h } = c;
  app.get(
    `${C}/get-node-labels`,
    h((req, res) =>
      answer(req, res, 'nodeLabelsInfo', { nodeLabelInfo: rm.labels().map((l) => labelInfo(c, l, true)) }),
    ),
  );
  app.get(
    `${C}/get-rm-node-labels`,
    h((req, res) => answer(req, res, 'nodeLabelsInfo', { nodeLabelInfo: rmNodeLabels(c) })),
  );
  app.get(
    `${C}/get-node-to-labels`,
    h((req, res) => {
      const entries = rm
        .nodeUsage()
        .filter((n) => n.labels.length > 0)
        .map((n) => ({
          key: n.id,
          value: { nodeLabelInfo: n.labels.map((l) => ({ name: l, exclusivity: true })) },
        }));
      answer(req, res, 'nodeToLabelsInfo', { nodeToLabels: { entry: entries } });
    }),
  );
  app.get(
    `${C}/label-mappings`,
    h((req, res) =>
      answer(req, res, 'labelsToNodesInfo', { labelsToNodes: { entry: labelMappings(c, req) } }),
    ),
  );
  app.get(
    `${C}/nodes/:nodeId/get-labels`,
    h((req, res) => {
      const n = mustNode(rm, String(req.params.nodeId));
      answer(req, res, 'nodeLabelsInfo', {
        nodeLabelInfo: n.labels.map((l) => ({ name: l, exclusivity: true })),
      });
    }),
  );
}

const NODE_STATES = [
  'NEW',
  'RUNNING',
  'UNHEALTHY',
  'DECOMMISSIONING',
  'DECOMMISSIONED',
  'LOST',
  'REBOOTED',
  'SHUTDOWN',
];

function nodeContent({ rm, cfg, slot }: RmContext, n: NodeUsage): Content {
  const total = slot(n.containers, n.gpus);
  const used = slot(n.usedContainers, n.usedGpus);
  const avail = slot(n.containers - n.usedContainers, n.gpus - n.usedGpus);
  return {
    rack: '/default-rack',
    state: n.alive ? 'RUNNING' : 'LOST',
    id: n.id,
    nodeHostName: n.host,
    nodeHTTPAddress: `${n.host}:8042`,
    lastHealthUpdate: rm.time.nowEpochMs(),
    version: cfg.hadoopVersion,
    healthReport: '',
    numContainers: n.usedContainers,
    usedMemoryMB: used.memoryMB,
    availMemoryMB: avail.memoryMB,
    usedVirtualCores: used.vcores,
    availableVirtualCores: avail.vcores,
    nodeLabels: n.labels,
    totalResource: resource(total),
    usedResource: resource(used),
    availableResource: resource(avail),
  };
}

function mustNode(rm: EmulatedRm, id: string): NodeUsage {
  const n = rm.nodeUsage().find((x) => x.id === id || x.host === id);
  if (!n) throw remoteRejection(404, 'NotFoundException', `java.lang.Exception: nodeId, ${id}, is not found`);
  return n;
}

function labelInfo(
  { rm, slot }: RmContext,
  name: string,
  withResources: boolean,
  activeNMs?: number,
): Content {
  const nodes = rm.nodeUsage().filter((n) => n.alive && nodePartition(n.labels) === name);
  const free = nodes.reduce((s, n) => s + n.containers - n.usedContainers, 0);
  const gpus = nodes.reduce((s, n) => s + n.gpus - n.usedGpus, 0);
  return {
    name,
    exclusivity: true,
    activeNMs,
    partitionInfo: withResources ? { resourceAvailable: resource(slot(free, gpus)) } : undefined,
  };
}

/** `/get-rm-node-labels`: the default partition first, with the live nodes of each. */
function rmNodeLabels(c: RmContext): Content[] {
  const nodes = c.rm.nodeUsage().filter((n) => n.alive);
  const active = (p: string) => nodes.filter((n) => nodePartition(n.labels) === p).length;
  return [
    { ...(labelInfo(c, '', true, active('')) as object), name: '<DEFAULT_PARTITION>' },
    ...c.rm.labels().map((l) => labelInfo(c, l, true, active(l))),
  ] as Content[];
}

/** `/label-mappings[?labels=...]`: each label with its nodes and free resources. */
function labelMappings(c: RmContext, req: Request): Content[] {
  const wanted = queryList(req, 'labels');
  const labels = c.rm.labels().filter((l) => !wanted || wanted.length === 0 || wanted.includes(l));
  return labels.map((l) => {
    const info = labelInfo(c, l, true) as { partitionInfo: Content };
    return {
      key: { name: l, exclusivity: true },
      value: {
        nodes: c.rm
          .nodeUsage()
          .filter((n) => n.labels.includes(l))
          .map((n) => n.id),
        partitionInfo: info.partitionInfo,
      },
    };
  });
}
