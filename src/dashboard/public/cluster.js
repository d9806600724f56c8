// @ts-check
/*
 * The cluster (GET /api/v1/cluster): the partitions table, the RM and admission line, the
 * outbox tile, the page's clock and, on a follower, the note saying where the live state is.
 * Fields beyond `partitions`, `outbox` and `clock` are not in the answer's schema: each is shown
 * when present and of the expected type.
 */
import { fieldOf, listOf } from './api.js';
import { $, buildHead, clear, emptyRow, link, node, setText, tbodyOf } from './dom.js';
import { fmtBytes, fmtDuration, fmtKWh, fmtRatio, fmtTime, isNum, labelName } from './format.js';
import { state } from './state.js';

/** @typedef {import('./api.js').Cluster} Cluster */
/** @typedef {NonNullable<Cluster>} ClusterView */
/** @typedef {NonNullable<ClusterView['partitions']>[number]} Partition */
/** @typedef {import('./api.js').LiveReads['notLeader']} NotLeader */

/** @type {import('./dom.js').Head[]} */
const PARTITION_HEADS = [
  ['Partition'],
  ['Nodes'],
  ['Memory'],
  ['vCores'],
  ['GPUs'],
  ['Utilisation'],
  ['Energy (est.)', 'Estimated energy of the admitted jobs placed in the partition (energy profile)'],
];

export function buildClusterTable() {
  buildHead('partitions', PARTITION_HEADS);
}

/**
 * The note on a follower: where the live state is.
 * @param {NotLeader} notLeader
 */
