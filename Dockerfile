# calsync runs its TypeScript sources directly on Node >= 22.18 (type stripping): no build step.
FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
# The image already has Node 24, so the npm-pinned runtime (devDependency "node") is not needed.
RUN npm ci --omit=dev --no-audit --no-fund
COPY src ./src
COPY jobs ./jobs
COPY bin ./bin
COPY demo ./demo
ENV NODE_ENV=production
ENTRYPOINT ["node", "bin/calsync.js"]
CMD ["--help"]
