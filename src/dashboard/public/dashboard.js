/* global document, window, fetch, sessionStorage, URL, URLSearchParams, setTimeout, clearTimeout, YssCharts */
/*
 * The operator's dashboard. It reads only the public read API, as any outside client would:
 *   GET /api/v1/jobs?decision=&state=&queue=&user=&limit=   the table (label and search are
 *                                                           applied here, the API has no such filter)
 *   GET /api/v1/jobs?limit=                                 the tickets (jobs with a `ticket`), whatever
 *                                                           the table's filters
 *   GET /api/v1/jobs/:id                                    the job panel
 *   GET /api/v1/cluster                                     the partitions table and the clock
 *   GET /api/v1/stats                                       the charts over time
 *   GET /api/v1/estimates                                   the task costs panel
 *   GET /api/v1/replays                                     the replays view (#replays), read
 *                                                           only while it is open
 * and polls them every few seconds. Every value that comes from the API reaches the page
 * through textContent, an attribute or a form control's value, never through markup.
 */
(function () {
  'use strict';

  const TOKEN_KEY = 'yss-dashboard-token';
  const DEFAULT_LABEL = '(default)';
  const JOB_LIMIT = 1000;
  const CHART_W = 560;
  const CHART_H = 220;
  const KNOWN_DECISIONS = ['admitted', 'rejected'];
  const KNOWN_OUTCOMES = ['met', 'missed'];
  const TICKET_STATES = ['waiting', 'bound', 'expired', 'cancelled'];
  const NO_ENERGY =
    "no kWh estimate: the energy profile has no kWh figure for this job's workload (the shipped profile gives the cpu jobs' workload, loadgen, only relative efficiency factors)";

  /** The summary tiles, in page order: [key of #tile-<key>, label, title or none]. */
  const TILES = [
    ['admitted', 'Admitted'],
    ['rejected', 'Rejected'],
    ['accept', 'Accept ratio'],
    ['met', 'Deadlines met'],
    ['missed', 'Deadlines missed'],
    ['failed', 'Apps failed', 'Admitted jobs whose app FAILED: neither met nor missed'],
    ['killed', 'Apps killed', 'Admitted jobs whose app was KILLED: neither met nor missed'],
    ['success', 'Success ratio', 'Met over met plus missed'],
    [
      'predicted',
      'Predicted to miss',
      "Running admitted jobs whose predicted finish (from their tasks' progress) is after their deadline, counted each poll cycle (yss_jobs_predicted_to_miss); marked in red in the jobs table",
    ],
    ['energy', 'Energy (est.)'],
    ['outbox', 'RM writes pending', "RM writes recorded but not yet confirmed (the enforcer's backlog)"],
  ];

  /**
   * The headers of the tables whose cells are written without a column list of their own:
   * [header, tooltip or none]. The jobs table's header comes from COLUMNS, beside its cells.
   */
  const HEADS = {
    partitions: [
      ['Partition'],
      ['Nodes'],
      ['Memory'],
      ['vCores'],
      ['GPUs'],
      ['Utilisation'],
      ['Energy (est.)', 'Estimated energy of the admitted jobs placed in the partition (energy profile)'],
    ],
    replays: [
      ['Replay'],
      ['State'],
      ['Started'],
      ['Finished'],
      ['Progress', 'The phase it is in (reading, learning, then each policy) and its share done'],
      ['Jobs'],
      [
        'Fidelity',
        "Median |simulated - real| / real duration of the as-ran run: how closely FIFO replays the cluster's own order",
      ],
      ['Asked'],
    ],
    'replay-policies': [
      ['Policy'],
      ['Admitted'],
      ['Rejected'],
      ['Met'],
      ['Missed'],
      ['No deadline', 'Jobs with no deadline (refused by a policy that promises deadlines)'],
      ['Utilisation'],
      ['Accept ratio'],
      ['Success ratio', 'Met over admitted'],
    ],
    costs: [
      ['Stage'],
      ['Tasks'],
      ['p50'],
      ['p90'],
      ['p99'],
      ['Max'],
      ['Learned worst case'],
      ['Worst case / p50'],
    ],
  };

  /** What a state's name alone does not say, shown beside it in the state filter. */
  const STATE_NOTES = {
    lost: 'the RM forgot its app',
    expired: 'a ticket no app bound',
    cancelled: 'a ticket',
  };

  /**
   * The jobs filters, in page order: [name (the select is #f-<name>), label, the choices that are
   * not read from the data as [value, text]]; '' (all) comes first. The states are the API's own,
   * from /dashboard/config.json.
   */
  function filterChoices() {
    const states = Array.isArray(state.config.jobStates) ? state.config.jobStates : [];
    const own = (v) => [v, v];
    return [
      ['decision', 'Decision', ['admitted', 'rejected'].map(own)],
      ['state', 'State', states.map((s) => [s, STATE_NOTES[s] ? `${s} (${STATE_NOTES[s]})` : s])],
      ['queue', 'Queue', []],
      ['label', 'Label', []],
      ['user', 'User', []],
    ];
  }

  const $ = (id) => document.getElementById(id);

  const state = {
    config: { pollIntervalMs: 5000, apiBase: '/api/v1' },
    token: readToken(),
    jobs: [],
    total: 0,
    selectedId: null,
    seen: { queue: new Set(), label: new Set(), user: new Set() },
    timer: null,
    generation: 0,
    refreshes: 0,
    locked: false,
  };

  class AuthRequired extends Error {}

  function readToken() {
    try {
      return sessionStorage.getItem(TOKEN_KEY);
    } catch {
      return null;
    }
  }

  function storeToken(token) {
    state.token = token;
    try {
      if (token) sessionStorage.setItem(TOKEN_KEY, token);
      else sessionStorage.removeItem(TOKEN_KEY);
    } catch {
      // Storage may be disabled; the token then lives only in this page.
    }
  }

  async function api(path) {
    const headers = { Accept: 'application/json' };
    if (state.token) headers.Authorization = `Bearer ${state.token}`;
    const res = await fetch(state.config.apiBase + path, { headers, cache: 'no-store' });
    if (res.status === 401) throw new AuthRequired('the read API needs a bearer token');
    let body = null;
    try {
      body = await res.json();
    } catch {
      body = null;
    }
    if (!res.ok) {
      const message = body && body.error && body.error.message ? body.error.message : `HTTP ${res.status}`;
      const err = new Error(`${path}: ${message}`);
      err.status = res.status;
      err.code = body && body.error ? body.error.code : undefined;
      err.leader = body && body.error && typeof body.error.leader === 'string' ? body.error.leader : null;
      throw err;
    }
    return body;
  }

  /**
   * A read of the loop's live state (the cluster, the task costs). A follower of a pair of
   * sidecars (docs/deploy.md) has none and answers NOT_LEADER naming the leader: the read gives
   * null and `live.notLeader` the answer, and the page goes on with the jobs the follower reads
   * from the shared ledger.
   */
  function liveRead(path, live) {
    return api(path).catch((err) => {
      if (err.code !== 'NOT_LEADER') throw err;
      live.notLeader = { leader: err.leader };
      return null;
    });
  }

  /** The note on a follower: where the live state is. */
  function renderFollower(notLeader) {
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

  // --- formatting -------------------------------------------------------------------------

  function fmtTime(iso) {
    if (!iso) return '';
    return String(iso)
      .replace('T', ' ')
      .replace(/\.\d+Z$/, 'Z');
  }

  /** Seconds as a signed short duration: 300 -> "+5m 0s", -3725 -> "-1h 2m". */
  function fmtDuration(seconds) {
    if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '';
    const sign = seconds < 0 ? '-' : '+';
    let s = Math.round(Math.abs(seconds));
    const d = Math.floor(s / 86400);
    s -= d * 86400;
    const h = Math.floor(s / 3600);
    s -= h * 3600;
    const m = Math.floor(s / 60);
    s -= m * 60;
    if (d) return `${sign}${d}d ${h}h`;
    if (h) return `${sign}${h}h ${m}m`;
    if (m) return `${sign}${m}m ${s}s`;
    return `${sign}${s}s`;
  }

  function fmtInterval() {
    const ms = state.config.pollIntervalMs;
    return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
  }

  function fmtRatio(r) {
    return r === null || r === undefined || !Number.isFinite(r) ? '–' : `${(r * 100).toFixed(1)}%`;
  }

  function fmtBytes(n) {
    if (!Number.isFinite(n)) return '';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
    let i = 0;
    while (n >= 1024 && i < units.length - 1) {
      n /= 1024;
      i++;
    }
    return `${n.toFixed(i ? 1 : 0)} ${units[i]}`;
  }

  /** A job's estimated energy in kWh; '–' for an admitted job without a kWh estimate. */
  function energyText(job) {
    if (Number.isFinite(job.energyJoules)) return `${YssCharts.formatNumber(job.energyJoules / 3.6e6)} kWh`;
    return job.decision === 'admitted' ? '–' : '';
  }

  function reasonText(reason) {
    if (!reason) return '';
    const msg = typeof reason.message === 'string' ? reason.message : '';
    return reason.kind ? `${msg} (${reason.kind})` : msg;
  }

  function labelName(label) {
    return label === null || label === undefined || label === '' ? DEFAULT_LABEL : label;
  }

  // --- DOM helpers ------------------------------------------------------------------------

  function node(tag, textValue, className) {
    const n = document.createElement(tag);
    if (textValue !== undefined && textValue !== null) n.textContent = String(textValue);
    if (className) n.className = className;
    return n;
  }

  function clear(n) {
    while (n.firstChild) n.removeChild(n.firstChild);
  }

  /** A table body's one row saying why it is empty, across every column. */
  function emptyRow(tbody, message) {
    const tr = document.createElement('tr');
    const td = node('td', message, 'empty');
    td.colSpan = tbody.parentElement.tHead.rows[0].cells.length;
    tr.appendChild(td);
    tbody.appendChild(tr);
  }

  function setText(id, value) {
    $(id).textContent = value === null || value === undefined ? '' : String(value);
  }

  /**
   * A table's header row, and its column widths when `widths` are given (a fixed layout): the
   * page's HTML holds only each table's body.
   */
  function buildHead(tableId, heads, widths) {
    const table = $(tableId);
    if (widths) {
      const group = document.createElement('colgroup');
      for (const w of widths) {
        const col = document.createElement('col');
        if (w) col.className = w;
        group.appendChild(col);
      }
      table.insertBefore(group, table.firstChild);
    }
    const tr = document.createElement('tr');
    for (const [text, title, cls] of heads) {
      const th = node('th', text, cls || undefined);
      if (title) th.title = title;
      tr.appendChild(th);
    }
    table.insertBefore(document.createElement('thead'), table.tBodies[0]).appendChild(tr);
  }

  function buildTables() {
    for (const [id, heads] of Object.entries(HEADS)) buildHead(id, heads);
    buildHead(
      'tickets',
      TICKET_COLUMNS.map(([text]) => [text]),
      TICKET_COLUMNS.map(([, w]) => w),
    );
    buildHead(
      'jobs',
      COLUMNS.map(([name, , text, title]) => [text, title, HEAD_CLASSES[name]]),
      COLUMNS.map(([name]) => JOB_WIDTHS[name] || ''),
    );
    const search = $('f-search').parentElement;
    for (const [name, text, choices] of filterChoices()) {
      const select = document.createElement('select');
      select.id = `f-${name}`;
      select.name = name;
      for (const [value, label] of [['', 'all'], ...choices]) {
        const o = node('option', label);
        o.value = value;
        select.appendChild(o);
      }
      const field = node('label', text);
      field.appendChild(select);
      search.parentElement.insertBefore(field, search);
    }
  }

  function buildTiles() {
    for (const [key, label, title] of TILES) {
      const tile = node('div', null, 'tile');
      if (title) tile.title = title;
      const value = node('span', '–', 'v');
      value.id = `tile-${key}`;
      tile.append(node('span', label, 'k'), value);
      $('tiles').appendChild(tile);
    }
  }

  function safeClass(value, allowed) {
    return allowed.includes(value) ? value : '';
  }

  // --- filters ----------------------------------------------------------------------------

  function filters() {
    return {
      decision: $('f-decision').value,
      state: $('f-state').value,
      queue: $('f-queue').value,
      label: $('f-label').value,
      user: $('f-user').value,
      search: $('f-search').value.trim().toLowerCase(),
    };
  }

  /** decision, state, queue and user are the API's own filters; the query carries them. */
  function jobsQuery(f) {
    const q = new URLSearchParams();
    for (const key of ['decision', 'state', 'queue', 'user']) if (f[key]) q.set(key, f[key]);
    q.set('limit', String(JOB_LIMIT));
    return `/jobs?${q.toString()}`;
  }

  /** The partition a job runs in; a rejected job runs nowhere, so it has none. */
  function jobLabel(job) {
    return job.decision === 'admitted' ? labelName(job.label) : job.label || '';
  }

  function matchesLocal(job, f) {
    if (f.label && jobLabel(job) !== f.label) return false;
    if (!f.search) return true;
    const hay = [
      job.id,
      job.name,
      job.user,
      job.appId,
      ...appsOf(job).map((a) => a.id),
      job.queue,
      job.label,
      job.reason && job.reason.message,
    ]
      .filter((v) => typeof v === 'string')
      .join('\n')
      .toLowerCase();
    return hay.includes(f.search);
  }

  /** Keep each select's options the union of every value seen, with the choice preserved. */
  function syncOptions(selectId, values) {
    const select = $(selectId);
    const current = select.value;
    const sorted = Array.from(values).sort((a, b) => a.localeCompare(b));
    const existing = Array.from(select.options)
      .slice(1)
      .map((o) => o.value);
    if (existing.length === sorted.length && existing.every((v, i) => v === sorted[i])) return;
    while (select.options.length > 1) select.remove(1);
    for (const v of sorted) {
      const o = document.createElement('option');
      o.value = v;
      o.textContent = v;
      select.appendChild(o);
    }
    select.value = sorted.includes(current) ? current : '';
  }

  function noteSeen(jobs, cluster) {
    for (const j of jobs) {
      if (j.queue) state.seen.queue.add(j.queue);
      if (j.user) state.seen.user.add(j.user);
      if (j.decision === 'admitted' || j.label) state.seen.label.add(labelName(j.label));
    }
    if (cluster && Array.isArray(cluster.partitions)) {
      for (const p of cluster.partitions) state.seen.label.add(labelName(p.label));
    }
    if (cluster && Array.isArray(cluster.queues)) {
      for (const q of cluster.queues) {
        const name = typeof q === 'string' ? q : q && typeof q.name === 'string' ? q.name : null;
        if (name) state.seen.queue.add(name);
      }
    }
    syncOptions('f-queue', state.seen.queue);
    syncOptions('f-label', state.seen.label);
    syncOptions('f-user', state.seen.user);
  }

  // --- rendering --------------------------------------------------------------------------

  /** The jobs table: [name, cell value, header, header tooltip]. */
  const COLUMNS = [
    ['id', (j) => j.id, 'Id'],
    ['name', (j) => j.name, 'Name'],
    ['user', (j) => j.user, 'User'],
    ['decision', (j) => j.decision, 'Decision'],
    ['state', (j) => j.state, 'State'],
    ['outcome', (j) => j.outcome || '', 'Outcome'],
    ['queue', (j) => j.queue || '', 'Queue'],
    ['label', (j) => jobLabel(j), 'Label'],
    ['deadline', (j) => fmtTime(j.deadline), 'Deadline'],
    ['estimate', (j) => fmtTime(j.estimatedFinish), 'Est. finish'],
    [
      'predicted',
      (j) => (showsPrediction(j) ? fmtTime(j.predictedFinish) : ''),
      'Pred. finish',
      "A running job's predicted finish: its lane's placement made again from its tasks' progress (the estimate until they are read); red when it is after the deadline",
    ],
    ['finished', (j) => fmtTime(j.finishedAt), 'Finished'],
    [
      'slack',
      (j) => fmtDuration(shownSlack(j)),
      'Slack',
      'Deadline minus the finish: the actual one once the job ended, else its predicted finish (the estimate until its tasks are read); negative: late',
    ],
    [
      'energy',
      (j) => energyText(j),
      'Energy',
      "Estimated energy of the job's map tasks, from the energy profile",
    ],
    ['reason', (j) => reasonText(j.reason), 'Reason'],
  ];
  /** The jobs table's column widths (dashboard.css); a column not named takes what is left. */
  const JOB_WIDTHS = {
    id: 'w-id',
    name: 'w-name',
    user: 'w-user',
    decision: 'w-decision',
    state: 'w-state',
    outcome: 'w-outcome',
    queue: 'w-queue',
    label: 'w-label',
    deadline: 'w-time',
    estimate: 'w-time',
    predicted: 'w-time',
    finished: 'w-time',
    slack: 'w-slack',
    energy: 'w-energy',
  };
  /** Header classes: the columns a narrow window hides (dashboard.css). */
  const HEAD_CLASSES = { user: 'c-user', queue: 'c-queue' };
  /** The tickets table, in the order renderTickets writes its cells: [header, column width]. */
  const TICKET_COLUMNS = [
    ['Job', 'w-id'],
    ['Name', ''],
    ['Ticket', 'w-status'],
    ['Expires', 'w-instant'],
    ['Queue', 'w-queue'],
    ['Priority', 'w-num'],
    ['Label', 'w-label'],
    ['App', 'w-app'],
  ];
  const column = (name) => COLUMNS.findIndex(([n]) => n === name);

  function newRow(id) {
    const tr = document.createElement('tr');
    tr.dataset.jobId = id;
    tr.tabIndex = 0;
    for (const [name] of COLUMNS) tr.appendChild(node('td', '', `c-${name}`));
    return tr;
  }

  /** A job whose predicted finish the table shows: a running one, or any predicted to miss. */
  function showsPrediction(j) {
    return (
      j.decision === 'admitted' &&
      Boolean(j.predictedFinish) &&
      (j.state === 'running' || j.predictedMiss === true)
    );
  }

  /** Seconds from a job's deadline to its predicted finish (positive: that much late). */
  function predictedLateBy(j) {
    return (Date.parse(j.predictedFinish) - Date.parse(j.deadline)) / 1000;
  }

  /** Write a job into its row, touching only what changed. */
  function updateRow(tr, j) {
    const cls = ['job', safeClass(j.decision, KNOWN_DECISIONS), safeClass(j.outcome, KNOWN_OUTCOMES)];
    if (j.predictedMiss === true) cls.push('predicted-miss');
    if (j.id === state.selectedId) cls.push('selected');
    const className = cls.filter(Boolean).join(' ');
    if (tr.className !== className) tr.className = className;
    COLUMNS.forEach(([, value], i) => {
      const v = String(value(j));
      // The title gives a value the column cuts short in full.
      if (tr.cells[i].textContent !== v) {
        tr.cells[i].textContent = v;
        tr.cells[i].title = v;
      }
    });
    const slack = shownSlack(j);
    tr.cells[column('slack')].classList.toggle('late', Number.isFinite(slack) && slack < 0);
    const predicted = tr.cells[column('predicted')];
    const miss = j.predictedMiss === true;
    predicted.classList.toggle('late', miss);
    if (miss)
      predicted.title = `${fmtTime(j.predictedFinish)}: predicted to miss its deadline by ${fmtDuration(predictedLateBy(j)).slice(1)}`;
    const energy = tr.cells[column('energy')];
    const none = j.decision === 'admitted' && !Number.isFinite(j.energyJoules);
    energy.classList.toggle('none', none);
    if (none) energy.title = NO_ENERGY;
  }

  /**
   * Rows are kept per job id and updated in place rather than rebuilt on every poll, so the
   * keyboard focus, a hovered row and a text selection survive the live updates.
   */
  function renderJobs() {
    const f = filters();
    const shown = state.jobs.filter((j) => matchesLocal(j, f));
    const tbody = $('jobs').tBodies[0];
    const existing = new Map();
    for (const tr of Array.from(tbody.rows)) existing.set(tr.dataset.jobId, tr);
    const rows = shown.map((j) => {
      const tr = existing.get(j.id) || newRow(j.id);
      existing.delete(j.id);
      updateRow(tr, j);
      return tr;
    });
    for (const tr of existing.values()) tr.remove();
    rows.forEach((tr, i) => {
      if (tbody.rows[i] !== tr) tbody.insertBefore(tr, tbody.rows[i] || null);
    });
    const more =
      state.total > state.jobs.length
        ? ` (the API holds ${state.total}; the newest ${state.jobs.length} are loaded)`
        : '';
    setText('jobs-count', `${shown.length} of ${state.jobs.length} jobs shown${more}`);
    renderSlack(shown);
  }

  /**
   * A job's slack as the page shows it (table, chart, panel): deadline minus its actual finish
   * once ended, else minus its predicted finish (the estimate until its tasks were read),
   * seconds. The API's slackSeconds is against the estimate.
   */
  function shownSlack(j) {
    if (j.finishedAt || !j.predictedFinish) return j.slackSeconds;
    return -predictedLateBy(j);
  }

  function renderSlack(jobs) {
    const bars = jobs
      .filter((j) => j.decision === 'admitted' && Number.isFinite(shownSlack(j)))
      .sort((a, b) => Date.parse(a.deadline) - Date.parse(b.deadline))
      .map((j) => {
        const slack = shownSlack(j);
        const risk = j.predictedMiss === true;
        return {
          key: j.id,
          value: slack / 60,
          kind: j.outcome === 'met' ? 'met' : j.outcome === 'missed' ? 'missed' : risk ? 'risk' : 'open',
          title: `${j.name} (${j.id}): deadline ${fmtTime(j.deadline)}, ${j.finishedAt ? 'finished' : 'predicted'} ${fmtTime(j.finishedAt || j.predictedFinish || j.estimatedFinish)}, slack ${fmtDuration(slack)}${risk ? ' (predicted to miss)' : ''}`,
        };
      });
    const key = JSON.stringify(bars);
    if (key === lastSlackKey) return;
    lastSlackKey = key;
    YssCharts.renderBarChart(document, $('chart-slack'), {
      label: 'Slack per admitted job, minutes',
      bars,
      width: 760,
      height: 180,
      emptyMessage: 'no admitted job with an estimate in this view',
    });
  }

  let lastStatsKey = null;
  let lastSlackKey = null;

  function renderStats(stats) {
    // Redraw only when the samples changed: a chart rebuilt every poll would flicker.
    const key = JSON.stringify(stats);
    if (key === lastStatsKey) return;
    lastStatsKey = key;
    const samples = (stats && Array.isArray(stats.samples) ? stats.samples : [])
      .map((s) => Object.assign({}, s, { t: Date.parse(s.at) }))
      .filter((s) => Number.isFinite(s.t))
      .sort((a, b) => a.t - b.t);
    const last = samples[samples.length - 1];
    energyByLabel =
      last && last.energyKWhByLabel && typeof last.energyKWhByLabel === 'object' ? last.energyKWhByLabel : {};
    setText('tile-admitted', last ? last.accepted : '–');
    setText('tile-rejected', last ? last.rejected : '–');
    setText('tile-met', last ? last.met : '–');
    setText('tile-missed', last ? last.missed : '–');
    // Failed and killed apps are neither met nor missed: counted apart (0 in a sample from
    // before they were counted).
    setText('tile-failed', last ? (Number.isFinite(last.failed) ? last.failed : 0) : '–');
    setText('tile-killed', last ? (Number.isFinite(last.killed) ? last.killed : 0) : '–');
    setText('tile-accept', fmtRatio(last && last.acceptRatio));
    setText('tile-success', fmtRatio(last && last.successRatio));
    // Counted by each cycle's sample; '–' before the first sample that counted them.
    const risk = last && Number.isFinite(last.predictedToMiss) ? last.predictedToMiss : null;
    setText('tile-predicted', risk === null ? '–' : risk);
    $('tile-predicted').parentElement.classList.toggle('alert', risk !== null && risk > 0);
    setText(
      'tile-energy',
      last && Number.isFinite(last.energyKWh) ? `${YssCharts.formatNumber(last.energyKWh)} kWh` : '–',
    );

    const pct = (v) => `${Math.round(v * 100)}%`;
    const one = (name, key) => [
      { name, points: samples.map((s) => ({ x: s.t, y: s[key] === undefined ? null : s[key] })) },
    ];
    const size = { width: CHART_W, height: CHART_H };
    YssCharts.renderLineChart(
      document,
      $('chart-accept'),
      Object.assign(
        {
          label: 'Accept ratio',
          series: one('accept ratio', 'acceptRatio'),
          yMin: 0,
          yMax: 1,
          yFormat: pct,
          valueFormat: fmtRatio,
        },
        size,
      ),
    );
    YssCharts.renderLineChart(
      document,
      $('chart-success'),
      Object.assign(
        {
          label: 'Deadline success ratio',
          series: one('success ratio', 'successRatio'),
          yMin: 0,
          yMax: 1,
          yFormat: pct,
          valueFormat: fmtRatio,
        },
        size,
      ),
    );
    const labels = new Set();
    for (const s of samples) for (const k of Object.keys(s.utilizationByLabel || {})) labels.add(k);
    const utilSeries = Array.from(labels)
      .sort()
      .map((label) => ({
        name: labelName(label),
        points: samples.map((s) => {
          const v = s.utilizationByLabel ? s.utilizationByLabel[label] : undefined;
          return { x: s.t, y: v === undefined ? null : v };
        }),
      }));
    YssCharts.renderLineChart(
      document,
      $('chart-utilization'),
      Object.assign(
        {
          label: 'Utilisation per label partition',
          series: utilSeries,
          yMin: 0,
          yMax: 1,
          yFormat: pct,
          valueFormat: fmtRatio,
          legend: true,
        },
        size,
      ),
    );
    YssCharts.renderLineChart(
      document,
      $('chart-energy'),
      Object.assign(
        {
          label: 'Estimated energy, kWh',
          series: one('energy kWh', 'energyKWh'),
          valueFormat: (v) => `${YssCharts.formatNumber(v)} kWh`,
        },
        size,
      ),
    );
  }

  function renderOutbox(outbox) {
    if (!outbox || !Number.isFinite(outbox.pending)) return setText('tile-outbox', '–');
    const age = Number.isFinite(outbox.oldestPendingSeconds)
      ? ` (oldest ${fmtDuration(Math.round(outbox.oldestPendingSeconds)).slice(1)})`
      : '';
    setText('tile-outbox', `${outbox.pending}${outbox.pending > 0 ? age : ''}`);
  }

  /** energyKWhByLabel of the newest sample: the partitions table's energy column. */
  let energyByLabel = {};

  function renderCluster(cluster, notLeader) {
    renderOutbox(cluster && cluster.outbox);
    renderClock(cluster && cluster.clock);
    const tbody = $('partitions').tBodies[0];
    clear(tbody);
    const partitions = cluster && Array.isArray(cluster.partitions) ? cluster.partitions : [];
    for (const p of partitions) {
      const tr = document.createElement('tr');
      tr.dataset.label = labelName(p.label);
      const used = (r, fmt) =>
        r && Number.isFinite(r.total) && Number.isFinite(r.used) ? `${fmt(r.used)} / ${fmt(r.total)}` : '';
      const mb = (v) => fmtBytes(v * 1024 * 1024);
      [
        labelName(p.label),
        p.nodes,
        used(p.memoryMb, mb),
        used(p.vcores, String),
        used(p.gpus, String),
      ].forEach((c) => tr.appendChild(node('td', c)));
      const td = node('td', null, 'util');
      const u = Number.isFinite(p.utilization) ? Math.max(0, Math.min(1, p.utilization)) : 0;
      const meter = document.createElement('meter');
      meter.min = 0;
      meter.max = 1;
      meter.value = u;
      meter.high = 0.85;
      td.appendChild(meter);
      td.appendChild(node('span', fmtRatio(p.utilization)));
      tr.appendChild(td);
      const kwh = energyByLabel[p.label === null || p.label === undefined ? '' : p.label];
      tr.appendChild(node('td', Number.isFinite(kwh) ? `${YssCharts.formatNumber(kwh)} kWh` : '–', 'energy'));
      tbody.appendChild(tr);
    }
    if (!partitions.length)
      emptyRow(
        tbody,
        notLeader
          ? 'read by the leader, not by this follower'
          : 'no cluster snapshot yet (the sidecar has not read the RM)',
      );
    // Fields beyond `partitions` are optional in the contract: each is shown when present.
    const meta = [];
    const rm = cluster && cluster.rm && typeof cluster.rm === 'object' ? cluster.rm : {};
    const admission =
      cluster && cluster.admission && typeof cluster.admission === 'object' ? cluster.admission : {};
    if (cluster && cluster.polledAt) meta.push(`read from the RM at ${fmtTime(cluster.polledAt)}`);
    if (Array.isArray(rm.addresses))
      meta.push(`RM ${rm.addresses.filter((a) => typeof a === 'string').join(', ')}`);
    else if (typeof rm.url === 'string') meta.push(`RM ${rm.url}`);
    if (typeof rm.haState === 'string') meta.push(rm.haState);
    if (typeof rm.version === 'string') meta.push(`Hadoop ${rm.version}`);
    if (rm.reachable === false) meta.push('RM unreachable now');
    if (typeof admission.policy === 'string') meta.push(`admission policy ${admission.policy}`);
    const queued = Array.isArray(admission.lanes)
      ? admission.lanes.reduce((n, l) => n + (l && Number.isFinite(l.queued) ? l.queued : 0), 0)
      : admission.queued;
    if (Number.isFinite(queued)) meta.push(`${queued} admitted jobs queued`);
    // Shadow mode decides and records but writes nothing to the RM: say so where it shows.
    $('shadow-badge').hidden = admission.shadow !== true;
    setText('cluster-meta', meta.join(' · '));
  }

  /**
   * The page's one clock: the sidecar's time at its last answer, which every other time on the
   * page is read from. When that is the emulated RM's clock (the demo), it says so.
   */
  function renderClock(clock) {
    const ok = clock && typeof clock.now === 'string';
    const emulated = ok && clock.kind === 'emulated';
    $('clock-box').className = emulated ? 'clock emulated' : 'clock';
    $('clock-box').title = emulated
      ? "Emulated time: the sidecar runs on the emulated ResourceManager's clock, faster than real time; every time on this page is emulated time"
      : "The sidecar's clock (UTC) at its last answer; every time on this page is read from it";
    setText('clock-label', emulated ? 'Emulated time' : 'Sidecar time');
    setText('clock', ok ? fmtTime(clock.now) : '–');
    if (ok) $('clock').setAttribute('datetime', clock.now);
  }

  // --- tickets ----------------------------------------------------------------------------

  /**
   * The RM's own page of an app, on the first RM address the sidecar reads (shown without user
   * information); null when there is no http(s) address.
   */
  function rmAppUrl(cluster, appId) {
    const addresses =
      cluster && cluster.rm && Array.isArray(cluster.rm.addresses) ? cluster.rm.addresses : [];
    for (const a of addresses) {
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

  function link(textValue, href, className) {
    const a = node('a', textValue, className);
    a.href = href;
    return a;
  }

  let lastTicketsKey = null;
  /** The cluster as last read: where the detail panel links a job's apps. */
  let lastCluster = null;

  /** A job's apps as the API lists them (first bound first), each with a string id. */
  function appsOf(job) {
    return Array.isArray(job && job.apps) ? job.apps.filter((a) => a && typeof a.id === 'string') : [];
  }

  /** Every job with a ticket, newest first: its state, expiry, placement and, once bound, its app. */
  function renderTickets(jobs, cluster) {
    const rows = jobs
      .filter((j) => j && j.ticket && typeof j.ticket === 'object')
      .map((j) => {
        const t = j.ticket;
        const status = TICKET_STATES.includes(t.status) ? t.status : 'unknown';
        const appId = typeof t.appId === 'string' && t.appId ? t.appId : j.appId || null;
        return {
          id: j.id,
          name: j.name,
          status,
          expiresAt: typeof t.expiresAt === 'string' ? t.expiresAt : null,
          queue: typeof t.queue === 'string' ? t.queue : j.queue,
          priority: Number.isFinite(t.priority) ? t.priority : j.priority,
          label: typeof t.labelExpression === 'string' ? t.labelExpression : null,
          appId: status === 'bound' ? appId : null,
          appUrl: status === 'bound' && appId ? rmAppUrl(cluster, appId) : null,
          // A client that ran several apps under the ticket: how many more than the first.
          moreApps: Math.max(0, appsOf(j).length - 1),
        };
      });
    const key = JSON.stringify(rows);
    if (key === lastTicketsKey) return;
    lastTicketsKey = key;
    const tbody = $('tickets').tBodies[0];
    clear(tbody);
    const counts = {};
    for (const r of rows) {
      counts[r.status] = (counts[r.status] || 0) + 1;
      const tr = document.createElement('tr');
      tr.dataset.jobId = r.id;
      tr.dataset.status = r.status;
      tr.className = 'ticket';
      const cell = (name, child) => {
        const td = node('td', null, `c-${name}`);
        if (typeof child === 'string') {
          td.textContent = child;
          td.title = child;
        } else if (child) td.appendChild(child);
        tr.appendChild(td);
        return td;
      };
      // The job's own panel, as a row of the jobs table opens it.
      cell('id', link(r.id, `#job=${encodeURIComponent(r.id)}`, 'job-link')).title = r.id;
      cell('name', r.name);
      const badge = node('span', r.status, `badge ${safeClass(r.status, TICKET_STATES)}`);
      cell('status', badge);
      cell('expires', fmtTime(r.expiresAt));
      cell('queue', r.queue || '');
      cell('priority', r.priority === null || r.priority === undefined ? '' : String(r.priority));
      cell('label', labelName(r.label));
      if (r.appId && r.appUrl) {
        const a = link(r.appId, r.appUrl, 'app-link');
        a.target = '_blank';
        a.rel = 'noopener noreferrer';
        a.title = `the app's page on the ResourceManager: ${r.appUrl}`;
        const td = cell('app', a);
        if (r.moreApps > 0) td.appendChild(node('span', ` +${plural(r.moreApps, 'app')}`, 'more-apps'));
      } else cell('app', r.appId || (r.status === 'waiting' ? 'none yet' : '–'));
      tbody.appendChild(tr);
    }
    if (!rows.length) emptyRow(tbody, 'no ticket among the newest jobs');
    const parts = TICKET_STATES.filter((st) => counts[st]).map((st) => `${counts[st]} ${st}`);
    setText('tickets-count', rows.length ? `${plural(rows.length, 'ticket')}: ${parts.join(', ')}` : '');
  }

  let lastCostsKey = null;
  const STAGES = ['map', 'reduce'];

  /** s/MB to three significant digits; '–' when there is no value yet. */
  function fmtCost(v) {
    return v === null || v === undefined || !Number.isFinite(v) ? '–' : String(Number(v.toPrecision(3)));
  }

  function fmtTimes(r) {
    return r === null || r === undefined || !Number.isFinite(r) ? '–' : `${Number(r.toPrecision(3))}×`;
  }

  let lastProfilesKey = null;

  /**
   * The profiles of recurring jobs (GET /api/v1/estimates `profiles`), most recently learned
   * first: what each was fitted to (its latest run's longest tasks beside the fit), its errors
   * (actual / predicted duration) and the factor its next jobs are judged with. The last column
   * draws the latest run's error against 1 (on time as predicted): left of the mark ran faster.
   */
  function renderProfiles(est) {
    const key = JSON.stringify(est && est.profiles);
    if (key === lastProfilesKey) return;
    lastProfilesKey = key;
    const profiles =
      est && Array.isArray(est.profiles)
        ? est.profiles.filter((p) => p && typeof p === 'object' && typeof p.profile === 'string')
        : [];
    const tbody = $('profiles').tBodies[0];
    clear(tbody);
    const num = (v, digits) => (Number.isFinite(v) ? Number(v.toFixed(digits)).toString() : '–');
    for (const p of profiles) {
      const last = p.lastRun && typeof p.lastRun === 'object' ? p.lastRun : {};
      const fitMap = Number.isFinite(p.mapTaskSeconds)
        ? p.mapTaskSeconds + (p.mapSecondsPerMb || 0) * (last.mapMb || 0)
        : null;
      const fitReduce = Number.isFinite(p.reduceTaskSeconds)
        ? p.reduceTaskSeconds + (p.reduceSecondsPerMb || 0) * (last.reduceMb || 0)
        : null;
      const tr = document.createElement('tr');
      tr.dataset.profile = p.profile;
      const cells = [
        ['profile', p.profile, null],
        ['runs', Number.isFinite(p.runs) ? String(p.runs) : '–', p.runs],
        ['setup', num(p.setupSeconds, 1), p.setupSeconds],
        ['map', last.maps > 0 ? `${num(fitMap, 1)} (last ${num(last.mapSeconds, 1)})` : '–', fitMap],
        [
          'reduce',
          last.reduces > 0 ? `${num(fitReduce, 1)} (last ${num(last.reduceSeconds, 1)})` : '–',
          fitReduce,
        ],
        ['commit', num(p.commitSeconds, 1), p.commitSeconds],
        ['errorMedian', num(p.errorMedian, 2), p.errorMedian],
        [
          'errorQuantile',
          Number.isFinite(p.errorQuantile)
            ? `${num(p.errorQuantile, 2)} (p${Math.round(p.quantile * 100)})`
            : '–',
          p.errorQuantile,
        ],
        ['factor', `×${num(p.factor, 2)}`, p.factor],
      ];
      for (const [k, textValue, raw] of cells) {
        const td = node('td', textValue);
        td.dataset.k = k;
        if (typeof raw === 'number' && Number.isFinite(raw)) td.dataset.value = String(raw);
        tr.appendChild(td);
      }
      tr.appendChild(errorBar(last.error, p.factor));
      tbody.appendChild(tr);
    }
    const meta = [];
    meta.push(
      profiles.length === 0
        ? "no profile yet: a job is learned into its profile when it ends (none under the papers' model)"
        : `${plural(profiles.length, 'profile')}, most recently learned first`,
    );
    meta.push(
      "a job with a profile is judged with its figures times its factor; one without, with its class's times the margin",
    );
    $('profiles-meta').textContent = meta.join(' · ');
  }

  /** A small bar of a run's error on 0-2 (1: as predicted), with the factor marked. */
  function errorBar(error, factor) {
    const td = document.createElement('td');
    td.dataset.k = 'lastError';
    const W = 120;
    const H = 14;
    const x = (v) => Math.max(0, Math.min(W, (v / 2) * W));
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('width', String(W));
    svg.setAttribute('height', String(H));
    svg.setAttribute('role', 'img');
    const label = Number.isFinite(error)
      ? `latest run's error ${error.toFixed(2)} (1 is as predicted), factor ${Number.isFinite(factor) ? factor.toFixed(2) : '–'}`
      : 'no error known for the latest run (it was not judged on its profile)';
    svg.setAttribute('aria-label', label);
    const title = document.createElementNS('http://www.w3.org/2000/svg', 'title');
    title.textContent = label;
    svg.appendChild(title);
    const axis = document.createElementNS('http://www.w3.org/2000/svg', 'line');
    for (const [k, v] of [
      ['x1', x(1)],
      ['x2', x(1)],
      ['y1', 0],
      ['y2', H],
    ])
      axis.setAttribute(k, String(v));
    axis.setAttribute('class', 'axis');
    svg.appendChild(axis);
    if (Number.isFinite(error)) {
      const bar = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
      bar.setAttribute('x', String(Math.min(x(1), x(error))));
      bar.setAttribute('width', String(Math.abs(x(error) - x(1))));
      bar.setAttribute('y', '3');
      bar.setAttribute('height', String(H - 6));
      bar.setAttribute('class', error > (Number.isFinite(factor) ? factor : 1) ? 'bar missed' : 'bar met');
      td.dataset.value = String(error);
      svg.appendChild(bar);
    }
    if (Number.isFinite(factor)) {
      const mark = document.createElementNS('http://www.w3.org/2000/svg', 'line');
      for (const [k, v] of [
        ['x1', x(factor)],
        ['x2', x(factor)],
        ['y1', 0],
        ['y2', H],
      ])
        mark.setAttribute(k, String(v));
      mark.setAttribute('class', 'mark');
      svg.appendChild(mark);
    }
    td.appendChild(svg);
    return td;
  }

  /** The class the panel shows when the operator picked one; null: follow `mostObserved`. */
  let chosenCostClass = null;
  let lastEstimates = null;

  const className = (c) => (c === '*' ? 'default (*)' : String(c));

  /**
   * One workload class's learned worst case beside its own observed distribution, per stage
   * (GET /api/v1/estimates `classes`). The select lists every class; at first it shows the class
   * with the most finished jobs, so the red line is the worst case that judges those tasks.
   */
  function renderCosts(est) {
    const key = JSON.stringify([est, chosenCostClass]);
    if (key === lastCostsKey) return;
    lastCostsKey = key;
    lastEstimates = est;
    const ok = est && typeof est === 'object';
    const classes =
      ok && Array.isArray(est.classes)
        ? est.classes.filter((c) => c && typeof c === 'object' && typeof c.workloadClass === 'string')
        : [];
    const names = classes.map((c) => c.workloadClass);
    const fallback = ok && names.includes(est.mostObserved) ? est.mostObserved : names[0];
    const shown = chosenCostClass !== null && names.includes(chosenCostClass) ? chosenCostClass : fallback;
    const select = $('cost-class');
    clear(select);
    for (const c of classes) {
      const opt = node(
        'option',
        `${className(c.workloadClass)} · ${plural(Number.isFinite(c.jobs) ? c.jobs : 0, 'job')}`,
      );
      opt.value = c.workloadClass;
      if (c.workloadClass === shown) opt.selected = true;
      select.appendChild(opt);
    }
    select.disabled = classes.length === 0;
    const cls = classes.find((c) => c.workloadClass === shown) || {};
    const tbody = $('costs').tBodies[0];
    clear(tbody);
    for (const stage of STAGES) {
      const s = cls[stage] && typeof cls[stage] === 'object' ? cls[stage] : {};
      const o = s.observed && typeof s.observed === 'object' ? s.observed : {};
      const tr = document.createElement('tr');
      tr.dataset.stage = stage;
      const cells = [
        ['stage', stage, null],
        ['count', Number.isFinite(o.count) ? String(o.count) : '–', o.count],
        ['p50', fmtCost(o.p50), o.p50],
        ['p90', fmtCost(o.p90), o.p90],
        ['p99', fmtCost(o.p99), o.p99],
        ['max', fmtCost(o.max), o.max],
        ['learned', fmtCost(s.learnedWorstCase), s.learnedWorstCase],
        ['ratio', fmtTimes(s.worstCaseOverP50), s.worstCaseOverP50],
      ];
      for (const [k, textValue, raw] of cells) {
        const td = node('td', textValue);
        td.dataset.k = k;
        if (typeof raw === 'number' && Number.isFinite(raw)) td.dataset.value = String(raw);
        tr.appendChild(td);
      }
      tbody.appendChild(tr);
      const bins = Array.isArray(o.histogram)
        ? o.histogram.filter(
            (b) => b && Number.isFinite(b.from) && Number.isFinite(b.to) && Number.isFinite(b.count),
          )
        : [];
      const chart = $(`chart-cost-${stage}`);
      chart.dataset.workloadClass = shown === undefined ? '' : shown;
      YssCharts.renderHistogram(document, chart, {
        label: `${stage} task costs of class ${className(shown)}, seconds per MB`,
        bins,
        marks: Number.isFinite(s.learnedWorstCase)
          ? [{ key: 'learned', label: 'learned worst case', value: s.learnedWorstCase }]
          : [],
        width: CHART_W,
        height: CHART_H,
        valueFormat: (v) => `${fmtCost(v)} s/MB`,
        emptyMessage: `no finished ${stage} task of this class observed yet`,
      });
    }
    const meta = [];
    if (shown !== undefined && Number.isFinite(cls.jobs))
      meta.push(`${plural(cls.jobs, 'finished job')} of class ${className(shown)} observed`);
    if (ok && Number.isFinite(est.jobs) && classes.length > 1)
      meta.push(`${plural(est.jobs, 'finished job')} in all`);
    if (ok && Number.isFinite(est.quantileRelativeError))
      meta.push(`quantiles within ±${Number((est.quantileRelativeError * 100).toPrecision(3))}%`);
    if (Number.isFinite(cls.eta)) meta.push(`learned eta ${fmtCost(cls.eta)}`);
    if (cls.ownFigures === false) meta.push('judged with the default figures (no figures of its own yet)');
    meta.push("admission plans every task at its class's learned worst case (seconds per MB)");
    setText('costs-meta', meta.join(' · '));
  }

  function field(dl, key, value) {
    if (value === null || value === undefined || value === '') return;
    const pair = document.createElement('div');
    pair.appendChild(node('dt', key));
    pair.appendChild(node('dd', value));
    dl.appendChild(pair);
  }

  function plural(n, word) {
    return `${n} ${word}${n === 1 ? '' : 's'}`;
  }

  function jsonDetails(summary, value) {
    if (value === null || value === undefined) return null;
    const d = document.createElement('details');
    d.appendChild(node('summary', summary));
    d.appendChild(node('pre', JSON.stringify(value, null, 2)));
    return d;
  }

  let lastDetailKey = null;

  /** Every app of the job (several for a ticket whose client ran one app after another). */
  function renderApps(job) {
    const apps = appsOf(job);
    $('detail-apps-wrap').hidden = apps.length === 0;
    setText(
      'detail-apps-note',
      job.betweenApps
        ? 'between apps: every app so far has ended and the client runs on; the job is judged on its last app once the client has exited'
        : apps.length > 1
          ? `${plural(apps.length, 'app')} under one ticket; the job is judged on the last`
          : '',
    );
    const tbody = $('detail-apps').tBodies[0];
    clear(tbody);
    for (const a of apps) {
      const tr = document.createElement('tr');
      tr.dataset.appId = a.id;
      const url = rmAppUrl(lastCluster, a.id);
      const td = node('td', null, 'c-app');
      if (url) {
        const l = link(a.id, url, 'app-link');
        l.target = '_blank';
        l.rel = 'noopener noreferrer';
        td.appendChild(l);
      } else td.textContent = a.id;
      tr.appendChild(td);
      tr.appendChild(node('td', a.state || 'not tracked', 'c-state'));
      tr.appendChild(node('td', a.queue || '', 'c-queue'));
      tr.appendChild(node('td', fmtTime(a.startedAt), 'c-started'));
      tr.appendChild(node('td', fmtTime(a.finishedAt), 'c-finished'));
      tbody.appendChild(tr);
    }
  }

  function renderDetail(job) {
    const panel = $('detail');
    if (!job) {
      panel.hidden = true;
      lastDetailKey = null;
      return;
    }
    // An unchanged job is left as drawn, so an expanded request or result stays open.
    const key = JSON.stringify(job);
    if (key === lastDetailKey && !panel.hidden) return;
    lastDetailKey = key;
    panel.hidden = false;
    panel.dataset.jobId = job.id;
    setText('detail-title', `${job.name} — ${job.id}`);

    const open = !job.finishedAt && job.decision === 'admitted';
    const end = job.finishedAt || (open && job.predictedFinish) || job.estimatedFinish;
    // A prediction other than the estimate is marked beside it.
    const predicted =
      open && job.predictedFinish && job.predictedFinish !== job.estimatedFinish ? job.predictedFinish : null;
    const marks = [
      { key: 'arrival', label: 'arrival', ms: job.arrival ? Date.parse(job.arrival) : null },
      {
        key: 'estimate',
        label: 'estimated finish',
        ms: job.estimatedFinish ? Date.parse(job.estimatedFinish) : null,
      },
      { key: 'predicted', label: 'predicted finish', ms: predicted ? Date.parse(predicted) : null },
      { key: 'finished', label: 'finished', ms: job.finishedAt ? Date.parse(job.finishedAt) : null },
      { key: 'deadline', label: 'deadline', ms: Date.parse(job.deadline) },
      {
        key: 'earliest',
        label: 'earliest admissible',
        ms: job.earliestAdmissibleDeadline ? Date.parse(job.earliestAdmissibleDeadline) : null,
      },
    ];
    YssCharts.renderTimeline(document, $('detail-timeline'), {
      label: 'Deadline vs estimated vs actual finish',
      marks,
      width: 760,
      height: 90,
      band:
        end && job.decision === 'admitted'
          ? {
              from: Date.parse(end),
              to: Date.parse(job.deadline),
              kind: Date.parse(end) > Date.parse(job.deadline) ? 'late' : 'spare',
            }
          : null,
    });

    const rejected = job.decision === 'rejected';
    $('detail-rejection').hidden = !rejected;
    setText('detail-reason', rejected ? reasonText(job.reason) || 'no reason recorded' : '');
    let earliest = '';
    if (rejected && job.earliestAdmissibleDeadline) {
      const later = (Date.parse(job.earliestAdmissibleDeadline) - Date.parse(job.deadline)) / 1000;
      earliest = `${fmtTime(job.earliestAdmissibleDeadline)} (${fmtDuration(later)} after the requested deadline)`;
    } else if (rejected) {
      earliest = 'none now: no deadline would be admitted';
    }
    setText('detail-earliest', earliest);

    const dl = $('detail-fields');
    clear(dl);
    field(dl, 'Decision', job.decision);
    field(dl, 'State', job.state);
    field(dl, 'Outcome', job.outcome);
    field(dl, 'Arrival', fmtTime(job.arrival));
    field(dl, 'Deadline', fmtTime(job.deadline));
    field(dl, 'Estimated finish', fmtTime(job.estimatedFinish));
    if (open && job.predictedFinish)
      field(
        dl,
        'Predicted finish',
        job.predictedMiss
          ? `${fmtTime(job.predictedFinish)} (predicted to miss its deadline by ${fmtDuration(predictedLateBy(job)).slice(1)})`
          : fmtTime(job.predictedFinish),
      );
    field(dl, 'Actual finish', fmtTime(job.finishedAt));
    const slack = shownSlack(job);
    const slackOf = job.finishedAt ? '' : predicted ? ' (predicted)' : ' (estimated)';
    field(dl, 'Slack', slack === null || !Number.isFinite(slack) ? '' : `${fmtDuration(slack)}${slackOf}`);
    field(dl, 'Queue', job.queue);
    field(dl, 'Label', jobLabel(job));
    field(dl, 'Priority', job.priority);
    field(dl, 'EDF position', job.position);
    field(dl, 'Application', job.appId);
    field(dl, 'User', job.user);
    field(dl, 'Submitted by', job.submitter);
    field(dl, 'Source', job.source);
    field(dl, 'Job type', job.jobType);
    field(dl, 'Tasks', `${plural(job.maps, 'map')}, ${plural(job.reduces, 'reduce')}`);
    field(dl, 'Input', fmtBytes(job.inputBytes));
    field(
      dl,
      'Energy (est.)',
      Number.isFinite(job.energyJoules) ? energyText(job) : job.decision === 'admitted' ? NO_ENERGY : '',
    );
    const ticket = job.ticket && typeof job.ticket === 'object' ? job.ticket : null;
    if (ticket) {
      field(dl, 'Ticket', TICKET_STATES.includes(ticket.status) ? ticket.status : 'unknown');
      field(dl, 'Ticket expires', fmtTime(ticket.expiresAt));
      field(dl, 'Ticket label expression', ticket.labelExpression);
      const client = ticket.client && typeof ticket.client === 'object' ? ticket.client : null;
      if (client)
        field(
          dl,
          'Client',
          client.state === 'exited'
            ? `exited ${client.exitCode}`
            : `running (reported ${fmtTime(client.reportedAt)})`,
        );
    }
    renderApps(job);

    const decisions = $('detail-decisions');
    clear(decisions);
    for (const d of job.decisions || []) {
      const li = node('li', null, 'decision');
      li.appendChild(node('time', fmtTime(d.at)));
      li.appendChild(node('span', `${d.decision} by ${d.policy}`, 'what'));
      const extra = jsonDetails('detail', d.detail);
      if (extra) li.appendChild(extra);
      decisions.appendChild(li);
    }
    if (!decisions.firstChild) decisions.appendChild(node('li', 'none recorded', 'empty'));

    const actions = $('detail-actions');
    clear(actions);
    for (const a of job.actions || []) {
      const li = node('li', null, 'action');
      li.dataset.kind = a.kind;
      li.appendChild(node('time', fmtTime(a.createdAt)));
      li.appendChild(node('span', a.kind, 'what'));
      li.appendChild(
        node('span', a.status, `badge ${safeClass(a.status, ['pending', 'done', 'failed', 'skipped'])}`),
      );
      if (a.attempts > 1) li.appendChild(node('span', `${a.attempts} attempts`, 'attempts'));
      if (a.updatedAt && a.updatedAt !== a.createdAt)
        li.appendChild(node('span', `updated ${fmtTime(a.updatedAt)}`, 'updated'));
      if (a.error) li.appendChild(node('span', a.error, 'error'));
      for (const [label, value] of [
        ['request', a.payload],
        ['result', a.result],
      ]) {
        const d = jsonDetails(label, value);
        if (d) li.appendChild(d);
      }
      actions.appendChild(li);
    }
    if (!actions.firstChild) {
      actions.appendChild(
        node('li', rejected ? 'none: a rejected job never reaches the RM' : 'none yet', 'empty'),
      );
    }
  }

  // --- the loop ---------------------------------------------------------------------------

  // --- replays (GET /api/v1/replays) --------------------------------------------------------

  const replayView = { selected: null, timer: null, generation: 0 };

  function inReplays() {
    return /^#replay/.test(window.location.hash);
  }

  function fmtPercent(x) {
    return Number.isFinite(x) ? `${(x * 100).toFixed(1)} %` : '–';
  }

  /** What a replay was asked for, in a few words. */
  function askedText(request) {
    const r = request || {};
    const parts = [];
    if (r.since) parts.push(`last ${r.since}`);
    if (r.from) parts.push(`from ${r.from}`);
    if (r.to) parts.push(`to ${r.to}`);
    if (Number.isFinite(r.slack)) parts.push(`slack ${r.slack}x`);
    if (r.deadlines) parts.push(plural(Object.keys(r.deadlines).length, 'named deadline'));
    if (Array.isArray(r.policies)) parts.push(r.policies.join(', '));
    if (Number.isFinite(r.maxJobs)) parts.push(`at most ${r.maxJobs} jobs`);
    return parts.join(' · ') || 'defaults (last 7d, every policy)';
  }

  function renderReplayList(list, message) {
    const tbody = $('replays').tBodies[0];
    clear(tbody);
    if (!list) {
      setText('replays-count', '');
      emptyRow(tbody, message);
      return;
    }
    setText('replays-count', list.length ? plural(list.length, 'replay') + ' kept' : '');
    if (!list.length) {
      emptyRow(tbody, 'no replay yet: POST /api/v1/replays starts one');
      return;
    }
    for (const r of list) {
      const tr = document.createElement('tr');
      tr.dataset.replayId = r.id;
      tr.tabIndex = 0;
      tr.className = `replay ${safeClass(r.state, ['running', 'done', 'failed'])}`;
      if (r.id === replayView.selected) tr.classList.add('selected');
      const report = r.report;
      const fidelity = report && report.fidelity ? report.fidelity.medianAbsError : null;
      const progress =
        r.state === 'running'
          ? r.progress
            ? `${r.progress.phase} ${r.progress.percent} %`
            : 'starting'
          : r.state === 'failed'
            ? r.error || 'failed'
            : 'done';
      const cells = [
        r.id,
        r.state,
        fmtTime(r.startedAt),
        r.finishedAt ? fmtTime(r.finishedAt) : '–',
        progress,
        report ? report.jobs : '–',
        fidelity === null || fidelity === undefined ? '–' : fmtPercent(fidelity),
        askedText(r.request),
      ];
      cells.forEach((c, i) => {
        const td = node('td', c);
        td.dataset.col = HEADS.replays[i][0].toLowerCase();
        tr.appendChild(td);
      });
      tbody.appendChild(tr);
    }
  }

  function renderReplay(r) {
    $('replay-detail').hidden = !r;
    if (!r) return;
    setText('replay-title', `Replay ${r.id}`);
    const errorBox = $('replay-error');
    errorBox.hidden = r.state !== 'failed';
    setText('replay-error', r.state === 'failed' ? `Failed: ${r.error || 'no reason given'}` : '');
    const tbody = $('replay-policies').tBodies[0];
    clear(tbody);
    const report = r.report;
    if (!report) {
      setText('replay-plot-note', '');
      setText('replay-meta', r.state === 'running' ? 'running: its figures come when it is done' : '');
      setText('replay-fidelity', '');
      emptyRow(tbody, r.state === 'running' ? 'not done yet' : 'no report');
      YssCharts.renderBarChart(document, $('chart-replay-policies'), {
        label: '',
        bars: [],
        width: CHART_W,
        height: CHART_H,
        emptyMessage: 'no report',
      });
      YssCharts.renderBarChart(document, $('chart-replay-fidelity'), {
        label: '',
        bars: [],
        width: CHART_W,
        height: CHART_H,
        emptyMessage: 'no report',
      });
      return;
    }
    const window_ = report.window || {};
    const deadlines = Object.entries(report.deadlines || {})
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ');
    setText(
      'replay-meta',
      `${report.jobs} jobs replayed, started ${fmtTime(window_.from)} to ${fmtTime(window_.to)}; deadlines: ${deadlines || 'none'}; ${report.requests} requests`,
    );
    const f = report.fidelity || {};
    setText(
      'replay-fidelity',
      f.jobs
        ? `Fidelity (as-ran vs real, ${f.jobs} jobs): median |error| ${fmtPercent(f.medianAbsError)}, p90 ${fmtPercent(f.p90AbsError)}, ${fmtPercent(f.within10)} of jobs within 10 %`
        : 'Fidelity: no job finished in the as-ran run',
    );
    const policies = Object.entries(report.policies || {});
    const bars = [];
    for (const [name, p] of policies) {
      const tr = document.createElement('tr');
      tr.dataset.policy = name;
      const cells = [
        name,
        p.admitted,
        p.rejected,
        p.met,
        p.missed,
        p.noDeadline,
        fmtPercent(p.utilization),
        fmtPercent(p.acceptRatio),
        fmtPercent(p.successRatio),
      ];
      for (const c of cells) tr.appendChild(node('td', c));
      tbody.appendChild(tr);
      bars.push(
        { key: `${name}:met`, value: p.met, kind: 'met', title: `${name}: ${p.met} met` },
        { key: `${name}:missed`, value: p.missed, kind: 'missed', title: `${name}: ${p.missed} missed` },
        {
          key: `${name}:rejected`,
          value: p.rejected,
          kind: 'rejected',
          title: `${name}: ${p.rejected} rejected`,
        },
      );
    }
    YssCharts.renderBarChart(document, $('chart-replay-policies'), {
      label: 'Jobs met, missed and rejected per policy',
      bars,
      width: CHART_W,
      height: CHART_H,
      emptyMessage: 'no policy ran',
    });
    setText(
      'replay-plot-note',
      `Left to right: each policy's met (green), missed (red) and rejected (grey), in the table's order (${policies.map(([name]) => name).join(', ')}); the |error| buckets ${(f.buckets || []).map((b) => b.label).join(', ')}.`,
    );
    YssCharts.renderBarChart(document, $('chart-replay-fidelity'), {
      label: 'Share of jobs per |error| bucket, %',
      bars: (f.buckets || []).map((b) => ({
        key: b.label,
        value: b.share * 100,
        kind: 'open',
        title: `|error| ${b.label}: ${b.jobs} jobs (${fmtPercent(b.share)})`,
      })),
      width: CHART_W,
      height: CHART_H,
      emptyMessage: 'no job to compare',
    });
  }

  async function refreshReplays() {
    clearTimeout(replayView.timer);
    const generation = ++replayView.generation;
    try {
      const body = await api('/replays');
      if (generation !== replayView.generation) return;
      const list = Array.isArray(body && body.replays) ? body.replays : [];
      renderReplayList(list);
      renderReplay(list.find((r) => r.id === replayView.selected) || null);
      document.body.dataset.replayRefreshes = String(Number(document.body.dataset.replayRefreshes || 0) + 1);
    } catch (err) {
      if (generation !== replayView.generation) return;
      if (err instanceof AuthRequired) {
        const hadToken = Boolean(state.token);
        storeToken(null);
        showToken(hadToken ? 'that token was refused; try again' : '');
        return;
      }
      // A service without replays answers 404 saying so: the view says it too.
      renderReplayList(null, err.status === 404 ? err.message : `Cannot read the replays: ${err.message}`);
      renderReplay(null);
    }
    if (inReplays() && !state.locked)
      replayView.timer = setTimeout(refreshReplays, state.config.pollIntervalMs);
  }

  /** The view the address asks for: the jobs (the page's panels) or the replays. */
  function applyView() {
    const on = inReplays();
    const m = /^#replay=(.+)$/.exec(window.location.hash);
    replayView.selected = m ? decodeURIComponent(m[1]) : null;
    $('replays-view').hidden = !on || state.locked;
    $('content').hidden = on || state.locked;
    $('nav-jobs').classList.toggle('current', !on);
    $('nav-replays').classList.toggle('current', on);
    for (const tr of $('replays').tBodies[0].rows)
      tr.classList.toggle('selected', tr.dataset.replayId === replayView.selected);
    if (on) refreshReplays();
    else clearTimeout(replayView.timer);
  }

  function setStatus(ok, message) {
    $('status-dot').className = `dot ${ok ? 'ok' : 'bad'}`;
    setText('status-text', message);
  }

  function showToken(message) {
    state.locked = true;
    $('token-panel').hidden = false;
    $('content').hidden = true;
    $('replays-view').hidden = true;
    setText('token-error', message || '');
    setStatus(false, 'waiting for a token');
    $('token-input').focus();
  }

  async function refresh() {
    const generation = ++state.generation;
    const f = filters();
    const selected = state.selectedId;
    const query = jobsQuery(f);
    const unfiltered = jobsQuery({});
    try {
      const live = { notLeader: null };
      const [jobs, cluster, stats, detail, costs, all] = await Promise.all([
        api(query),
        liveRead('/cluster', live),
        api('/stats'),
        selected
          ? api(`/jobs/${encodeURIComponent(selected)}`).catch((err) =>
              err.status === 404 ? null : Promise.reject(err),
            )
          : Promise.resolve(undefined),
        liveRead('/estimates', live),
        // The tickets panel lists every ticket, whatever the table's filters.
        query === unfiltered ? Promise.resolve(null) : api(unfiltered),
      ]);
      // A newer refresh (a filter changed meanwhile) owns the page.
      if (generation !== state.generation) return;
      state.jobs = Array.isArray(jobs && jobs.jobs) ? jobs.jobs : [];
      state.total = jobs && Number.isFinite(jobs.total) ? jobs.total : state.jobs.length;
      noteSeen(state.jobs, cluster);
      renderJobs();
      renderStats(stats);
      renderCluster(cluster, live.notLeader);
      const allJobs = all ? (Array.isArray(all.jobs) ? all.jobs : []) : state.jobs;
      renderTickets(allJobs, cluster);
      lastCluster = cluster;
      renderCosts(costs);
      renderProfiles(costs);
      renderFollower(live.notLeader);
      if (selected && selected === state.selectedId) renderDetail(detail || null);
      $('error-banner').hidden = true;
      state.refreshes++;
      document.body.dataset.refreshes = String(state.refreshes);
      // No time of the browser's own here: the page's one clock is the sidecar's (renderClock).
      setStatus(true, `live · read every ${fmtInterval()}`);
    } catch (err) {
      if (generation !== state.generation) return;
      if (err instanceof AuthRequired) {
        const hadToken = Boolean(state.token);
        storeToken(null);
        showToken(hadToken ? 'that token was refused; try again' : '');
        return;
      }
      $('error-banner').hidden = false;
      setText('error-banner', `Cannot read the API: ${err.message}. Retrying every ${fmtInterval()}.`);
      setStatus(false, 'API unreachable');
    }
  }

  function schedule() {
    clearTimeout(state.timer);
    if (state.locked) return;
    state.timer = setTimeout(async () => {
      await refresh();
      schedule();
    }, state.config.pollIntervalMs);
  }

  async function refreshNow() {
    await refresh();
    schedule();
  }

  async function openJob(id) {
    state.selectedId = id;
    window.history.replaceState(null, '', `#job=${encodeURIComponent(id)}`);
    for (const tr of $('jobs').tBodies[0].rows) tr.classList.toggle('selected', tr.dataset.jobId === id);
    try {
      const job = await api(`/jobs/${encodeURIComponent(id)}`);
      if (state.selectedId === id) {
        renderDetail(job);
        $('detail').scrollIntoView({ block: 'nearest' });
      }
    } catch (err) {
      if (err instanceof AuthRequired) showToken('');
      else {
        $('error-banner').hidden = false;
        setText('error-banner', `Cannot read job ${id}: ${err.message}`);
      }
    }
  }

  function closeJob() {
    state.selectedId = null;
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
    renderDetail(null);
    for (const tr of $('jobs').tBodies[0].rows) tr.classList.remove('selected');
  }

  function wire() {
    $('jobs').tBodies[0].addEventListener('click', (ev) => {
      const tr = ev.target.closest('tr[data-job-id]');
      if (tr) openJob(tr.dataset.jobId);
    });
    $('jobs').tBodies[0].addEventListener('keydown', (ev) => {
      const tr = ev.target.closest('tr[data-job-id]');
      if (tr && (ev.key === 'Enter' || ev.key === ' ')) {
        ev.preventDefault();
        openJob(tr.dataset.jobId);
      }
    });
    $('chart-slack').addEventListener('click', (ev) => {
      const bar = ev.target.closest('rect[data-key]');
      if (bar) openJob(bar.getAttribute('data-key'));
    });
    $('detail-close').addEventListener('click', closeJob);
    // A ticket's job link (#job=<id>) opens that job's panel, as a click on its row does;
    // #replays and #replay=<id> open the replays view.
    window.addEventListener('hashchange', () => {
      applyView();
      const m = /^#job=(.+)$/.exec(window.location.hash);
      if (m && decodeURIComponent(m[1]) !== state.selectedId) openJob(decodeURIComponent(m[1]));
    });
    const pickReplay = (tr) => {
      window.location.hash = `#replay=${encodeURIComponent(tr.dataset.replayId)}`;
    };
    $('replays').tBodies[0].addEventListener('click', (ev) => {
      const tr = ev.target.closest('tr[data-replay-id]');
      if (tr) pickReplay(tr);
    });
    $('replays').tBodies[0].addEventListener('keydown', (ev) => {
      const tr = ev.target.closest('tr[data-replay-id]');
      if (tr && (ev.key === 'Enter' || ev.key === ' ')) {
        ev.preventDefault();
        pickReplay(tr);
      }
    });

    // Server-side filters need a new read; label and search filter what is loaded.
    for (const id of ['f-decision', 'f-state', 'f-queue', 'f-user'])
      $(id).addEventListener('change', refreshNow);
    $('f-label').addEventListener('change', renderJobs);
    $('cost-class').addEventListener('change', (ev) => {
      chosenCostClass = ev.target.value;
      renderCosts(lastEstimates);
    });
    $('f-search').addEventListener('input', renderJobs);
    $('filters').addEventListener('reset', () => setTimeout(refreshNow, 0));
    $('filters').addEventListener('submit', (ev) => ev.preventDefault());
    // Here, not as an inline onsubmit: the content security policy runs no inline handler.
    $('costs-form').addEventListener('submit', (ev) => ev.preventDefault());

    $('token-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const value = $('token-input').value.trim();
      if (!value) return;
      storeToken(value);
      $('token-input').value = '';
      $('token-panel').hidden = true;
      state.locked = false;
      applyView();
      refreshNow();
    });

    document.addEventListener('visibilitychange', () => {
      if (!document.hidden && !state.locked) refreshNow();
    });
  }

  async function start() {
    buildTiles();
    try {
      const res = await fetch('/dashboard/config.json', { cache: 'no-store' });
      if (res.ok) Object.assign(state.config, await res.json());
    } catch {
      // Keep the defaults: the API may still answer.
    }
    buildTables();
    wire();
    applyView();
    const m = /^#job=(.+)$/.exec(window.location.hash);
    if (m) {
      state.selectedId = decodeURIComponent(m[1]);
      openJob(state.selectedId);
    }
    await refreshNow();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
