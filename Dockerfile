# syntax=docker/dockerfile:1
#
# One image per service, built from the whole repository:
#   docker build --build-arg SERVICE=gateway -t registry.example.com/platform/gateway:0.1.0 .
# SERVICE is the folder under services/ (gateway, trading, ledger, wallet-registry,
# payouts, collections, notifier, webhook-delivery). The image serves with
# services/<SERVICE>/dist/main.js; the same image runs the migrations with
#   node services/<SERVICE>/dist/migrate.js
# The ops tool (tools/ops) builds the same way, naming its folder:
#   docker build --build-arg SERVICE=ops --build-arg WORKSPACE=tools/ops -t registry.example.com/platform/ops:0.1.0 .
# and runs as `node tools/ops/dist/main.js <command>` (deploy/ops/ops-job.yaml).
# docs/deploying.md covers building, configuring and deploying.
#
# Stages: prune (turbo keeps only the service and the workspaces it depends on),
# build (install from the pruned lockfile, generate the gRPC code, compile),
# runtime (production dependencies and compiled output only, as the `node` user).

# Node 24 (LTS), the line package.json's engines name and `npm test` runs on (the `node`
# devDependency pins the same version). Pinned by the multi-platform index digest, so a
# rebuilt tag cannot change what is built; to move it, take the new digest from
# `docker buildx imagetools inspect node:<version>-bookworm-slim` and bump devDependencies.node too.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim@sha256:2fe369e969550cde8e867afc3fe370b260140cab4a23d467074295b42163d553

# ---------------------------------------------------------------- prune
FROM ${NODE_IMAGE} AS prune
ARG SERVICE
ARG WORKSPACE=services/${SERVICE}
ENV TURBO_TELEMETRY_DISABLED=1
WORKDIR /repo
COPY . .
RUN test -n "${SERVICE}" || { echo 'build with --build-arg SERVICE=<service folder name>' >&2; exit 1; }
RUN test -f "${WORKSPACE}/package.json" || { echo "no workspace at ${WORKSPACE}" >&2; exit 1; }
# Pinned to the repository's turbo version (package.json devDependencies).
RUN npx --yes turbo@2.11.11 prune "$(node -p "require('./${WORKSPACE}/package.json').name")" --docker --out-dir /pruned

# ---------------------------------------------------------------- build
FROM ${NODE_IMAGE} AS build
ARG SERVICE
ARG WORKSPACE=services/${SERVICE}
ENV TURBO_TELEMETRY_DISABLED=1
WORKDIR /repo
# Package manifests and the lockfile first, so the install layer is cached until they change.
COPY --from=prune /pruned/json/ ./
# Exactly the lockfile (it lists every platform's optional builds). No install scripts:
# nothing here needs one (native tools ship as platform packages), and without them the
# `node` devDependency stays an empty package, so the image's own Node runs everything.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY --from=prune /pruned/full/ ./
# turbo prune copies workspaces, not the root files they extend.
COPY tsconfig.base.json ./
RUN npm run codegen -w @platform/proto \
 && npx turbo run build --filter="$(node -p "require('./${WORKSPACE}/package.json').name")"
# Keep only what runs: production dependencies, each workspace's manifest and dist/.
RUN npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && mkdir -p /app \
 && cp package.json /app/ \
 && cp -a node_modules /app/node_modules \
 && for workspace in proto libs/* services/* tools/*; do \
      [ -d "${workspace}/dist" ] || continue; \
      mkdir -p "/app/${workspace}"; \
      cp "${workspace}/package.json" "/app/${workspace}/"; \
      cp -a "${workspace}/dist" "/app/${workspace}/dist"; \
      if [ -d "${workspace}/node_modules" ]; then cp -a "${workspace}/node_modules" "/app/${workspace}/node_modules"; fi; \
    done \
 && test -f "/app/${WORKSPACE}/dist/main.js" \
 && { case "${WORKSPACE}" in services/*) test -f "/app/${WORKSPACE}/dist/migrate.js";; esac; }

# ---------------------------------------------------------------- runtime
FROM ${NODE_IMAGE} AS runtime
ARG SERVICE
ARG WORKSPACE=services/${SERVICE}
# Node flags of every service; scripts/lib/services.mjs sets the same for local stacks. A 4 MiB
# young-generation semi-space (V8's default is 16 MiB) keeps a busy service's resident memory
# about 30 MiB lower. An old generation of at most 256 MiB: far above what a service keeps alive
# (35-60 MiB after a full collection), but V8 sizes the old generation's growth between full
# collections by it; with no ceiling it lets the heap grow to about 4x what survived, and the
# request objects a busy service promotes (they live across an upstream call) piled up to a
# 185-300 MiB resident peak under load (docs/performance.md).
ENV NODE_OPTIONS="--max-semi-space-size=4 --max-old-space-size=256"
ENV NODE_ENV=production \
    SERVICE=${SERVICE} \
    SERVICE_ENTRY=/app/${WORKSPACE}/dist/main.js
WORKDIR /app
# Owned by root and read-only to the process: the service writes nothing to its image.
COPY --from=build /app/ ./
# The node user of the base image (uid/gid 1000): the manifests' runAsUser matches it.
USER 1000:1000
# Exec form (no shell), so signals reach node directly and it drains on SIGTERM.
# Exec form does not expand variables, hence the entry path through the environment.
CMD ["node", "-e", "require(process.env.SERVICE_ENTRY)"]
