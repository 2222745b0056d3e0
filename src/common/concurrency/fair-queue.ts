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
 * client. A burst of one client therefore waits behind itself: another client's task waits at most
 * one task of each client ahead of it in the turn, not the whole burst, as it would in one
 * first-come queue.
 *
 * At most `maxWaiting` tasks wait. When they are that many, a newcomer takes the place of the
 * newest task of the client with the most waiting, which is refused (QueueFullError), unless the
 * newcomer's own client has the most: then the newcomer is refused. So the client that fills the
 * queue gets the refusals ("try later"), and a client with little waiting always gets a place.
 */
export class FairQueue {
  /** the clients with tasks waiting, in the order their turn comes (a Map keeps insertion order) */
  private readonly waiting = new Map<string, Waiter[]>();
  private running = 0;
  private queued = 0;

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
  ) {}

  get activeCount(): number {
    return this.running;
  }

  get pendingCount(): number {
    return this.queued;
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
    if (this.running < this.concurrency && this.queued === 0) {
      this.running += 1;
      return Promise.resolve();
    }
    if (this.queued >= this.maxWaiting && !this.refuseNewestOfLongest(client)) return Promise.reject(new QueueFullError());
    return new Promise<void>((start, refuse) => {
      const waiter = { start, refuse };
      const mine = this.waiting.get(client);
      if (mine) mine.push(waiter);
      else this.waiting.set(client, [waiter]);
      this.queued += 1;
    });
  }

  /** Frees a place for `client` by refusing the newest task of a client with more waiting; false when none has more. */
  private refuseNewestOfLongest(client: string): boolean {
    const own = this.waiting.get(client)?.length ?? 0;
    let longest: [string, Waiter[]] | undefined;
    for (const entry of this.waiting) if (!longest || entry[1].length > longest[1].length) longest = entry;
    if (!longest || longest[1].length <= own + 1) return false;
    const [name, tasks] = longest;
    tasks.pop()!.refuse(new QueueFullError());
    if (!tasks.length) this.waiting.delete(name);
    this.queued -= 1;
    return true;
  }

  /** Hands the freed slot to the first task of the client whose turn it is; that client goes to the back. */
  private release(): void {
    const turn = this.waiting.entries().next();
    if (turn.done) {
      this.running -= 1;
      return;
    }
    const [client, tasks] = turn.value;
    const next = tasks.shift()!;
    this.waiting.delete(client);
    if (tasks.length) this.waiting.set(client, tasks);
    this.queued -= 1;
    next.start();
  }
}