export function renderFollower(notLeader) {
  const banner = $('follower-banner');
  banner.hidden = !notLeader;
  if (!notLeader) return;
  clear(banner);
  banner.append(
    'This sidecar follows: the jobs below are read from the shared ledger; the cluster and task costs are live on the leader',
  );
  if (notLeader.leader) {
    banner.append(', ');
    // Linked only when it is a web address: the page never follows another scheme.
    if (/^https?:\/\//i.test(notLeader.leader))
      banner.appendChild(link(notLeader.leader, notLeader.leader, 'leader-link'));
    else banner.append(notLeader.leader);
  } else banner.append(', and no leader is known now');
  banner.append('.');
}

/** @param {ClusterView['outbox'] | undefined} outbox */
function renderOutbox(outbox) {
  if (!outbox || !isNum(outbox.pending)) return setText('tile-outbox', '–');
  const age = isNum(outbox.oldestPendingSeconds)
    ? ` (oldest ${fmtDuration(Math.round(outbox.oldestPendingSeconds)).slice(1)})`
    : '';
  setText('tile-outbox', `${outbox.pending}${outbox.pending > 0 ? age : ''}`);
}

/**
 * The page's one clock: the sidecar's time at its last answer, which every other time on the
 * page is read from. When that is the emulated RM's clock (the demo), it says so.
 * @param {ClusterView['clock'] | undefined} clock
 */
function renderClock(clock) {
  const now = clock && typeof clock.now === 'string' ? clock.now : null;
  const emulated = now !== null && clock?.kind === 'emulated';
  const box = $('clock-box');
  box.className = emulated ? 'clock emulated' : 'clock';
  box.title = emulated
    ? "Emulated time: the sidecar runs on the emulated ResourceManager's clock, faster than real time; every time on this page is emulated time"
    : "The sidecar's clock (UTC) at its last answer; every time on this page is read from it";
  setText('clock-label', emulated ? 'Emulated time' : 'Sidecar time');
  setText('clock', now !== null ? fmtTime(now) : '–');
  if (now !== null) $('clock').setAttribute('datetime', now);
}

/**
 * "used / total" of a partition's resource; '' when it is not given.
 * @param {unknown} r @param {(v: number) => string} fmt
 */
function usage(r, fmt) {
  const used = fieldOf(r, 'used');
  const total = fieldOf(r, 'total');
  return isNum(used) && isNum(total) ? `${fmt(used)} / ${fmt(total)}` : '';
}

/** @param {number} mb */
const mib = (mb) => fmtBytes(mb * 1024 * 1024);

/** @param {Partition} p */
function partitionRow(p) {
  const tr = document.createElement('tr');
  tr.dataset.label = labelName(p.label);
  [
    labelName(p.label),
    p.nodes,
    usage(p.memoryMb, mib),
    usage(p.vcores, String),
    usage(p.gpus, String),
  ].forEach((c) => tr.appendChild(node('td', c)));
  const td = node('td', null, 'util');
  const meter = document.createElement('meter');
  meter.min = 0;
  meter.max = 1;
  meter.value = isNum(p.utilization) ? Math.max(0, Math.min(1, p.utilization)) : 0;
  meter.high = 0.85;
  td.appendChild(meter);
  td.appendChild(node('span', fmtRatio(p.utilization)));
  tr.appendChild(td);
  const kwh = state.energyByLabel[p.label ?? ''];
  tr.appendChild(node('td', isNum(kwh) ? fmtKWh(kwh) : '–', 'energy'));
  return tr;
}

/**
 * The RM's addresses, shown without their user information by the API.
 * @param {unknown} rm
 */
function rmText(rm) {
  const addresses = fieldOf(rm, 'addresses');
  if (Array.isArray(addresses))
    return `RM ${listOf(addresses)
      .filter((a) => typeof a === 'string')
      .join(', ')}`;
  const url = fieldOf(rm, 'url');
  return typeof url === 'string' ? `RM ${url}` : null;
}

/**
 * Admitted jobs queued: summed over the lanes, or the one count of an older answer.
 * @param {unknown} admission
 */
function queuedOf(admission) {
  const lanes = fieldOf(admission, 'lanes');
  if (!Array.isArray(lanes)) return fieldOf(admission, 'queued');
  return listOf(lanes).reduce((/** @type {number} */ n, l) => {
    const q = fieldOf(l, 'queued');
    return n + (isNum(q) ? q : 0);
  }, 0);
}

/**
 * The line under the table: when the RM was read, which RM, its state and version, the policy
 * and the queue; and the shadow-mode banner.
 * @param {Cluster} cluster
 */
function renderMeta(cluster) {
  /** @type {string[]} */
  const meta = [];
  const rm = fieldOf(cluster, 'rm');
  const admission = fieldOf(cluster, 'admission');
  const polledAt = fieldOf(cluster, 'polledAt');
  if (typeof polledAt === 'string' && polledAt) meta.push(`read from the RM at ${fmtTime(polledAt)}`);
  const rmLine = rmText(rm);
  if (rmLine) meta.push(rmLine);
  const haState = fieldOf(rm, 'haState');
  if (typeof haState === 'string') meta.push(haState);
  const version = fieldOf(rm, 'version');
  if (typeof version === 'string') meta.push(`Hadoop ${version}`);
  if (fieldOf(rm, 'reachable') === false) meta.push('RM unreachable now');
  const policy = fieldOf(admission, 'policy');
  if (typeof policy === 'string') meta.push(`admission policy ${policy}`);
  const queued = queuedOf(admission);
  if (isNum(queued)) meta.push(`${queued} admitted jobs queued`);
  // Shadow mode decides and records but writes nothing to the RM: say so where it shows.
  $('shadow-badge').hidden = fieldOf(admission, 'shadow') !== true;
  setText('cluster-meta', meta.join(' · '));
}

/**
 * @param {Cluster} cluster the cluster, null before the RM was read or on a follower
 * @param {NotLeader} notLeader
 */
export function renderCluster(cluster, notLeader) {
  renderOutbox(cluster ? cluster.outbox : undefined);
  renderClock(cluster ? cluster.clock : undefined);
  const tbody = tbodyOf('partitions');
  clear(tbody);
  const partitions = (cluster && cluster.partitions) || [];
  for (const p of partitions) tbody.appendChild(partitionRow(p));
  if (!partitions.length)
    emptyRow(
      tbody,
      notLeader
        ? 'read by the leader, not by this follower'
        : 'no cluster snapshot yet (the sidecar has not read the RM)',
    );
  renderMeta(cluster);
}

/**
 * The RM's own page of an app, on the first RM address the sidecar reads (shown without user
 * information); null when there is no http(s) address.
 * @param {Cluster} cluster @param {string} appId
 */
export function rmAppUrl(cluster, appId) {
  for (const a of listOf(fieldOf(fieldOf(cluster, 'rm'), 'addresses'))) {
    try {
      const base = new URL(String(a));
      if (base.protocol !== 'http:' && base.protocol !== 'https:') continue;
      return new URL(`/cluster/app/${encodeURIComponent(appId)}`, base).toString();
    } catch {
      // Not a URL: try the next address.
    }
  }
  return null;
}
