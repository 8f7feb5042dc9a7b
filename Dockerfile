# syntax=docker/dockerfile:1
# docsift daemon image. The same image runs every role; pick one with the command:
#   serve (API + job worker, default) | serve --api-only | worker | migrate | admin <subcommand>
# It expects DATABASE_URL (PostgreSQL with pgvector): the slim image ships no PostgreSQL server,
# so the embedded-database mode of a bare install is not available here.
FROM node:22-bookworm-slim

ENV NODE_ENV=production \
    ONNXRUNTIME_NODE_INSTALL=skip \
    SCARF_ANALYTICS=false \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    DATA_DIR=/data \
    HOST=0.0.0.0 \
    PORT=8080

WORKDIR /app

# Manifests first, so the dependency layer is reused while only sources change. npm needs every
# workspace's package.json to read the lockfile, even for workspaces it does not install.
# npm install rather than npm ci: the lockfile lacks other platforms' optional packages (the
# registry mirror it was made against does not serve them), which npm ci refuses.
COPY package.json package-lock.json .npmrc ./
COPY daemon/package.json daemon/
COPY sdk/package.json sdk/
COPY cli/package.json cli/
COPY test/package.json test/
# postinstall patches postgres.js (scripts/patch-postgres.mjs explains why), so it comes before npm install.
COPY scripts/patch-postgres.mjs scripts/
# The daemon runs its TypeScript through tsx, a root devDependency; NODE_ENV=production would
# otherwise omit it.
RUN npm install --no-audit --no-fund --workspace @docsift/daemon --include-workspace-root --include=dev \
 && npm cache clean --force

COPY tsconfig.json ./
COPY scripts ./scripts
COPY daemon ./daemon

# Sources stay root-owned and read-only to the service; only DATA_DIR (uploads, signing secret)
# is writable. Mount a volume there so the API and worker containers share it.
RUN mkdir -p /data && chown node:node /data
USER node

EXPOSE 8080
ENTRYPOINT ["node", "--import", "tsx", "daemon/src/main.ts"]
CMD ["serve"]
