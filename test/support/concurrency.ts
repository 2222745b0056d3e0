/** Runs `victim` over and over while `attack` is in flight; answers both sides' results. */
export async function whileRunning<A, V>(attack: Promise<A>, victim: () => Promise<V>): Promise<{ attack: A; victim: V[] }> {
  let done = false;
  const finished = attack.finally(() => {
    done = true;
  });
  const seen: V[] = [];
  do {
    seen.push(await victim());
    // an in-process answer can come back on microtasks alone: let the attack's I/O run too
    await new Promise((resolve) => setImmediate(resolve));
  } while (!done);
  return { attack: await finished, victim: seen };
}
