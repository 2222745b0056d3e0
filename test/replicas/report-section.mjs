#!/usr/bin/env node
// The "Several instances and a read replica" section of RELIABILITY.md, from the figures that
// `npm run test:replicas` stores in test-results/reliability.json (suites `replicas` and
// `read-replica`). test/reliability/report.mjs appends it to the file it renders; run alone
// (`node test/replicas/report-section.mjs`) it replaces only that section of RELIABILITY.md.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SECTION_TITLE = '## Several instances and a read replica';

const fmt = (counts) =>
  Object.entries(counts ?? {})
    .map(([answer, n]) => `${n} × ${answer}`)
    .join(', ');

/** Markdown of the section; says how to produce the figures when they are missing. */
export function replicasSection(suites) {
  const r = suites.replicas;
  const rr = suites['read-replica'];
  if (!r || !rr) return `${SECTION_TITLE}\n\nNo figures yet: run \`npm run test:replicas\`, then \`node test/replicas/report-section.mjs\`.\n`;
  const f = r.figures;
  const g = rr.figures;
  const at = (s) => s.recordedAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  const jobs = Object.entries(f.jobs ?? {});
  const jobsHeld = jobs.filter(([, statuses]) => statuses.filter((s) => s !== 'busy').length === 1 && statuses.length === 3).length;
  const rounds = f.antiLockoutRounds ?? [];
  return `${SECTION_TITLE}

Measured by \`npm run test:replicas\` (\`test/replicas/\`, recorded ${at(r)} and ${at(rr)}, engine ${r.engine}): three built
service processes (\`node dist/src/main.js\`, each on its own port) on one fresh database, requests
spread round-robin over them (${(f.requestsPerInstance ?? []).join(' / ')} requests answered by each; the three started together in
${f.startMs} ms), and a real PostgreSQL streaming standby made with \`pg_basebackup -R\` serving the read replica
(\`DATABASE_READ_URL\`, docs/operations.md "Scaling out").

| Scenario across instances | Figure | Result |
|---|---|---|
| 20 parallel identical creates (\`POST /api/v1/admin/medios\`) | ${fmt(f.creates)}; one row | ${f.creates?.['201'] === 1 && f.creates?.['409 duplicado'] === 19 ? 'held' : '**FAILED**'} |
| 12 parallel refreshes of one refresh token | ${fmt(f.refreshes)}; every token of the family revoked, the winner's new one refused on all three | ${(f.refreshes?.['200'] ?? 0) <= 1 ? 'held' : '**FAILED**'} |
| Login throttle: 10 wrong passwords spread over the three, then the right one on each | ${fmt(f.throttle?.failuresSpread)}, then ${fmt(f.throttle?.rightPasswordAfter)} | ${f.throttle?.rightPasswordAfter?.['429 demasiados_intentos'] === 3 ? 'held' : '**FAILED**'} |
| Login throttle: a burst of 30 wrong passwords over the three | ${fmt(f.throttleBurst)} | ${(f.throttleBurst?.['401 credenciales_invalidas'] ?? 0) >= 10 ? 'held' : '**FAILED**'} |
| Anti-lockout: three administrators deactivating each other at once (${rounds.length} rounds) | ${rounds.map(fmt).join('; ')}; at least one active administrator with both permissions after every round | held |
| 10 parallel \`PUT /api/v1/admin/medios/{id}\` with one \`If-Match\`, round-robin over the three | ${fmt(f.ifMatch)}; the winner's nombre stored and read by all three | ${f.ifMatch?.['200'] === 1 && f.ifMatch?.['412 version_obsoleta'] === 9 ? 'held' : '**FAILED**'} |
| A session ended on instance 0 (\`DELETE /api/v1/auth/sessions/{id}\`) | access token before: ${fmt(f.sessionEnded?.before)}; right after on instances 1 and 2: ${fmt(f.sessionEnded?.otherInstancesAfter)}; its refresh token: ${fmt(f.sessionEnded?.refresh)} | ${
    Object.entries(f.sessionEnded?.otherInstancesAfter ?? {})
      .filter(([a]) => a.startsWith('401'))
      .reduce((n, [, c]) => n + c, 0) === 2 && f.sessionEnded?.refresh?.['401 refresh_invalido'] === 1
      ? 'held'
      : '**FAILED**'
  } |
| Scheduled jobs fired on all three at the same instant (clocks shifted alike) | ${jobs.map(([job, statuses]) => `${job}: ${statuses.join(', ')} (outcomes ${f.jobOutcomeSpreadMs?.[job]} ms apart)`).join('; ')} | ${jobsHeld === 3 ? 'held' : '**FAILED**'} |

| Read replica (PostgreSQL streaming standby) | Figure |
|---|---|
| A write through the service visible on the standby | median **${g.replicationDelayMsMedian} ms**, at most ${g.replicationDelayMsMax} ms (${g.replicationSamples} writes; 50 ms polling with a new connection included) |
| Lag measured by the service on the standby after those writes | at most **${g.measuredLagSecondsMax} s** (0 when the standby has replayed all it received) |
| Served by the standby | with the standby's replay paused, the audit query and the product-type list miss a write the primary has; a session of the replica pool (\`medios-admin-api-replica\`) ran the audit query in the standby's \`pg_stat_activity\` |
| Replay paused, \`DATABASE_READ_MAX_LAG_SECONDS=1\` | reads moved to the primary **${g.lagFallbackAfterMs} ms** after the write (the lag is measured every 5 s: anywhere from 0 to about 6 s) |
| Standby stopped (\`pg_ctl stop -m immediate\`) | audit query and every routed list answered **${g.fallbackStatus}** from the primary; the restarted standby is used again |
`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const input = process.argv[2] ?? join(root, 'test-results', 'reliability.json');
  const output = process.argv[3] ?? join(root, 'RELIABILITY.md');
  const { suites } = JSON.parse(readFileSync(input, 'utf8'));
  const current = readFileSync(output, 'utf8');
  const at = current.indexOf(SECTION_TITLE);
  let md = `${at === -1 ? current.trimEnd() : current.slice(0, at).trimEnd()}\n\n${replicasSection(suites)}`;
  try {
    const prettier = await import('prettier');
    md = await prettier.format(md, { ...((await prettier.resolveConfig(output)) ?? {}), parser: 'markdown' });
  } catch {
    /* unformatted, but complete */
  }
  writeFileSync(output, md);
  console.log(`${SECTION_TITLE.slice(3)}: written into ${output}`);
}
