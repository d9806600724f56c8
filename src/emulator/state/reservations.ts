import { remoteRejection } from '../../errors/emulated-rm-rejection';
import type { SimTime } from '../clock';
import type { EmulatorConfig, QueueConfig } from '../config';
import type { Hold } from '../ports';
import { queueLeaf } from '../../yarn/ids';
import { pad4 } from './checks';

/**
 * The ReservationSystem's plan: reservations handed out, submitted, updated and deleted, each
 * planned within its queue's guaranteed share of the default partition.
 */

export interface ReservationRequestSpec {
  memoryMB: number;
  vcores: number;
  numContainers: number;
  minConcurrency: number;
  durationMs: number;
}

export interface ReservationSpec {
  arrival: number;
  deadline: number;
  name: string;
  priority: number | undefined;
  recurrenceExpression: string | undefined;
  interpreter: number;
  requests: ReservationRequestSpec[];
}

export interface Allocation {
  startTime: number;
  endTime: number;
  containers: number;
  memoryMB: number;
  vcores: number;
}

export interface ReservationRecord {
  id: string;
  queue: string;
  user: string;
  acceptanceTime: number;
  definition: ReservationSpec;
  allocations: Allocation[];
}

/** What the plan needs of the RM around it. */
export interface ReservationHost {
  readonly clusterTimestamp: number;
  readonly config: EmulatorConfig;
  readonly time: SimTime;
  /** A queue by leaf name or full path. */
  queue(name: string): QueueConfig | undefined;
  partitionContainers(partition: string): number;
}

export class ReservationBook {
  private readonly reservations = new Map<string, ReservationRecord>();
  private readonly issued = new Set<string>();
  private seq = 0;

  constructor(private readonly host: ReservationHost) {}

  newReservation(): string {
    const id = `reservation_${this.host.clusterTimestamp}_${pad4(++this.seq)}`;
    this.issued.add(id);
    return id;
  }

  /** Whether a reservation of this id is planned (an app may be submitted into it). */
  has(id: string): boolean {
    return this.reservations.has(id);
  }

  /** Containers one request needs, counting each container in slots of the configured size. */
  private slotsPerContainer(r: ReservationRequestSpec): number {
    return Math.max(
      1,
      Math.ceil(r.memoryMB / this.host.config.containerMemoryMB),
      Math.ceil(r.vcores / this.host.config.containerVcores),
    );
  }

  private checkDefinition(d: ReservationSpec): void {
    const bad = (m: string) => remoteRejection(400, 'BadRequestException', `java.lang.Exception: ${m}`);
    if (!(d.deadline > d.arrival))
      throw bad(
        `The specified deadline: ${d.deadline} is the same or prior to the specified arrival: ${d.arrival}`,
      );
    if (d.requests.length === 0) throw bad('No resources have been specified to reserve');
    for (const r of d.requests) {
      if (!(r.durationMs > 0) || !(r.numContainers > 0))
        throw bad('each reservation request needs a positive duration and num-containers');
      if (r.durationMs > d.deadline - d.arrival) {
        throw bad(
          `The time difference (${d.deadline - d.arrival}) between arrival (${d.arrival}) and deadline (${d.deadline}) must be greater or equal to the minimum resource duration (${r.durationMs})`,
        );
      }
    }
  }

