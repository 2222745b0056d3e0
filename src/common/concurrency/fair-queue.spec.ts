import { describe, expect, it } from '@jest/globals';
import { FairQueue, QueueFullError } from './fair-queue.js';

/** A task that runs until released, recording when it started. */
function gated(log: string[], name: string): { task: () => Promise<string>; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {
    task: async () => {
      log.push(name);
      await gate;
      return name;
    },
    release,
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('FairQueue', () => {
  it('runs at most `concurrency` tasks at a time and answers each caller', async () => {
    const queue = new FairQueue(2, 10);
    const log: string[] = [];
    const tasks = ['a', 'b', 'c', 'd'].map((n) => gated(log, n));
    const results = tasks.map((t, i) => queue.run(`client-${i}`, t.task));
    await tick();
    expect(log).toEqual(['a', 'b']);
    expect({ active: queue.activeCount, pending: queue.pendingCount }).toEqual({ active: 2, pending: 2 });
    for (const t of tasks) t.release();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
    expect({ active: queue.activeCount, pending: queue.pendingCount }).toEqual({ active: 0, pending: 0 });
  });

  it('serves waiting clients in turns: a burst of one client does not delay another by more than one of its tasks', async () => {
    const queue = new FairQueue(1, 20);
    const log: string[] = [];
    const burst = Array.from({ length: 6 }, (_, i) => gated(log, `burst-${i}`));
    const runs = burst.map((t) => queue.run('attacker', t.task));
    const victim = gated(log, 'victim');
    runs.push(queue.run('victim', victim.task));
    for (const t of [...burst, victim]) t.release();
    await Promise.all(runs);
    // burst-0 was running; the victim's turn comes right after the attacker's next one
    expect(log).toEqual(['burst-0', 'burst-1', 'victim', 'burst-2', 'burst-3', 'burst-4', 'burst-5']);
  });

  it('keeps arrival order within one client', async () => {
    const queue = new FairQueue(1, 20);
    const log: string[] = [];
    const tasks = ['1', '2', '3'].map((n) => gated(log, n));
    const runs = tasks.map((t) => queue.run('same', t.task));
    for (const t of tasks) t.release();
    await Promise.all(runs);
    expect(log).toEqual(['1', '2', '3']);
  });

  it('when full, refuses the newest task of the client with the most waiting to make room for another client, and refuses that client itself', async () => {
    const queue = new FairQueue(1, 3);
    const log: string[] = [];
    const first = gated(log, 'first');
    const attacker = [
      queue.run('a', first.task),
      queue.run('a', async () => 'a1'),
      queue.run('a', async () => 'a2'),
      queue.run('a', async () => 'a3'),
    ];
    // full: three waiting, all of client a; a's own newcomer is refused
    await expect(queue.run('a', async () => 'a4')).rejects.toBeInstanceOf(QueueFullError);
    // another client takes the place of a's newest
    const victim = queue.run('b', async () => 'b1');
    await expect(attacker[3]).rejects.toBeInstanceOf(QueueFullError);
    // a client with as many waiting as the longest is refused rather than swapped (a1,a2 against b1,c-none)
    const other = queue.run('c', async () => 'c1');
    await expect(attacker[2]).rejects.toBeInstanceOf(QueueFullError);
    await expect(queue.run('c', async () => 'c2')).rejects.toBeInstanceOf(QueueFullError);
    first.release();
    expect(await Promise.all([attacker[0], attacker[1], victim, other])).toEqual(['first', 'a1', 'b1', 'c1']);
    expect({ active: queue.activeCount, pending: queue.pendingCount }).toEqual({ active: 0, pending: 0 });
  });
});
