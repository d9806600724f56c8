import type { Request } from 'express';
import { remoteRejection } from '../../errors/emulated-rm-rejection';
import { answer } from '../http';
import type { Content } from '../render';
import type { AppRecord, AppView, EmulatedRm } from '../rm-state';
import { amHostOf, containerOf, suffixOf } from './app-content';
import { appOf } from './apps';
import { C, type RmContext } from './context';

/** An app's AM attempts: the list, one attempt, and its containers. */
export function registerAttemptRoutes(c: RmContext): void {
  const { app, rm, h } = c;
  app.get(
    `${C}/apps/:appId/appattempts`,
    h((req, res) => answer(req, res, 'appAttempts', { appAttempt: attempts(rm, rm.view(appOf(c, req))) })),
  );
  app.get(
    `${C}/apps/:appId/appattempts/:attemptId`,
    h((req, res) => answer(req, res, 'appAttempt', attemptOf(rm, req))),
  );
  app.get(
    `${C}/apps/:appId/appattempts/:attemptId/containers`,
    // Containers of a task are not tracked one by one by the simulator: the list is the empty
    // one, which the RM writes `{}` in JSON and `<containers/>` in XML (measured on 3.4.3).
    h((req, res) => {
      attemptOf(rm, req);
      answer(req, res, 'containers', { container: [] }, { dialect: 'jersey-default', wrapJson: false });
    }),
  );
}

const attemptState: Record<string, string> = {
  SUBMITTED: 'SUBMITTED',
  ACCEPTED: 'SCHEDULED',
  RUNNING: 'RUNNING',
  FINISHED: 'FINISHED',
  KILLED: 'KILLED',
  FAILED: 'FAILED',
};

/** One attempt as AppAttemptInfo renders it (3.4.3: `exportPorts` is the text `null`). */
function attemptContent(
  r: AppRecord,
  n: number,
  startMs: number,
  finishedMs: number,
  state: string,
  host: string,
): Content {
  return {
    id: n,
    startTime: startMs,
    finishedTime: finishedMs,
    containerId: containerOf(r, n),
    nodeHttpAddress: `${host}:8042`,
    nodeId: `${host}:45454`,
    logsLink: `http://${host}:8042/node/containerlogs/${containerOf(r, n)}/${r.user}`,
    blacklistedNodes: '',
    nodesBlacklistedBySystem: '',
    appAttemptId: `appattempt_${suffixOf(r.id)}_${String(n).padStart(6, '0')}`,
    exportPorts: 'null',
    appAttemptState: state,
  };
}

/** Nothing launched for an unmanaged AM: the attempt waits for its AM to register (measured on 3.4.3). */
function unmanagedAttempt(v: AppView): Content {
  return {
    id: 1,
    startTime: v.startedTime,
    finishedTime: v.state === 'KILLED' ? v.finishedTime : 0,
    containerId: '',
    nodeHttpAddress: '',
    nodeId: '',
    logsLink: '',
    blacklistedNodes: '',
    appAttemptId: `appattempt_${suffixOf(v.rec.id)}_000001`,
    exportPorts: '',
    appAttemptState: v.state === 'KILLED' ? 'KILLED' : 'LAUNCHED',
  };
}

function attempts(rm: EmulatedRm, v: AppView): Content[] {
  const r = v.rec;
  if (r.unmanaged) return [unmanagedAttempt(v)];
  if (r.amFailure) {
    const host = amHostOf(rm, r);
    return rm
      .amFailureAttempts(r)
      .map((a) =>
        attemptContent(
          r,
          a.n,
          rm.epoch(a.start),
          a.over ? rm.epoch(a.end) : 0,
          a.over ? (r.killedSeconds !== null && a.end >= r.killedSeconds ? 'KILLED' : 'FAILED') : 'LAUNCHED',
          host,
        ),
      );
  }
  if (!r.inEngine) return [];
  // A FINISHING app's attempt is FINISHING too (measured on 3.4.3).
  const state = v.rmState === 'FINISHING' ? 'FINISHING' : (attemptState[v.state] ?? 'NEW');
  return [attemptContent(r, 1, v.startedTime, v.finishedTime, state, amHostOf(rm, r))];
}

/**
 * One attempt of an app, as the RM's AppInfoProvider finds it (measured on 3.4.3): an id that
 * does not parse is 400, an unknown app or attempt 404 with the client service's message.
 */
function attemptOf(rm: EmulatedRm, req: Request): Content {
  const appId = String(req.params.appId);
  const attemptId = String(req.params.attemptId);
  if (!/^appattempt_\d+_\d+_\d+$/.test(attemptId))
    throw remoteRejection(
      400,
      'BadRequestException',
      attemptId.startsWith('appattempt_')
        ? `java.lang.IllegalArgumentException: Invalid AppAttemptId: ${attemptId}`
        : `java.lang.IllegalArgumentException: Invalid AppAttemptId prefix: ${attemptId}`,
    );
  const rec = rm.submissionOf(appId) === undefined ? undefined : rm.mustApp(appId);
  if (rec === undefined)
    throw remoteRejection(
      404,
      'NotFoundException',
      `org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException: Application with id '${appId}' doesn't exist in RM. Please check that the job submission was successful.`,
    );
  const found = attempts(rm, rm.view(rec)).find(
    (a) => (a as { appAttemptId: string }).appAttemptId === attemptId,
  );
  if (!found)
    throw remoteRejection(
      404,
      'NotFoundException',
      `org.apache.hadoop.yarn.exceptions.ApplicationAttemptNotFoundException: ApplicationAttempt with id '${attemptId}' doesn't exist in RM.`,
    );
  return found;
}