  /**
   * Plan a reservation: each request gets the earliest start in [arrival, deadline − duration]
   * where the queue's reserved containers, with it, stay within the queue's guaranteed share
   * of the default partition at every instant (ORDER and ORDER_NO_GAP: after the previous
   * request). The plan is refused (400) when a request fits nowhere.
   */
  private plan(queue: QueueConfig, d: ReservationSpec, exclude: string | undefined): Allocation[] {
    const capacity = Math.floor((this.host.partitionContainers('') * queue.capacity) / 100 + 1e-9);
    const others = [...this.reservations.values()]
      .filter((r) => r.queue === queue.name && r.id !== exclude)
      .flatMap((r) => r.allocations);
    const placed: Allocation[] = [];
    let earliest = d.arrival;
    for (const r of d.requests) {
      const need = this.slotsPerContainer(r) * r.numContainers;
      const all = [...others, ...placed];
      const usedAt = (t: number) =>
        all.filter((a) => a.startTime <= t && t < a.endTime).reduce((s, a) => s + a.containers, 0);
      const fits = (start: number) => {
        const end = start + r.durationMs;
        const points = [start, ...all.map((a) => a.startTime).filter((t) => t > start && t < end)];
        return points.every((t) => usedAt(t) + need <= capacity);
      };
      const candidates = [earliest, ...all.map((a) => a.endTime).filter((t) => t > earliest)].sort(
        (a, b) => a - b,
      );
      const start = candidates.find((t) => t + r.durationMs <= d.deadline && fits(t));
      if (start === undefined) {
        throw remoteRejection(
          400,
          'BadRequestException',
          `java.lang.Exception: org.apache.hadoop.yarn.server.resourcemanager.reservation.exceptions.PlanningException: The planning algorithm could not find a valid allocation for your request (${need} containers for ${r.durationMs} ms in queue ${queue.name}, capacity ${capacity})`,
        );
      }
      placed.push({
        startTime: start,
        endTime: start + r.durationMs,
        containers: need,
        memoryMB: r.memoryMB * r.numContainers,
        vcores: r.vcores * r.numContainers,
      });
      if (d.interpreter >= 2) earliest = start + r.durationMs;
    }
    return placed.sort((a, b) => a.startTime - b.startTime);
  }

  private reservableQueue(name: string | undefined): QueueConfig {
    const q = name ? this.host.queue(name) : undefined;
    if (!q)
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: The specified queue: ${name ?? ''} is not managed by reservation system. Please try again with a valid reservable queue.`,
      );
    if (!q.reservable) {
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: The specified queue: ${q.name} is not managed by reservation system. Please try again with a valid reservable queue.`,
      );
    }
    return q;
  }

  submit(
    id: string | undefined,
    queueName: string | undefined,
    d: ReservationSpec,
    user: string | undefined,
  ): void {
    if (!id || !this.issued.has(id)) {
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: Reservation id ${id ?? ''} was not handed out by new-reservation on this RM`,
      );
    }
    const queue = this.reservableQueue(queueName);
    this.checkDefinition(d);
    const existing = this.reservations.get(id);
    if (existing) {
      // ReservationSystem.md: the same id with the same definition is accepted once; another definition is an error.
      if (JSON.stringify(existing.definition) === JSON.stringify(d) && existing.queue === queue.name) return;
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: Reservation ${id} already exists with a different definition`,
      );
    }
    const allocations = this.plan(queue, d, undefined);
    this.reservations.set(id, {
      id,
      queue: queue.name,
      user: user && user !== '' ? user : this.host.config.defaultUser,
      acceptanceTime: this.host.time.nowEpochMs(),
      definition: d,
      allocations,
    });
  }

  update(id: string | undefined, d: ReservationSpec): void {
    const rec = id ? this.reservations.get(id) : undefined;
    if (!rec)
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: Reservation ${id ?? ''} not found`,
      );
    this.checkDefinition(d);
    rec.allocations = this.plan(this.host.queue(rec.queue)!, d, rec.id);
    rec.definition = d;
  }

  delete(id: string | undefined): void {
    if (!id || !this.reservations.delete(id)) {
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: Reservation ${id ?? ''} not found`,
      );
    }
  }

  list(q: {
    queue: string;
    reservationId?: string;
    startTime: number;
    endTime: number;
  }): ReservationRecord[] {
    const leaf = queueLeaf(q.queue);
    return [...this.reservations.values()].filter((r) => {
      if (r.queue !== leaf) return false;
      if (q.reservationId !== undefined) return r.id === q.reservationId;
      return r.definition.arrival <= q.endTime && r.definition.deadline >= q.startTime;
    });
  }

  /**
   * Reservations holding containers of a partition at simulated second `now`: the containers
   * of their allocations whose window [startTime, endTime) contains it. Reservations are
   * planned in the default partition only (see plan).
   */
  holds(partition: string, now: number): ReadonlyMap<string, Hold> {
    const out = new Map<string, Hold>();
    if (partition !== '' || this.reservations.size === 0) return out;
    const t = this.host.time.toEpochMs(now);
    for (const r of this.reservations.values()) {
      let containers = 0;
      for (const a of r.allocations) if (a.startTime <= t && t < a.endTime) containers += a.containers;
      if (containers > 0) out.set(r.id, { containers, queue: r.queue });
    }
    return out;
  }
}
