// Child processes of the bench: the service, the baseline and the load generator.
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

const children = new Set();

/** Kills every child still running (used on a failed run and on Ctrl-C). */
export function killAll() {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts a long-running Node child with its output appended to `logFile`. */
export function startNode(script, { args = [], nodeArgs = [], env, cwd, logFile }) {
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(logFile, { flags: 'a' });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** SIGTERM, then SIGKILL after `graceMs`. Resolves when the child is gone. */
export async function stop(child, graceMs = 15_000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Polls `url` until it answers 200; returns the ms since `since` (a performance.now() value). */
export async function waitFor(url, { child, since = performance.now(), timeoutMs = 120_000, intervalMs = 20 } = {}) {
  const deadline = since + timeoutMs;
  for (;;) {
    if (child && (child.exitCode !== null || child.signalCode !== null))
      throw new Error(`${url}: the process exited (code ${child.exitCode ?? child.signalCode}) before it was ready`);
    try {
      const res = await globalThis.fetch(url, { signal: globalThis.AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - since;
    } catch {
      /* not listening yet */
    }
    if (performance.now() > deadline) throw new Error(`${url} not ready after ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}

/**
 * The resident set split as Linux counts it (/proc/<pid>/status), in MB: anonymous memory (V8's
 * heap, malloc, stacks) and pages of mapped files (mostly the Node executable's own code and data,
 * shared and clean: the kernel can drop them and read them again).
 */
export function rssPartsMb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number(status.match(new RegExp(`^${key}:\\s+(\\d+)`, 'm'))?.[1] ?? NaN);
    return { anon: kb('RssAnon') / 1024, file: kb('RssFile') / 1024 };
  } catch {
    return { anon: NaN, file: NaN };
  }
}

/** Resident set size of a process in MB (Linux /proc). */
export function rssMb(pid) {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    return line ? Number(line.split(/\s+/)[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** CPU seconds (user + system) a process has used so far (Linux /proc; clock ticks of 1/100 s). */
export function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/**
 * CPU seconds used so far by the whole machine (/proc/stat: everything but idle and iowait) and by
 * this process with its reaped descendants (/proc/self/stat utime+stime+cutime+cstime). Once every
 * child has exited, the difference of two readings is the CPU other users' processes took meanwhile.
 */
export function cpuAccount() {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = ticks;
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    return { machine: (user + nice + system + irq + softirq + steal) / 100, own: (f[11] + f[12] + f[13] + f[14]) / 100 };
  } catch {
    return { machine: NaN, own: NaN };
  }
}

/** Runs bench/load.mjs (autocannon) in its own process and returns its JSON result. */
export function runLoad(loadScript, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [loadScript, JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('exit', (code) => {
      children.delete(child);
      if (code !== 0) return reject(new Error(`load run failed (exit ${code}): ${err.trim()}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()));
      } catch (e) {
        reject(new Error(`load run printed no result: ${out} ${err}`, { cause: e }));
      }
    });
  });
}
