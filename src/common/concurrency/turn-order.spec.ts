import { describe, expect, it } from '@jest/globals';
import { type TurnClient, TurnOrder } from './turn-order.js';

interface Item {
  name: string;
}

/** A line whose pushes belong to whichever client `as` names at the moment. */
function line(): { order: TurnOrder<Item>; push: (client: TurnClient, ...names: string[]) => void; drain: () => string[] } {
  let current: TurnClient = '';
  const order = new TurnOrder<Item>(() => current);
  return {
    order,
    push: (client, ...names) => {
      current = client;
      for (const name of names) order.push({ name });
    },
    drain: () => {
      const served: string[] = [];
      for (let item = order.shift(); item; item = order.shift()) served.push(item.name);
      return served;
    },
  };
}

describe('TurnOrder', () => {
  it('serves one client first come, first served', () => {
    const { push, drain } = line();
    push('a', 'a1', 'a2', 'a3');
    expect(drain()).toEqual(['a1', 'a2', 'a3']);
  });

  it("puts another client's item right after the next of a burst, not behind all of it", () => {
    const { push, drain } = line();
    push(7, 'a1', 'a2', 'a3', 'a4');
    push('10.0.0.2', 'b1');
    expect(drain()).toEqual(['a1', 'b1', 'a2', 'a3', 'a4']);
  });

  it('takes the clients with items waiting in turns, one item each per turn, in arrival order within a client', () => {
    const { push, drain } = line();
    push('a', 'a1', 'a2', 'a3');
    push('b', 'b1', 'b2');
    push('c', 'c1');
    push('b', 'b3');
    expect(drain()).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'b3']);
  });

  it('gives a client with nothing waiting the turn being served: ahead of the next item of a client that already had that turn', () => {
    const { order, push, drain } = line();
    push('a', 'a1', 'a2', 'a3');
    expect(order.shift()?.name).toBe('a1');
    expect(order.shift()?.name).toBe('a2');
    // the turn of a2 is being served and b had none of it; a's fourth goes after its third
    push('b', 'b1');
    push('a', 'a4');
    expect(drain()).toEqual(['b1', 'a3', 'a4']);
  });

  it('starts a client whose items were all served at the turn being served, not where its old turns ended', () => {
    const { order, push, drain } = line();
    push('a', 'a1', 'a2', 'a3', 'a4');
    push('b', 'b1');
    for (const name of ['a1', 'b1', 'a2']) expect(order.shift()?.name).toBe(name);
    push('b', 'b2');
    expect(drain()).toEqual(['b2', 'a3', 'a4']);
  });

  it('keeps its order through what the pools do with their line: a timed-out item spliced out, an item put back at the head', () => {
    const { order, push, drain } = line();
    push('a', 'a1', 'a2', 'a3');
    push('b', 'b1', 'b2');
    // pg-pool: findIndex + splice; tarn: indexOf + splice
    const i = order.findIndex((item) => item.name === 'b1');
    const removed = order.splice(i, 1);
    expect(removed.map((item) => item.name)).toEqual(['b1']);
    expect(Array.isArray(removed) && !(removed instanceof TurnOrder)).toBe(true);
    const head = order.shift()!;
    expect(head.name).toBe('a1');
    order.unshift(head);
    expect(order.length).toBe(4);
    expect(order.slice().map((item) => item.name)).toEqual(['a1', 'a2', 'b2', 'a3']);
    expect(drain()).toEqual(['a1', 'a2', 'b2', 'a3']);
  });

  it('remembers only the clients with items waiting, whatever left the line and how', () => {
    const { order, push } = line();
    push('keep', 'k0');
    for (let i = 0; i < 200; i++) {
      push(`client${i}`, `c${i}`);
      order.shift();
    }
    expect(order.map((item) => item.name)).toEqual(['c199']);
    expect(order.clientsWaiting).toBe(1);
    push('x', 'x1', 'x2');
    push('y', 'y1');
    order.splice(
      order.findIndex((item) => item.name === 'y1'),
      1,
    );
    order.splice(order.indexOf(order.find((item) => item.name === 'x2')!), 1);
    expect(order.clientsWaiting).toBe(2);
    const x1 = order.splice(
      order.findIndex((item) => item.name === 'x1'),
      1,
    )[0]!;
    expect(order.clientsWaiting).toBe(1);
    order.unshift(x1);
    expect(order.clientsWaiting).toBe(2);
    expect(order.map((item) => item.name)).toEqual(['x1', 'c199']);
    order.splice(0);
    expect(order.length).toBe(0);
    expect(order.clientsWaiting).toBe(0);
  });

  it("counts each client's items, names the client with the most, and takes out a client's newest", () => {
    const { order, push } = line();
    push('a', 'a1', 'a2');
    push('b', 'b1', 'b2', 'b3');
    push('c', 'c1', 'c2', 'c3');
    expect([order.countOf('a'), order.countOf('b'), order.countOf('z')]).toEqual([2, 3, 0]);
    // of b and c with three each, b has waited longer
    expect(order.mostWaiting()).toEqual({ client: 'b', count: 3 });
    expect(order.takeNewest('b')?.name).toBe('b3');
    expect(order.mostWaiting()).toEqual({ client: 'c', count: 3 });
    expect(order.takeNewest('z')).toBeUndefined();
    expect(order.map((item) => item.name)).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'c2', 'c3']);
  });
});
