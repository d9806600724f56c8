import type { Tree } from './format';
import { appIdToJobId } from './ids';
import type { Endpoint } from './limits';
import {
  jobsList,
  mapJob,
  mapJobCounters,
  mapTask,
  mapTaskAttempt,
  mapTaskAttempts,
  mapTaskCounters,
  tasksList,
} from './mapping';
import type {
  JobCounters,
  JobSummary,
  TaskAttemptReport,
  TaskCounters,
  TaskReport,
  TaskType,
  TimeWindowQuery,
} from './model';
import { HttpTransport, withUrl, type QueryValue, type TransportOptions } from './transport';

export interface JobQuery extends TimeWindowQuery {
  user?: string;
  state?: string;
  queue?: string;
  limit?: number;
}

const seg = encodeURIComponent;

/**
 * MapReduce job, task and attempt reports, from the JobHistory server once a job has finished
 * (`/ws/v1/history/mapreduce`) or from the running AM through the RM's web proxy
 * (`/proxy/{appid}/ws/v1/mapreduce`). Both serve the same shapes (INDEX.md section 12).
 */
export class JobHistoryClient {
  private constructor(
    readonly transport: HttpTransport,
    private readonly prefix: string,
  ) {}

  /** The JobHistory server at the given addresses (no HA state to detect). */
  static forHistoryServer(options: TransportOptions | HttpTransport): JobHistoryClient {
    const t =
      options instanceof HttpTransport
        ? options
        : new HttpTransport({
            component: 'jobhistory-client',
            service: 'JobHistory server',
            haDetection: false,
            ...options,
          });
    return new JobHistoryClient(t, '/ws/v1/history/mapreduce');
  }

  /** The AM of a running app, through the RM transport's web proxy. */
  static forRunningApp(rmTransport: HttpTransport, appId: string): JobHistoryClient {
    return new JobHistoryClient(rmTransport, `/proxy/${seg(appId)}/ws/v1/mapreduce`);
  }

  /** A GET, read as it arrives and held to `endpoint`'s limits, then mapped. */
  private async read<T>(
    endpoint: Endpoint,
    path: string,
    map: (t: Tree) => T,
    query?: Record<string, QueryValue>,
  ): Promise<T> {
    const { tree, res } = await this.transport.sendForTree({
      method: 'GET',
      path: `${this.prefix}${path}`,
      query,
      endpoint,
    });
    try {
      return map(tree);
    } catch (err) {
      throw withUrl(err, res.url);
    }
  }

  /** The jobs: a list, read item by item as it arrives (JSON past ITEMWISE_MIN_CHARS, XML always). */
  jobs(q: JobQuery = {}): Promise<JobSummary[]> {
    return this.transport.readList(
      { path: `${this.prefix}/jobs`, query: { ...q }, endpoint: 'jobs' },
      jobsList,
    );
  }

  job(jobId: string): Promise<JobSummary> {
    return this.read('jobs', `/jobs/${seg(jobId)}`, mapJob);
  }

  /** `type` goes as `m` or `r`: the server rejects anything else with 400. */
  tasks(jobId: string, type?: TaskType): Promise<TaskReport[]> {
    const t = type === undefined ? undefined : type === 'MAP' ? 'm' : 'r';
    return this.transport.readList(
      { path: `${this.prefix}/jobs/${seg(jobId)}/tasks`, query: { type: t }, endpoint: 'tasks' },
      tasksList,
    );
  }

  /** Tasks of the MapReduce job behind a YARN application id (application_X_N → job_X_N). */
  tasksOfApp(appId: string, type?: TaskType): Promise<TaskReport[]> {
    return this.tasks(appIdToJobId(appId), type);
  }

  /** The job's counters: totals and the maps' and reduces' shares (HDFS_BYTES_READ, ...). */
  jobCounters(jobId: string): Promise<JobCounters> {
    return this.read('jobs', `/jobs/${seg(jobId)}/counters`, mapJobCounters);
  }

  /** One task's counters (a map's HDFS_BYTES_READ, a reduce's REDUCE_SHUFFLE_BYTES). */
  taskCounters(jobId: string, taskId: string): Promise<TaskCounters> {
    return this.read('tasks', `/jobs/${seg(jobId)}/tasks/${seg(taskId)}/counters`, mapTaskCounters);
  }

  task(jobId: string, taskId: string): Promise<TaskReport> {
    return this.read('tasks', `/jobs/${seg(jobId)}/tasks/${seg(taskId)}`, mapTask);
  }

  taskAttempts(jobId: string, taskId: string): Promise<TaskAttemptReport[]> {
    return this.read('tasks', `/jobs/${seg(jobId)}/tasks/${seg(taskId)}/attempts`, mapTaskAttempts);
  }

  taskAttempt(jobId: string, taskId: string, attemptId: string): Promise<TaskAttemptReport> {
    return this.read(
      'tasks',
      `/jobs/${seg(jobId)}/tasks/${seg(taskId)}/attempts/${seg(attemptId)}`,
      mapTaskAttempt,
    );
  }
}
