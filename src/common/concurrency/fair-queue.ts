import { type TurnClient, TurnOrder } from './turn-order.js';

export class QueueFullError extends Error {
  constructor() {
    super('the queue is full');
    this.name = 'QueueFullError';
  }
}

interface Waiter {
  start: () => void;
  refuse: (err: QueueFullError) => void;
}

/**
 * Runs tasks at most `concurrency` at a time; those that wait are served in turns among the clients
 * (keys) that have some waiting, one task per client per turn, and in arrival order within one
 * client (a TurnOrder). A burst of one client therefore waits behind itself: another client's task
 * waits at most one task of each client ahead of it in the turn, not the whole burst, as it would
 * in one first-come queue.
 *
 * At most `maxWaiting` tasks wait. When they are that many, a newcomer takes the place of the
 * newest task of the client with the most waiting, which is refused (QueueFullError), unless the
 * newcomer's own client has the most: then the newcomer is refused. So the client that fills the
 * queue gets the refusals ("try later"), and a client with little waiting always gets a place.
 */
export class FairQueue {
  /** the client of the task being queued, which the line reads as it places it */
  private queuing: TurnClient = '';
  private readonly waiting = new TurnOrder<Waiter>(() => this.queuing);
  private running = 0;

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
  ) {}

  get activeCount(): number {
    return this.running;
  }

  get pendingCount(): number {
    return this.waiting.length;
  }

  async run<T>(client: string, task: () => Promise<T>): Promise<T> {
    await this.acquire(client);
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private acquire(client: string): Promise<void> {
    if (this.running < this.concurrency && this.waiting.length === 0) {
      this.running += 1;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.maxWaiting && !this.refuseNewestOfLongest(client)) return Promise.reject(new QueueFullError());
    return new Promise<void>((start, refuse) => {
      this.queuing = client;
      this.waiting.push({ start, refuse });
    });
  }

  /** Frees a place for `client` by refusing the newest task of a client with more waiting; false when none has more. */
  private refuseNewestOfLongest(client: string): boolean {
    const longest = this.waiting.mostWaiting();
    if (!longest || longest.count <= this.waiting.countOf(client) + 1) return false;
    this.waiting.takeNewest(longest.client)!.refuse(new QueueFullError());
    return true;
  }

  /** Hands the freed slot to the first task in the line: the next client's turn. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next.start();
    else this.running -= 1;
  }
}
