import type { Request, Response } from 'express';
import { EmulatedRmRejection } from '../../errors/emulated-rm-rejection';
import { answer, formatOf, readBody, sendExact, undeclaredThrowable, userOf } from '../http';
import { CONTENT_TYPE } from '../render';
import type { EmulatedRm } from '../rm-state';
import { readSubmissionContext } from '../submission-context';
import { base, C, resource, type RmContext } from './context';

/** Writes on one app: its state (kill), queue, priority and timeout. */
export function registerAppWriteRoutes({ app, rm, h }: RmContext): void {
  // The writes: the app first (400 for an id that does not parse, 404 for an unknown one), then
  // the body, as RMWebServices reads them (measured on 3.4.3).
  app.put(
    `${C}/apps/:appId/state`,
    h((req, res) => putState(rm, req, res)),
  );
  app.put(
    `${C}/apps/:appId/queue`,
    h((req, res) => {
      const appId = String(req.params.appId);
      const body = readBody(req, 'appqueue');
      rm.mustApp(appId);
      // No queue in the body is a move to null: the scheduler's refusal (503).
      const target = body.get('queue').optStr();
      if (target === undefined) throw undeclaredThrowable();
      answer(req, res, 'appqueue', { queue: rm.move(appId, target, userOf(req)) }, { wrapJson: false });
    }),
  );
  app.put(
    `${C}/apps/:appId/priority`,
    h((req, res) => {
      const appId = String(req.params.appId);
      const p = readBody(req, 'applicationpriority').get('priority');
      rm.mustApp(appId);
      // AppPriority's priority is an int: a body without it asks for 0.
      answer(
        req,
        res,
        'applicationpriority',
        { priority: rm.setPriority(appId, p.present ? p.int() : 0, userOf(req)) },
        { wrapJson: false },
      );
    }),
  );
  app.put(
    `${C}/apps/:appId/timeout`,
    h((req, res) => {
      const appId = String(req.params.appId);
      // The timeout body is root-wrapped in JSON too (INDEX.md 9.3): an unwrapped one has no type.
      const body = readBody(req, 'timeout', { wrappedJson: true });
      rm.mustApp(appId);
      const rec = rm.setLifetime(
        appId,
        body.get('type').optStr(),
        body.get('expiryTime').optStr(),
        userOf(req),
      );
      answer(req, res, 'timeout', rm.timeoutOf(rec));
    }),
  );
}

/** PUT /apps/{id}/state: a kill (EmulatedRm.kill); 202 with the state's own URL while it runs. */
function putState(rm: EmulatedRm, req: Request, res: Response): void {
  const appId = String(req.params.appId);
  const body = readBody(req, 'appstate');
  rm.mustApp(appId);
  const target = body.get('state').optStr();
  if (target === undefined) {
    // AppState.getState() is null and the resource method dereferences it.
    throw new EmulatedRmRejection({
      status: 503,
      exception: 'NullPointerException',
      javaClassName: 'java.lang.NullPointerException',
      message:
        'Cannot invoke "String.equals(Object)" because the return value of "org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.AppState.getState()" is null',
    });
  }
  const out = rm.kill(appId, target, body.get('diagnostics').optStr(), userOf(req));
  if (out.status === 202) res.set('Location', `${base(req)}${req.path}`);
  answer(req, res, 'appstate', { state: out.state }, { wrapJson: false, status: out.status });
}

/** New apps: an id (`new-application`), then the submission (`POST /apps`). */
export function registerSubmissionRoutes({ app, rm, h }: RmContext): void {
  app.post(
    `${C}/apps/new-application`,
    h((req, res) => {
      const id = rm.newApplication();
      const max = rm.maximumAllocation();
      answer(
        req,
        res,
        'NewApplication',
        {
          'application-id': id,
          'maximum-resource-capability': resource({ memoryMB: max.memoryMB, vcores: max.vcores, gpus: 0 }),
        },
        { wrapJson: false },
      );
    }),
  );
  app.post(
    `${C}/apps`,
    h((req, res) => {
      const context = readSubmissionContext(readBody(req, 'application-submission-context'));
      const rec = rm.submit({ context, user: userOf(req) });
      // 202, no body, the Content-Type negotiated all the same, and the request URL (no query)
      // plus the id as Location (measured on 3.4.3).
      res.set('Location', `${base(req)}${req.path.replace(/\/+$/, '')}/${rec.id}`);
      sendExact(res, 202, CONTENT_TYPE[formatOf(req)], '');
    }),
  );
}
