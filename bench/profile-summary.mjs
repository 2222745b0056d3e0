// Summarizes a V8 .cpuprofile (from `npm run bench -- --profile`): self time by package and by
// function, inclusive time by package, and the call stacks leading to one function. Usage:
//   node bench/profile-summary.mjs <file.cpuprofile> [--top 25] [--skip-seconds 10] [--callers writeUtf8String]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: opt, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' }, 'skip-seconds': { type: 'string', default: '0' }, callers: { type: 'string' } },
});
const top = Number(opt.top);
const profile = JSON.parse(readFileSync(positionals[0], 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// self time per node from the samples and their time deltas; samples of the first --skip-seconds
// (the boot) are left out
const self = new Map();
const skipUs = Number(opt['skip-seconds']) * 1e6;
let clock = 0;
profile.samples.forEach((id, i) => {
  clock += profile.timeDeltas[i] ?? 0;
  if (clock >= skipUs) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const total = [...self.values()].reduce((a, b) => a + b, 0);
const idle = [...self.entries()]
  .filter(([id]) => ['(idle)', '(program)'].includes(nodes.get(id).callFrame.functionName))
  .reduce((a, [, t]) => a + t, 0);
const busy = total - idle;

const where = (cf) => {
  const url = cf.url || '';
  const m = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (m) return m[1];
  if (url.includes('/dist/src/')) return `service:${url.split('/dist/src/')[1].split('/')[0]}`;
  if (url.startsWith('node:')) return url;
  return url ? url.split('/').slice(-2).join('/') : cf.functionName || '(native)';
};

const byPackage = new Map();
const byFunction = new Map();
for (const [id, t] of self) {
  const cf = nodes.get(id).callFrame;
  if (['(idle)', '(program)'].includes(cf.functionName)) continue;
  const pkg = where(cf);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + t);
  const fn = `${cf.functionName || '(anonymous)'} ${pkg}:${cf.lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + t);
}
const pct = (t) => `${((100 * t) / busy).toFixed(1).padStart(5)} %`;
console.log(`busy ${(busy / 1e6).toFixed(2)} s of ${(total / 1e6).toFixed(2)} s sampled\n\nself time by package:`);
for (const [k, t] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(t)}  ${k}`);
console.log('\nself time by function:');
for (const [k, t] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(t)}  ${k}`);

// inclusive time by package (a sample counts once per package on its stack)
const inclusive = new Map();
for (const [id, t] of self) {
  if (['(idle)', '(program)'].includes(nodes.get(id).callFrame.functionName)) continue;
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) seen.add(where(nodes.get(cur).callFrame));
  for (const k of seen) inclusive.set(k, (inclusive.get(k) ?? 0) + t);
}
console.log('\ninclusive time by package (on the stack):');
for (const [k, t] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(t)}  ${k}`);

// inclusive time by function of the service's own code (dist/src)
const inclusiveFn = new Map();
for (const [id, t] of self) {
  if (['(idle)', '(program)'].includes(nodes.get(id).callFrame.functionName)) continue;
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const cf = nodes.get(cur).callFrame;
    if (cf.url.includes('/dist/src/') || cf.url.includes('/bench/'))
      seen.add(`${cf.functionName || '(anonymous)'} ${cf.url.split('/').slice(-2).join('/')}:${cf.lineNumber + 1}`);
  }
  for (const k of seen) inclusiveFn.set(k, (inclusiveFn.get(k) ?? 0) + t);
}
console.log('\ninclusive time by function of the service (dist/src):');
for (const [k, t] of [...inclusiveFn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(t)}  ${k}`);

if (opt.callers) {
  const stacks = new Map();
  for (const [id, t] of self) {
    if (nodes.get(id).callFrame.functionName !== opt.callers) continue;
    const frames = [];
    for (let cur = parent.get(id); cur !== undefined && frames.length < 8; cur = parent.get(cur)) {
      const cf = nodes.get(cur).callFrame;
      frames.push(`${cf.functionName || '(anonymous)'}@${where(cf)}`);
    }
    const key = frames.join(' < ');
    stacks.set(key, (stacks.get(key) ?? 0) + t);
  }
  console.log(`\ncallers of ${opt.callers}:`);
  for (const [k, t] of [...stacks].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`${pct(t)}  ${k}`);
}
