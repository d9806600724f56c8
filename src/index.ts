/**
 * The package's programmatic surface: the pure core, the RM client, and the services.
 * The command line (`yarn-sched-sidecar`) is built on the same pieces.
 */
export * as admission from './core/admission';
export { validateJob, type DeadlineJob } from './core/job';
export { learnFromFinishedJob, type Estimates } from './core/estimates';
export { defaultRegistry, buildRegistry, type PolicyRegistry } from './core/registry';
export { parseEnergyProfile, type EnergyProfile } from './core/energy/profile';
export type { ResourceManagerApi } from './yarn/api';
export { HttpResourceManagerClient } from './yarn/client';
export { JobHistoryClient } from './yarn/jobhistory';
export { loadConfigFile, buildConfig } from './config/load';
export type { SidecarConfig } from './config/schema';
export { startSidecar } from './service/start';
export { startEmulator } from './emulator/server';
export { SidecarError } from './errors/base';
export { ValidationError } from './errors/validation';
export { errorCatalog } from './errors/catalog';
