FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
# Compiled to dist/ (the CLI runs plain JavaScript), then the build tools are dropped.
RUN npm run build && npm prune --omit=dev
CMD ["node", "bin/livecontext.js", "worker"]
