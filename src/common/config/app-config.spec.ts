import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { ALL_SETTINGS, ConfigValidationError, loadAppConfig } from './app-config.js';

/** Variables read by someone else: the OpenTelemetry SDK reads its own. */
const notOurs = (variable: string) => variable.startsWith('OTEL_');

/** A value no rule accepts (not a number, a switch, a word of a list, a URL, a role, a list of origins or keys, a PEM). */
const MALFORMED = '¿ ?';

/** Free text: any value is accepted. */
const FREE_TEXT = ['DATA_DIR', 'ADMIN_PASSWORD', 'JWT_ISSUER', 'JWT_AUDIENCE'];

const byVariable = new Map(ALL_SETTINGS.flatMap((s) => s.variables.map((v) => [v, s] as const)));
const variables = [...byVariable.keys()];

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadAppConfig(env);
    return [];
  } catch (err) {
    if (err instanceof ConfigValidationError) return err.problems;
    throw err;
  }
}

/** The README's configuration table: each row's variables and its default column. */
function readmeRows(): Array<{ variables: string[]; defaults: string }> {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.split('|').map((cell) => cell.trim()))
    .map(([, names = '', defaults = '']) => ({ variables: [...names.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!), defaults }))
    .filter((row) => !row.variables.some(notOurs));
}

