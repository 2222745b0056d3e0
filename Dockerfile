# syntax=docker/dockerfile:1
#
# The API as a container: Node 24 on Debian bookworm slim, production dependencies only, non-root.
#
#   docker build -t medios-admin-api .
#   docker run --rm -p 3000:3000 \
#     -e DATABASE_URL='mssql://sa:<password>@<host>:1433/medios?encrypt=true&trustServerCertificate=false' \
#     -e JWT_PRIVATE_KEY_FILE=/run/secrets/jwt-private.pem -e JWT_PUBLIC_KEY_FILE=/run/secrets/jwt-public.pem \
#     -e AUDIT_SIGNING_KEY_FILE=/run/secrets/audit-signing-key.pem \
#     -v "$PWD/secrets:/run/secrets:ro" medios-admin-api
#
# or `docker compose up --build` (docker-compose.yml: SQL Server 2022 + this image). Operator
# commands run inside the container with the compiled CLI, e.g.
#   docker compose exec api node dist/src/cli.js admin:reset-password admin
# (`npm run cli` rebuilds first, and the image has no compiler). See docs/operations.md.

ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build: every dependency, then tsc -> dist/ (dist/src/main.js, dist/src/cli.js, dist/migrations/)
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Install scripts stay on: bcrypt's (native binding, prebuilt for linux glibc) and the embedded
# PostgreSQL package's need them (package.json "allowScripts").
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY migrations ./migrations
RUN npm run build

# ---- production dependencies only, installed apart so no dev tool or npm cache reaches the image
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# ---- runtime
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATA_DIR=/var/lib/medios \
    NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /app
# The code is owned by root and read-only for the service's user; only DATA_DIR is writable
# (used only without DATABASE_URL, i.e. the embedded development database).
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
RUN mkdir -p /var/lib/medios && chown node:node /var/lib/medios
# `node` (uid 1000) is the unprivileged user of the official Node images
USER node
# 3000: the API; 9464: Prometheus /metrics (METRICS_PORT), for the monitoring only
EXPOSE 3000 9464
# /health/live: the process serves requests. No curl in slim images: Node's own fetch.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/health/live`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Pending migrations are applied at start (MIGRATIONS_RUN defaults to true), so the plain server
# start is enough; set MIGRATIONS_RUN=false to apply them beforehand with
# `node dist/src/cli.js migrate` (e.g. a Kubernetes Job). SIGTERM (docker stop) drains in-flight
# requests for up to SHUTDOWN_TIMEOUT_MS (10 s by default; keep docker stop's timeout above
# SHUTDOWN_TIMEOUT_MS + 5 s, e.g. `docker stop -t 20`).
STOPSIGNAL SIGTERM
# The heap flags keep the resident memory near 190 MB under load (V8 would otherwise grow the young
# and old generations to ~450 MB on a large host); the same flags as `npm start` (BENCHMARKS.md).
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=30", "dist/src/main.js"]
