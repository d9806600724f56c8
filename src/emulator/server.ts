import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import express, { type Request, type Response } from 'express';
import { silentLogger, type Logger } from '../log';
import { SimTime, systemClock, type RealClock } from './clock';
import { defaultEmulatorConfig, type EmulatorConfig } from './config';
import { CONTROL_PREFIX, Controls, type FaultSettings } from './controls';
import { buildAmProxy } from './am-proxy';
import { buildJhsApp } from './jhs-app';
import { buildRmApp } from './rm-app';
import { EmulatedRm } from './rm-state';
import { buildWebHdfsApp, emulatedHdfsOf, type HdfsFileOption } from './webhdfs-app';
import { authFilter, webServletName } from './auth';
import { NODE_HEADER_BYTES } from './http';
import { SyntheticHistory, type SyntheticHistoryOptions } from './synthetic-history';

/**
 * Starts the emulated ResourceManager and JobHistory server on two ports over one simulated
 * cluster, with the test controls under `/_emulator/` on both:
 *
 *   GET    /_emulator/state        simulated time, apps, faults, write counts
 *   PUT    /_emulator/faults       change fault settings (JSON, any subset of FaultSettings)
 *   DELETE /_emulator/faults       back to no faults
 *   GET    /_emulator/writes       write calls by endpoint, and the log of each
 *   DELETE /_emulator/writes       forget them
 *   POST   /_emulator/advance      {"seconds": N}: jump simulated time forward
 *   POST   /_emulator/refuse       {"ms": N}: close the RM's listening socket for N real ms
 *   GET    /_emulator/apps/{appid}/submission   the submission context the app was submitted
 *                                  with, as received (submission-context.ts)
 *
 * With `history`, the JobHistory server also serves a synthetic history of that many finished
 * jobs, made on demand (synthetic-history.ts; docs/emulator.md, "Synthetic history").
 *
 * With `auth: simple` in the configuration, the RM, its AM proxy and the JobHistory server
 * answer 401 to a call without a user (auth.ts); the controls and WebHDFS are not behind it
 * (the NameNode's WebHDFS has its own filter, which allows anonymous calls by default).
 */
export interface EmulatorOptions {
  config?: EmulatorConfig;
  /** Simulated seconds per real second. */
  speed?: number;
  seed?: number;
  clock?: RealClock;
  host?: string;
  /** 0 = an ephemeral port. */
  port?: number;
  jhsPort?: number;
  faults?: Partial<FaultSettings>;
  /** Files of the emulated HDFS, served over WebHDFS on the RM's port (none by default). */
  hdfsFiles?: readonly HdfsFileOption[];
  /** A synthetic history the JobHistory server serves beside the emulated jobs (synthetic-history.ts). */
  history?: SyntheticHistoryOptions;
  /** How injected latency waits (tests pass one that does not sleep). */
  delay?: (ms: number) => Promise<void>;
  logger?: Logger;
}

export interface RunningEmulator {
  url: string;
  jhsUrl: string;
  port: number;
  jhsPort: number;
  rm: EmulatedRm;
  controls: Controls;
  time: SimTime;
  /** Close the RM's listening socket and drop its open connections: clients get ECONNREFUSED. */
  stopListening(): Promise<void>;
  /** Listen again on the same port. */
  resumeListening(): Promise<void>;
  close(): Promise<void>;
}

class Listener {
  private server: http.Server;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly app: express.Express,
    private readonly host: string,
  ) {
    this.server = this.make();
  }

  private make(): http.Server {
    // Hadoop's web servers read 64 KB of request line and headers, Node 16 KB: emulatedApp
    // answers as Jetty does past Hadoop's limit (HADOOP_HEADER_BYTES).
    const server = http.createServer({ maxHeaderSize: NODE_HEADER_BYTES }, this.app);
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    return server;
  }

  listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, this.host, () => {
        this.server.off('error', reject);
        this.port = (this.server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  async stop(): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
    this.server = this.make();
  }

  async resume(): Promise<void> {
    if (this.server.listening) return;
    await this.listen(this.port);
  }
}

/** A control call's bad input: 400 with the message. */
const bad = (res: Response, err: unknown) => res.status(400).json({ error: (err as Error).message });

/** What GET /_emulator/state answers: the clock, the faults, the writes and the apps. */
function emulatorState(rm: EmulatedRm, controls: Controls, time: SimTime): unknown {
  rm.sync();
  return {
    clusterTimestamp: rm.clusterTimestamp,
    speed: time.speed,
    simSeconds: rm.engine.now,
    nowEpochMs: time.nowEpochMs(),
    faults: controls.faults,
    writes: controls.writeCounts(),
    costs: rm.config.cluster.costs,
    apps: rm.allViews().map((v) => ({
      id: v.rec.id,
      state: v.state,
      queue: v.rec.queue,
      priority: v.rec.priority,
      partition: v.rec.partition,
      maps: v.rec.maps,
      reduces: v.rec.reduces,
    })),
  };
}

