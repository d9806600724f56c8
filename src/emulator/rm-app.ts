import express from 'express';
import type { Logger } from '../log';
import type { Controls } from './controls';
import { emulatedApp, unknownRoutes } from './http';
import type { EmulatedRm } from './rm-state';
import { registerAppReadRoutes, registerAppFieldRoutes } from './rm-routes/apps';
import { registerAppWriteRoutes, registerSubmissionRoutes } from './rm-routes/app-writes';
import { registerAttemptRoutes } from './rm-routes/attempts';
import { registerClusterRoutes, registerDelegationTokenRoutes } from './rm-routes/cluster';
import { rmContext } from './rm-routes/context';
import { registerLabelRoutes, registerNodeRoutes } from './rm-routes/nodes';
import { registerReservationRoutes } from './rm-routes/reservations';
import { registerSchedulerRoutes } from './rm-routes/scheduler';

/**
 * The emulated ResourceManager's REST API (INDEX.md section 3 and 4): every path the client
 * uses, answering in the shapes of Hadoop's samples (test/fixtures/yarn-rm-api/), JSON or XML
 * by Accept, through render.ts. State and refusals come from EmulatedRm.
 *
 * The routes live in rm-routes/, one file per resource, and are added here in one order: a
 * literal path before a parameter one (`/apps/new-application` before `/apps/{appid}`), and
 * last the handler that answers for every path the RM does not have.
 */
export function buildRmApp(rm: EmulatedRm, controls: Controls, log: Logger): express.Express {
  const app = emulatedApp(rm, controls, true);
  const c = rmContext(app, rm, controls, log);
  registerClusterRoutes(c);
  registerSchedulerRoutes(c);
  registerNodeRoutes(c);
  registerLabelRoutes(c);
  registerAppReadRoutes(c);
  registerAttemptRoutes(c);
  registerAppFieldRoutes(c);
  registerAppWriteRoutes(c);
  registerSubmissionRoutes(c);
  registerReservationRoutes(c);
  registerDelegationTokenRoutes(c);
  // A known path asked with another method: 503; an unknown one: the web UI's 404 page.
  app.use(unknownRoutes(app, log, 'rm'));
  return app;
}
