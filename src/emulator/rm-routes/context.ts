import type express from 'express';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../../log';
import { GPU_RESOURCE } from '../../yarn/model';
import type { EmulatorConfig } from '../config';
import type { Controls } from '../controls';
import { handle } from '../http';
import type { Content } from '../render';
import type { EmulatedRm } from '../rm-state';

/** What every group of the RM's routes works with: the express app to add to and the RM behind it. */

export const C = '/ws/v1/cluster';

export type Res = { memoryMB: number; vcores: number; gpus: number };

export interface RmContext {
  readonly app: express.Express;
  readonly rm: EmulatedRm;
  readonly controls: Controls;
  readonly log: Logger;
  readonly cfg: EmulatorConfig;
  /** A handler that answers a thrown rejection as the RM does. */
  h(fn: (req: Request, res: Response) => void): RequestHandler;
  /** `n` containers of the configured size, with `gpus` GPUs. */
  slot(n: number, gpus?: number): Res;
}

export function rmContext(app: express.Express, rm: EmulatedRm, controls: Controls, log: Logger): RmContext {
  const cfg = rm.config;
  return {
    app,
    rm,
    controls,
    log,
    cfg,
    h: (fn) => handle(log, fn),
    slot: (n, gpus = 0) => ({ memoryMB: n * cfg.containerMemoryMB, vcores: n * cfg.containerVcores, gpus }),
  };
}

/** A resource as the RM writes it, with resourceInformations carrying yarn.io/gpu. */
export function resource(r: Res): Content {
  const info = (name: string, units: string, value: number) => ({
    attributes: {},
    // The RM writes Long.MAX_VALUE, which a JS number cannot hold exactly.
    maximumAllocation: Number.MAX_SAFE_INTEGER,
    minimumAllocation: 0,
    name,
    resourceType: 'COUNTABLE',
    units,
    value,
  });
  return {
    memory: r.memoryMB,
    vCores: r.vcores,
    resourceInformations: {
      resourceInformation: [
        info('memory-mb', 'Mi', r.memoryMB),
        info('vcores', '', r.vcores),
        info(GPU_RESOURCE, '', r.gpus),
      ],
    },
  };
}

export const pct = (part: number, whole: number) =>
  whole > 0 ? Math.round((10000 * part) / whole) / 100 : 0;

/** The RM's own address as the request reached it. */
export const base = (req: Request) => `http://${req.get('host') ?? 'localhost'}`;

/** A ResourceUsageInfo of one partition, as the queue and app reports write it. */
export function partitionUsage(
  c: RmContext,
  partition: string,
  used: Res,
  pending: Res,
  amUsed: Res,
): Content {
  return {
    partitionName: partition,
    used: resource(used),
    reserved: resource(c.slot(0)),
    pending: resource(pending),
    amUsed: resource(amUsed),
    amLimit: resource(c.slot(0)),
    userAmLimit: resource(c.slot(0)),
  };
}
