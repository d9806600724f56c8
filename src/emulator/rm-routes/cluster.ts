import type { Request, Response } from 'express';
import type { EmulatorConfig } from '../config';
import { answer, formatOf, query, sendExact } from '../http';
import { CONTENT_TYPE, type Content } from '../render';
import { C, type RmContext } from './context';

/** The cluster's own resources: info, `/isActive`, `/conf`, metrics, and delegation tokens. */
export function registerClusterRoutes(c: RmContext): void {
  const { app, controls, h } = c;
  // `/ws/v1/cluster` itself is redirected by a standby; only `/info` is its own (INDEX.md section 7).
  app.get(
    [C, `${C}/info`],
    h((req, res) => answer(req, res, 'clusterInfo', clusterInfo(c))),
  );
  app.get('/isActive', (_req, res) => {
    if (controls.faults.standbyOf === null) sendExact(res, 200, 'text/plain;charset=utf-8', 'I am Active!');
    else res.status(405).type('text/plain').send('STANDBY');
  });
  app.get('/conf', (req, res) => sendConf(req, res, c.cfg));
  app.get(
    `${C}/metrics`,
    h((req, res) => answer(req, res, 'clusterMetrics', clusterMetrics(c))),
  );
}

/**
 * Writes the emulator does not offer, answered as an RM without Kerberos does: a 403 text
 * entity naming the channel's auth type (`null` on a stock RM, `simple` with simple auth).
 */
export function registerDelegationTokenRoutes({ app, cfg, h }: RmContext): void {
  app.post(
    `${C}/delegation-token`,
    h((req, res) => {
      sendExact(
        res,
        403,
        CONTENT_TYPE[formatOf(req)],
        `Delegation token operations can only be carried out on a Kerberos authenticated channel. Expected auth type is kerberos, got type ${cfg.auth === 'simple' ? 'simple' : 'null'}`,
      );
    }),
  );
}

function clusterInfo({ rm, cfg, controls }: RmContext): Content {
  const ts = rm.clusterTimestamp;
  return {
    id: ts,
    startedOn: ts,
    state: 'STARTED',
    haState: controls.faults.standbyOf === null ? 'ACTIVE' : 'STANDBY',
    rmStateStoreName: 'org.apache.hadoop.yarn.server.resourcemanager.recovery.NullRMStateStore',
    resourceManagerVersion: cfg.hadoopVersion,
    resourceManagerBuildVersion: `${cfg.hadoopVersion} from yarn-sched-sidecar emulator`,
    resourceManagerVersionBuiltOn: '2024-01-01T00:00Z',
    hadoopVersion: cfg.hadoopVersion,
    hadoopBuildVersion: `${cfg.hadoopVersion} from yarn-sched-sidecar emulator`,
    hadoopVersionBuiltOn: '2024-01-01T00:00Z',
    haZooKeeperConnectionState: 'ResourceManager HA is not enabled.',
  };
}

type ConfProperty = { key: string; value: string; resource: string };

/**
 * Hadoop's ConfServlet (`/conf`, `/conf?name=KEY`): the settings the emulator has, each with
 * the file it would come from (a `-default.xml` when at its default).
 */
function confProperties(cfg: EmulatorConfig): ConfProperty[] {
  const yarn = (key: string, value: string | number | boolean, dflt: string | number | boolean) => ({
    key,
    value: String(value),
    resource: value === dflt ? 'yarn-default.xml' : 'yarn-site.xml',
  });
  const core = (key: string, value: string, dflt: string) => ({
    key,
    value,
    resource: value === dflt ? 'core-default.xml' : 'core-site.xml',
  });
  const simple = cfg.auth === 'simple';
  return [
    yarn('yarn.cluster.max-application-priority', cfg.maxApplicationPriority, 0),
    yarn('yarn.resourcemanager.am.max-attempts', cfg.amMaxAttempts, 2),
    // The emulated scheduler never preempts: its monitor is off, as yarn-default.xml has it.
    yarn('yarn.resourcemanager.scheduler.monitor.enable', false, false),
    yarn('yarn.acl.enable', cfg.aclEnabled, false),
    yarn('yarn.admin.acl', cfg.adminAcl, '*'),
    core('hadoop.http.authentication.type', 'simple', 'simple'),
    core('hadoop.http.authentication.simple.anonymous.allowed', simple ? 'false' : 'true', 'true'),
    core(
      'hadoop.http.filter.initializers',
      simple
        ? 'org.apache.hadoop.security.AuthenticationFilterInitializer'
        : 'org.apache.hadoop.http.lib.StaticUserWebFilter',
      'org.apache.hadoop.http.lib.StaticUserWebFilter',
    ),
    core('hadoop.http.staticuser.user', cfg.defaultUser, 'dr.who'),
  ];
}