/** /faults (set, reset) and /writes (read, clear). */
function faultRoutes(r: express.Router, controls: Controls): void {
  r.put('/faults', (req: Request, res: Response) => {
    try {
      res.json(controls.set((req.body ?? {}) as Partial<Record<keyof FaultSettings, unknown>>));
    } catch (err) {
      bad(res, err);
    }
  });
  r.delete('/faults', (_req: Request, res: Response) => {
    controls.reset();
    res.json(controls.faults);
  });
  r.get('/writes', (_req: Request, res: Response) =>
    res.json({ counts: controls.writeCounts(), log: controls.writeLog }),
  );
  r.delete('/writes', (_req: Request, res: Response) => {
    controls.clearWrites();
    res.status(204).end();
  });
}

/** /advance (skip simulated time), an app's submission context, and /refuse (stop listening a while). */
function rmRoutes(r: express.Router, rm: EmulatedRm, time: SimTime, refuse: (ms: number) => void): void {
  r.post('/advance', (req: Request, res: Response) => {
    try {
      time.skip(Number((req.body as { seconds?: unknown })?.seconds));
      rm.sync();
      res.json({ simSeconds: rm.engine.now, nowEpochMs: time.nowEpochMs() });
    } catch (err) {
      bad(res, err);
    }
  });
  r.get('/apps/:appId/submission', (req: Request, res: Response) => {
    const context = rm.submissionOf(String(req.params.appId));
    if (!context) return res.status(404).json({ error: `no app ${String(req.params.appId)}` });
    res.json(context);
  });
  r.post('/refuse', (req: Request, res: Response) => {
    const ms = Number((req.body as { ms?: unknown })?.ms);
    if (!(ms > 0)) return bad(res, new RangeError('ms must be a positive number'));
    res.status(202).json({ refusingForMs: ms });
    res.on('finish', () => refuse(ms));
  });
}

function controlRouter(
  rm: EmulatedRm,
  controls: Controls,
  time: SimTime,
  refuse: (ms: number) => void,
): express.Router {
  const r = express.Router();
  r.use(express.json({ limit: '100kb' }));
  r.get('/state', (_req: Request, res: Response) => res.json(emulatorState(rm, controls, time)));
  faultRoutes(r, controls);
  rmRoutes(r, rm, time, refuse);
  return r;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const log = (options.logger ?? silentLogger()).child({ component: 'emulator' });
  const time = new SimTime(options.clock ?? systemClock, options.speed ?? 1);
  const seed = options.seed ?? 1;
  const rm = new EmulatedRm(options.config ?? defaultEmulatorConfig(), time, seed, log);
  const controls = new Controls(seed, options.faults ?? {}, options.delay);
  const host = options.host ?? '127.0.0.1';

  const rmOuter = express();
  const jhsOuter = express();
  const rmListener = new Listener(rmOuter, host);
  const jhsListener = new Listener(jhsOuter, host);
  const refuse = (ms: number) => {
    void rmListener.stop().then(() => setTimeout(() => void rmListener.resume(), ms));
  };
  const nowMs = () => time.nowEpochMs();
  const mode = rm.config.auth;
  rmOuter.use(CONTROL_PREFIX, controlRouter(rm, controls, time, refuse));
  rmOuter.use(buildWebHdfsApp(emulatedHdfsOf(rm, options.hdfsFiles ?? [])));
  rmOuter.use(authFilter({ mode, nowMs, restServletName: webServletName(), cookieWithoutAuth: true }));
  rmOuter.use(buildAmProxy(rm, controls, log, () => `http://${host}:${jhsListener.port}`));
  rmOuter.use(buildRmApp(rm, controls, log));
  jhsOuter.use(CONTROL_PREFIX, controlRouter(rm, controls, time, refuse));
  jhsOuter.use(authFilter({ mode, nowMs, restServletName: webServletName(), cookieWithoutAuth: false }));
  jhsOuter.use(buildJhsApp(rm, controls, log, options.history && new SyntheticHistory(options.history)));

  await rmListener.listen(options.port ?? 0);
  await jhsListener.listen(options.jhsPort ?? 0);
  const url = `http://${host}:${rmListener.port}`;
  const jhsUrl = `http://${host}:${jhsListener.port}`;
  log.info('emulator started', {
    rm: url,
    jhs: jhsUrl,
    speed: time.speed,
    seed,
    clusterTimestamp: rm.clusterTimestamp,
  });
  return {
    url,
    jhsUrl,
    port: rmListener.port,
    jhsPort: jhsListener.port,
    rm,
    controls,
    time,
    stopListening: () => rmListener.stop(),
    resumeListening: () => rmListener.resume(),
    async close() {
      await Promise.all([rmListener.stop(), jhsListener.stop()]);
    },
  };
}
