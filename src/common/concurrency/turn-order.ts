/** Who a waiting item belongs to: a user id, an address, or '' for work of no request. */
export type TurnClient = string | number;

const TURN = Symbol('turn');
const CLIENT = Symbol('client');

type Placed = { [TURN]?: number; [CLIENT]?: TurnClient };

/** A client with items in the line: how many, and the turn of its last one. */
interface Waiting {
  count: number;
  lastTurn: number;
}

/**
 * A waiting line that takes clients in turns, for a library's own queue of waiters: an Array whose
 * `push` places each item in its client's next turn instead of at the end, so that the library's
 * own `shift` serves the clients in turns (one item per client per turn, in arrival order within
 * one client). A burst of one client therefore waits behind itself, and another client's item
 * waits at most one item of each client ahead of it, not the whole burst, as it would in a
 * first-come line.
 *
 * The client of a pushed item is whatever `clientOf` answers at the moment of the push (the
 * request's, read from the request context). What else the pools do with their line keeps the
 * order and the count of each client's items: `unshift` to put an item back at the head,
 * `findIndex`/`indexOf` + `splice` to take out one that timed out, and `slice`, `map`, `length`.
 *
 * Turns are numbered. A client with items waiting gets the turn after its last one; a client with
 * none gets the turn being served (that of the item shifted last), at its end. The line stays
 * sorted by turn, and a client alone is served first come, first served, each item appended at the
 * end as in a plain Array. Only clients with items waiting are remembered.
 */
export class TurnOrder<T extends object> extends Array<T> {
  /** slice, map, splice… answer plain arrays */
  static override get [Symbol.species](): ArrayConstructor {
    return Array;
  }

  /** the turn being served: that of the item shifted last */
  #current = 0;
  readonly #waiting = new Map<TurnClient, Waiting>();
  readonly #clientOf: () => TurnClient;

  constructor(clientOf: () => TurnClient) {
    super();
    this.#clientOf = clientOf;
  }

  override push(...items: T[]): number {
    for (const item of items) this.#place(item, this.#clientOf());
    return this.length;
  }

  override shift(): T | undefined {
    const item = super.shift();
    if (item === undefined) return undefined;
    this.#current = (item as Placed)[TURN] ?? this.#current;
    this.#leave(item);
    return item;
  }

  override unshift(...items: T[]): number {
    for (const item of items) this.#rejoin(item);
    return super.unshift(...items);
  }

  override splice(start: number, deleteCount?: number, ...items: T[]): T[] {
    // splice(start) removes to the end; splice(start, undefined) removes nothing
    const removed = arguments.length < 2 ? super.splice(start) : super.splice(start, deleteCount as number, ...items);
    for (const item of removed) this.#leave(item);
    for (const item of items) this.#rejoin(item);
    return removed;
  }

  #place(item: T, client: TurnClient): void {
    const waiting = this.#waiting.get(client);
    // never before the turn being served (an item put back at the head keeps an older turn)
    const turn = waiting ? Math.max(waiting.lastTurn + 1, this.#current) : this.#current;
    if (waiting) {
      waiting.count += 1;
      waiting.lastTurn = turn;
    } else this.#waiting.set(client, { count: 1, lastTurn: turn });
    (item as Placed)[TURN] = turn;
    (item as Placed)[CLIENT] = client;
    const n = this.length;
    if (n === 0 || turnOf(this[n - 1] as T) <= turn) {
      super.push(item);
      return;
    }
    // before the first item of a later turn, after every item of its own
    let low = 0;
    let high = n - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (turnOf(this[mid] as T) <= turn) low = mid + 1;
      else high = mid;
    }
    super.splice(low, 0, item);
  }

  /** An item that left the line (served, timed out): its client has one fewer waiting. */
  #leave(item: T): void {
    const client = (item as Placed)[CLIENT];
    if (client === undefined) return;
    const waiting = this.#waiting.get(client);
    if (waiting && --waiting.count === 0) this.#waiting.delete(client);
  }

  /** An item put back into the line where the caller puts it, with the turn it had. */
  #rejoin(item: T): void {
    const client = (item as Placed)[CLIENT];
    if (client === undefined) return;
    const turn = turnOf(item);
    const waiting = this.#waiting.get(client);
    if (!waiting) this.#waiting.set(client, { count: 1, lastTurn: turn });
    else {
      waiting.count += 1;
      waiting.lastTurn = Math.max(waiting.lastTurn, turn);
    }
  }

  /** How many clients have items waiting. */
  get clientsWaiting(): number {
    return this.#waiting.size;
  }

  /** How many items `client` has waiting. */
  countOf(client: TurnClient): number {
    return this.#waiting.get(client)?.count ?? 0;
  }

  /** The client with the most items waiting (of several, the one waiting longest), or undefined when none waits. */
  mostWaiting(): { client: TurnClient; count: number } | undefined {
    let most: { client: TurnClient; count: number } | undefined;
    for (const [client, { count }] of this.#waiting) if (!most || count > most.count) most = { client, count };
    return most;
  }

  /** Takes the newest item of `client` out of the line. */
  takeNewest(client: TurnClient): T | undefined {
    for (let i = this.length - 1; i >= 0; i--) if ((this[i] as Placed)[CLIENT] === client) return this.splice(i, 1)[0];
    return undefined;
  }
}

function turnOf(item: object): number {
  return (item as Placed)[TURN] ?? 0;
}
