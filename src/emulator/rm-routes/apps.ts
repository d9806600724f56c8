import type { Request } from 'express';
import { remoteRejection } from '../../errors/emulated-rm-rejection';
import { answer, PreResourceRejection, query, queryList, queryNumber } from '../http';
import { APP_STATES, type AppQueryFilter, type AppRecord } from '../rm-state';
import { appContent } from './app-content';
import { C, type RmContext } from './context';

/** Reads of apps: the list and its statistics, one app, and one app's state, queue, priority, timeouts. */
export function registerAppReadRoutes(c: RmContext): void {
  const { app, rm, h } = c;
  app.get(
    `${C}/apps`,
    h((req, res) => {
      const views = rm.queryApps(appsQuery(req));
      const de = deSelectsOf(c, req);
      answer(req, res, 'apps', { app: views.map((v) => appContent(c, req, v, de)) });
    }),
  );
  app.get(
    `${C}/appstatistics`,
    h((req, res) => answer(req, res, 'appStatInfo', appStatistics(c, req))),
  );
  // Jersey matches the literal path before `{appid}`: new-application has no GET (503).
  app.get(
    `${C}/apps/new-application`,
    h(() => {
      throw new PreResourceRejection();
    }),
  );
  app.get(
    `${C}/apps/:appId`,
    h((req, res) => answer(req, res, 'app', appContent(c, req, rm.view(appOf(c, req)), deSelectsOf(c, req)))),
  );
}

/** One app's own fields, each its own resource: state (the RMAppState), queue, priority, timeouts. */
export function registerAppFieldRoutes(c: RmContext): void {
  const { app, rm, h } = c;
  app.get(
    `${C}/apps/:appId/state`,
    // RMAppState, not the report's state: FINISHING, KILLING, FINAL_SAVING too (measured on 3.4.3).
    h((req, res) =>
      answer(req, res, 'appstate', { state: rm.view(appOf(c, req)).rmState }, { wrapJson: false }),
    ),
  );
  app.get(
    `${C}/apps/:appId/queue`,
    h((req, res) =>
      answer(req, res, 'appqueue', { queue: `root.${appOf(c, req).queue}` }, { wrapJson: false }),
    ),
  );
  app.get(
    `${C}/apps/:appId/priority`,
    h((req, res) =>
      answer(req, res, 'applicationpriority', { priority: appOf(c, req).priority }, { wrapJson: false }),
    ),
  );
  app.get(
    `${C}/apps/:appId/timeouts`,
    h((req, res) => answer(req, res, 'timeouts', { timeout: [rm.timeoutOf(appOf(c, req))] })),
  );
  app.get(
    `${C}/apps/:appId/timeouts/:type`,
    h((req, res) => {
      const rec = appOf(c, req);
      if (req.params.type !== 'LIFETIME') {
        throw remoteRejection(
          400,
          'BadRequestException',
          `java.lang.Exception: Invalid application timeout type ${String(req.params.type)}`,
        );
      }
      answer(req, res, 'timeout', rm.timeoutOf(rec));
    }),
  );
}

export const appOf = ({ rm }: RmContext, req: Request): AppRecord => rm.mustApp(String(req.params.appId));

/**
 * The members `deSelects` leaves out, by their canonical names; one the RM does not know (any
 * case) is a 400, as DeSelectFields.initFields refuses it.
 */
function deSelectsOf(c: RmContext, req: Request): Set<string> {
  const known = c.rm.config.deSelectTypes;
  const out = new Set<string>();
  for (const given of queryList(req, 'deSelects') ?? []) {
    const name = known.find((k) => k.toLowerCase() === given.trim().toLowerCase());
    if (name === undefined) {
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: Invalid deSelects string ${given.trim()} specified. It should be one of [${known.join(', ')}]`,
      );
    }
    out.add(name);
  }
  return out;
}

/** `GET /apps`' query, refused as the RM refuses it: an unknown state, a limit not above 0. */
function appsQuery(req: Request): AppQueryFilter {
  const given = [...(queryList(req, 'states') ?? []), ...(queryList(req, 'state') ?? [])];
  for (const s of given) {
    if (!(APP_STATES as readonly string[]).includes(s.toUpperCase())) {
      // The state as given, and the list (measured on 3.4.3).
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: Invalid application-state ${s} specified. It should be one of [${APP_STATES.join(', ')}]`,
      );
    }
  }
  const states = given.map((s) => s.toUpperCase());
  const limit = queryNumber(req, 'limit');
  if (limit !== undefined && limit <= 0) {
    throw remoteRejection(
      400,
      'BadRequestException',
      'java.lang.Exception: limit value must be greater then 0',
    );
  }
  return {
    states,
    finalStatus: query(req, 'finalStatus'),
    user: query(req, 'user'),
    queue: query(req, 'queue'),
    limit,
    startedTimeBegin: queryNumber(req, 'startedTimeBegin', 0),
    startedTimeEnd: queryNumber(req, 'startedTimeEnd', 0),
    finishedTimeBegin: queryNumber(req, 'finishedTimeBegin', 0),
    finishedTimeEnd: queryNumber(req, 'finishedTimeEnd', 0),
    applicationTypes: queryList(req, 'applicationTypes'),
    applicationTags: queryList(req, 'applicationTags'),
    name: query(req, 'name'),
  };
}

/** `GET /appstatistics`: apps by state, of one application type at most. */
function appStatistics({ rm }: RmContext, req: Request) {
  const types = queryList(req, 'applicationTypes') ?? [];
  if (types.length > 1) {
    throw remoteRejection(
      400,
      'BadRequestException',
      `java.lang.Exception: # of applicationTypes = ${types.length}, we temporarily support at most one applicationType`,
    );
  }
  const states = (queryList(req, 'states') ?? APP_STATES.slice()).map((s) => s.toUpperCase());
  const views = rm
    .allViews()
    .filter((v) => types.length === 0 || v.rec.applicationType.toUpperCase() === types[0]!.toUpperCase());
  return {
    statItem: states.map((s) => ({
      state: s.toLowerCase(),
      type: types[0] ?? '*',
      count: views.filter((v) => v.state === s).length,
    })),
  };
}
