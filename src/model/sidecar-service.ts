import type { JobQuery } from '../store/types';
import type { ClientReport } from './client-report';
import type { Submission } from './deadline-submission';

/** What the HTTP layer needs from the running sidecar. */
export interface SidecarService {
  submit(
    submission: Submission,
    context: { submitter: string; idempotencyKey?: string; requestHash: string },
  ): Promise<{
    status: number;
    body: unknown;
    /** JSON.stringify(body), when the service has it: sent as it is (see sendJson). */
    json?: string;
  }>;
  listJobs(query: JobQuery): { jobs: unknown[]; total: number };
  getJob(id: string): unknown | undefined;
  /**
   * The ledger's archive (ledger.retention): closed jobs moved out of the live list, newest
   * first (GET /api/v1/jobs?archived=true). A service without one lists none.
   */
  listArchivedJobs?(query: JobQuery): Promise<{ jobs: unknown[]; total: number }>;
  /** An archived job with its decisions and actions, for GET /api/v1/jobs/{id} past the live ones. */
  getArchivedJob?(id: string): Promise<unknown>;
  cluster(): unknown;
  /** The learned worst-case task costs beside the observed distribution (EstimatesView). */
  taskCosts(): unknown;
  /**
   * Forgets one workload class's learned estimates (a service that learns nothing has none).
   * Writes answer once durable (Ledger.flush): a promise for a service on a shared ledger.
   */
  resetEstimates?(workloadClass: string, by: string): unknown;
  /** Cancels a waiting ticket (DELETE /api/v1/jobs/{id}); answers the job as it is now, once durable. */
  cancelTicket?(id: string, by: string): unknown;
  /**
   * What a ticket's client reports of itself (PUT /api/v1/jobs/{id}/client): running, or exited
   * with its code; answers the job as it is now, once durable.
   */
  reportClient?(id: string, report: ClientReport, by: string): unknown;
  /** Samples over time for the dashboard's charts (see StatsSample in views.ts). */
  stats(): { samples: unknown[] };
  readiness(): { ready: boolean; reason?: string; [key: string]: unknown };
}