describe('configuration', () => {
  describe('documentation', () => {
    it('documents in the README table exactly the variables the settings read', () => {
      const documented = readmeRows().flatMap((row) => row.variables);
      expect([...documented].sort()).toEqual([...variables].sort());
      expect(new Set(documented).size).toBe(documented.length);
    });

    it('gives in the README table the default each setting declares', () => {
      const mismatches = readmeRows().flatMap(({ variables: names, defaults }) => {
        const parts = defaults.split(' / ');
        if (parts.length !== names.length) return names.filter((v) => byVariable.get(v)!.defaultText !== undefined);
        return names.filter((v, i) => {
          const part = parts[i]!.replaceAll('`', '');
          const word = part.split(/[\s(]/)[0]!;
          // "unset: …" or another variable's name: the setting itself declares no default
          const written = part.startsWith('unset') || /^[A-Z][A-Z0-9_]+$/.test(word) ? undefined : part === 'empty' ? '' : word;
          return written !== byVariable.get(v)!.defaultText;
        });
      });
      expect(mismatches).toEqual([]);
    });

    it('lists every variable in .env.example, each line with the default the setting declares', () => {
      const example = readFileSync('.env.example', 'utf8');
      expect(variables.filter((v) => !new RegExp(String.raw`\b${v}\b`).test(example))).toEqual([]);
      const lines = [...example.matchAll(/^# ([A-Z][A-Z0-9_]+)=(\S*)/gm)].map(([, v, value]) => [v!, value!] as const).filter(([v]) => !notOurs(v));
      expect(lines.map(([v]) => v).filter((v) => !byVariable.has(v))).toEqual([]);
      const wrong = lines.filter(([v, value]) => byVariable.get(v)!.defaultText !== undefined && byVariable.get(v)!.defaultText !== value);
      expect(wrong).toEqual([]);
    });
  });

  describe('validation', () => {
    it.each(variables.filter((v) => !FREE_TEXT.includes(v)))('rejects a malformed %s with a message that names it', (variable) => {
      const problems = problemsOf({ NODE_ENV: 'test', [variable]: MALFORMED });
      expect(problems.length).toBeGreaterThan(0);
      expect(problems.every((p) => p.includes(variable))).toBe(true);
    });

    it.each(FREE_TEXT)('accepts any text in %s', (variable) => {
      expect(problemsOf({ NODE_ENV: 'test', [variable]: MALFORMED })).toEqual([]);
    });

    it('reports every bad variable at once, each once, quoting what it got unless the variable holds a secret', () => {
      expect(problemsOf({ NODE_ENV: 'test', PORT: 'abc', BCRYPT_ROUNDS: '99', AUDIT_SANITIZE_KEYS: 'token!', LOG_PRETTY: 'maybe' }).sort()).toEqual([
        'AUDIT_SANITIZE_KEYS must be a comma-separated list of key names (got "token!")',
        'BCRYPT_ROUNDS must be an integer from 4 to 15',
        'LOG_PRETTY must be true or false (got "maybe")',
        'PORT must be an integer from 0 to 65535 (got "abc")',
      ]);
    });

    it('checks a database URL beyond its scheme, and never quotes its password', () => {
      const url = (DATABASE_URL: string) => problemsOf({ NODE_ENV: 'test', DATABASE_URL });
      expect(url('postgres://svc:Secreto1@127.0.0.1:notaport/db')).toEqual([
        'DATABASE_URL is not a valid URL: check the host and the port (1..65535), and percent-encode reserved characters of the user and password (got "postgres://svc:***@127.0.0.1:notaport/db")',
      ]);
      expect(url('postgres://svc:Secreto1@127.0.0.1:99999/db')[0]).toContain('is not a valid URL');
      expect(url('postgres://svc:100%seguro@127.0.0.1:5432/db')).toEqual([
        'DATABASE_URL has a user or password with a % that is not an escape: write % as %25 (got "postgres://svc:***@127.0.0.1:5432/db")',
      ]);
      expect(url('postgresx://svc:Secreto1@db:5432/medios')[0]).toContain('(got "postgresx://svc:***@db:5432/medios")');
      expect(problemsOf({ NODE_ENV: 'test', DATABASE_READ_URL: 'http://ro:Secreto2@x/db' }).join()).not.toContain('Secreto2');
      expect(url('postgres://svc:100%25seguro@127.0.0.1:5432/db')).toEqual([]);
      // a raw @ and / in the password: the host would be "prod-Secret", a piece of the password
      for (const scheme of ['postgres', 'mssql']) {
        const problems = url(`${scheme}://svc:Kx9@prod-Secret/Tail7@127.0.0.1:5432/db`);
        expect(problems).toEqual([
          `DATABASE_URL has a path of more than one segment: percent-encode / and @ in the user and password (/ as %2F, @ as %40) (got "${scheme}://svc:***@127.0.0.1:5432/db")`,
        ]);
        expect(problems.join()).not.toMatch(/Kx9|prod-Secret|Tail7/);
      }
      expect(url('postgres://svc:Kx9%40prod-Secret%2FTail7@127.0.0.1:5432/db')).toEqual([]);
      // a SQL Server URL names its database: the login's default (master) is never guessed
      for (const bare of ['mssql://sa:Secreto1@127.0.0.1:1433', 'sqlserver://sa:Secreto1@127.0.0.1:1433/']) {
        expect(url(bare)).toEqual([expect.stringMatching(/^DATABASE_URL names no database: write mssql:\/\/user:password@host:1433\/<database>/)]);
        expect(url(bare).join()).not.toContain('Secreto1');
      }
      // database names may hold @, and / written as %2F; socket and instance forms stay accepted
      for (const ok of [
        'postgres://svc:pw@db:5432/medios@2024',
        'mssql://svc:pw@db:1433/medios@prod',
        'postgres://svc:pw@db:5432/my%2Fdb',
        'postgres:///medios?host=/var/run/postgresql',
        'mssql://svc:pw@db/medios?instanceName=SQLEXPRESS',
        'postgres://svc:pw@[::1]:5432/medios?sslmode=require',
      ])
        expect({ ok, problems: url(ok) }).toEqual({ ok, problems: [] });
    });

    it('takes CORS_ORIGINS as exact origins, and refuses an entry no browser would send', () => {
      const origins = (CORS_ORIGINS: string) => loadAppConfig({ NODE_ENV: 'test', CORS_ORIGINS }).corsOrigins;
      expect(origins('https://admin.example.com, http://localhost:5173')).toEqual(['https://admin.example.com', 'http://localhost:5173']);
      expect(
        problemsOf({
          NODE_ENV: 'test',
          CORS_ORIGINS: 'https://admin.example.com/,https://Admin.example.com,ftp://x.example,https://ok.example,https://x.example:443',
        }),
      ).toEqual([
        'CORS_ORIGINS must list origins as browsers send them (http or https, lowercase host, no path or trailing slash, e.g. https://admin.example.com); not "https://admin.example.com/", "https://Admin.example.com", "ftp://x.example", "https://x.example:443"',
      ]);
    });

    it('refuses a metrics listener on the port of the API', () => {
      expect(problemsOf({ NODE_ENV: 'development', PORT: '3000', METRICS_PORT: '3000' })).toEqual([
        'METRICS_PORT must differ from PORT (both 3000): the metrics have a listener of their own, or 0 for none',
      ]);
      expect(problemsOf({ NODE_ENV: 'development', PORT: '0', METRICS_PORT: '0' })).toEqual([]);
    });

    it('accepts TRUST_PROXY true, false or proxy addresses, CIDR ranges and named ranges, and names each entry it refuses', () => {
      const trust = (TRUST_PROXY: string) => loadAppConfig({ NODE_ENV: 'test', TRUST_PROXY }).trustProxy;
      expect(trust('TRUE')).toBe(true);
      expect(trust('false')).toBe(false);
      expect(trust('10.0.0.0/8, loopback,::1/128,10.0.0.0/255.0.0.0')).toBe('10.0.0.0/8, loopback,::1/128,10.0.0.0/255.0.0.0');
      expect(problemsOf({ NODE_ENV: 'test', TRUST_PROXY: 'notanip,10.0.0.0/33,127.0.0.1' })).toEqual([
        'TRUST_PROXY must be true, false, or a comma-separated list of proxy addresses or CIDR ranges (or loopback, linklocal, uniquelocal); not "notanip", "10.0.0.0/33"',
      ]);
      expect(problemsOf({ NODE_ENV: 'test', TRUST_PROXY: '127.0.0.1,' })).toHaveLength(1);
    });

    it('names DATABASE_READ_URL when it is no URL of an engine, whatever DATABASE_URL is', () => {
      for (const url of ['foo', 'mysql://u@h:1/db']) {
        expect(problemsOf({ NODE_ENV: 'test', DATABASE_URL: 'postgres://u@h/db', DATABASE_READ_URL: url })).toEqual([
          `DATABASE_READ_URL must be a postgres://… or mssql://… URL of a read replica of DATABASE_URL (same engine), or empty (got "${url}")`,
        ]);
      }
      expect(problemsOf({ NODE_ENV: 'test', DATABASE_URL: 'foo', DATABASE_READ_URL: 'postgres://u@replica/db' })).toEqual([
        expect.stringMatching(/^DATABASE_URL must be a postgres:/),
      ]);
    });

    it('takes HOST as an IP address or a host name', () => {
      for (const host of [
        '0.0.0.0',
        '::',
        '127.0.0.1',
        'localhost',
        'api.medios.internal',
        'pod-1.svc.cluster.local.',
        'medios_api',
        '::ffff:10.0.0.1',
      ])
        expect(problemsOf({ NODE_ENV: 'test', HOST: host })).toEqual([]);
      for (const host of ['not a host', 'http://0.0.0.0', '0.0.0.0:3000', '-api', 'a..b', '[::1]'])
        expect(problemsOf({ NODE_ENV: 'test', HOST: host })).toEqual([
          `HOST must be an IP address or a host name to listen on, e.g. 0.0.0.0, :: or localhost (got "${host}")`,
        ]);
    });

    it('treats an empty value as unset for text and URLs, and as an error for numbers and switches', () => {
      const config = loadAppConfig({ NODE_ENV: 'development', HOST: ' ', DATABASE_URL: '', JWT_ISSUER: '' });
      expect(config).toMatchObject({ host: '0.0.0.0', databaseUrl: undefined, jwt: { issuer: 'medios-admin-api' } });
      expect(problemsOf({ NODE_ENV: 'test', PORT: '' })).toEqual(['PORT must be an integer from 0 to 65535 (got "")']);
      expect(problemsOf({ NODE_ENV: 'test', JOBS_ENABLED: '' })).toEqual(['JOBS_ENABLED must be true or false (got "")']);
    });

    it('requires a database, JWT keys and an audit signing key in production', () => {
      expect(problemsOf({ NODE_ENV: 'production' })).toEqual([
        expect.stringMatching(/^DATABASE_URL is required when NODE_ENV=production/),
        expect.stringMatching(/^JWT_PRIVATE_KEY and JWT_PUBLIC_KEY .* are required when NODE_ENV=production/),
        expect.stringMatching(/^AUDIT_SIGNING_KEY .* is required when NODE_ENV=production/),
      ]);
    });
  });

  describe('defaults', () => {
    it('applies the declared defaults outside tests', () => {
      const config = loadAppConfig({ NODE_ENV: 'development' });
      expect(config).toMatchObject({
        port: 3000,
        metricsPort: 9464,
        logLevel: 'info',
        jobsEnabled: true,
        trustProxy: false,
        corsOrigins: [],
        db: { poolSize: 10, appRole: 'medios_app' },
        readReplica: undefined,
      });
    });

    it('under NODE_ENV=test opens no metrics listener, logs nothing, connects as the owner and never schedules jobs', () => {
      const config = loadAppConfig({ NODE_ENV: 'test', JOBS_ENABLED: 'true' });
      expect(config).toMatchObject({ metricsPort: 0, logLevel: 'silent', jobsEnabled: false, db: { appRole: '' } });
    });

    it('gives the read replica the primary pool size unless DB_READ_POOL_SIZE is set', () => {
      const base = { NODE_ENV: 'test', DATABASE_URL: 'postgres://u@primary/db', DATABASE_READ_URL: 'postgres://u@replica/db', DB_POOL_SIZE: '7' };
      expect(loadAppConfig(base).readReplica).toEqual({ url: 'postgres://u@replica/db', maxLagSeconds: 30, poolSize: 7 });
      expect(loadAppConfig({ ...base, DB_READ_POOL_SIZE: '3' }).readReplica?.poolSize).toBe(3);
    });
  });
});