/**
 * `/conf`: JSON when Accept names application/json, else XML (text/xml); an unknown name is 404
 * with no body (measured on 3.4.3).
 */
function sendConf(req: Request, res: Response, cfg: EmulatorConfig): void {
  const json = (req.get('accept') ?? '').includes('application/json');
  const type = json ? 'application/json;charset=utf-8' : 'text/xml;charset=utf-8';
  const name = query(req, 'name');
  const all = confProperties(cfg);
  const props = name === undefined ? all : all.filter((p) => p.key === name);
  res.setHeader('Cache-Control', 'no-cache');
  if (name !== undefined && props.length === 0) return sendExact(res, 404, type, '');
  if (json) {
    const ordered = (p: ConfProperty) => ({
      key: p.key,
      value: p.value,
      isFinal: false,
      resource: p.resource,
    });
    const body = name === undefined ? { properties: props.map(ordered) } : { property: ordered(props[0]!) };
    return sendExact(res, 200, type, JSON.stringify(body));
  }
  const esc = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  sendExact(
    res,
    200,
    type,
    '<?xml version="1.0" encoding="UTF-8" standalone="no"?><configuration>\n' +
      props
        .map(
          (p) =>
            `<property><name>${esc(p.key)}</name><value>${esc(p.value)}</value><final>false</final><source>${p.resource}</source></property>\n`,
        )
        .join('') +
      '</configuration>',
  );
}

function clusterMetrics({ rm, cfg }: RmContext): Content {
  const nodes = rm.nodeUsage();
  const live = nodes.filter((n) => n.alive);
  const total = live.reduce((s, n) => s + n.containers, 0);
  const used = live.reduce((s, n) => s + n.usedContainers, 0);
  const views = rm.allViews();
  const count = (...states: string[]) => views.filter((v) => states.includes(v.state)).length;
  const pending = views.reduce(
    (s, v) => s + (['ACCEPTED', 'RUNNING'].includes(v.state) ? v.pendingMaps : 0),
    0,
  );
  return {
    appsSubmitted: views.length,
    appsCompleted: count('FINISHED', 'FAILED', 'KILLED'),
    appsPending: count('NEW', 'NEW_SAVING', 'SUBMITTED', 'ACCEPTED'),
    appsRunning: count('RUNNING'),
    appsFailed: count('FAILED'),
    appsKilled: count('KILLED'),
    reservedMB: 0,
    availableMB: (total - used) * cfg.containerMemoryMB,
    allocatedMB: used * cfg.containerMemoryMB,
    reservedVirtualCores: 0,
    availableVirtualCores: (total - used) * cfg.containerVcores,
    allocatedVirtualCores: used * cfg.containerVcores,
    containersAllocated: used,
    containersReserved: 0,
    containersPending: pending,
    totalMB: total * cfg.containerMemoryMB,
    totalVirtualCores: total * cfg.containerVcores,
    totalNodes: nodes.length,
    lostNodes: nodes.length - live.length,
    unhealthyNodes: 0,
    decommissioningNodes: 0,
    decommissionedNodes: 0,
    rebootedNodes: 0,
    activeNodes: live.length,
    shutdownNodes: 0,
  };
}
