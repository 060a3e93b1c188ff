# syntax=docker/dockerfile:1
#
# Images of the service, one Dockerfile with three targets:
#   api                the HTTP API (no converter)
#   worker             a worker that converts through Gotenberg (GOTENBERG_URL), with the fonts
#                      templates use (metric-compatible with Calibri, Cambria, Arial, Times)
#   worker-libreoffice a worker with the embedded LibreOffice pool (no Gotenberg needed)
#
#   docker build --target api -t docx-pdf-api .
#   docker build --target worker -t docx-pdf-worker .
# docker-compose.yml builds them for you.

ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build: compile with SWC (scripts/build.js), then keep production dependencies only ----
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Same fallback as scripts/ensure-deps.sh: the lock may lack other platforms' optional binaries.
RUN npm ci --no-audit --no-fund || npm install --no-save --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/build.js scripts/
COPY libs libs
COPY apps apps
COPY clients clients
RUN node scripts/build.js --force \
 && npm prune --omit=dev --no-audit --no-fund

# ---- common runtime: compiled code and production node_modules, run as the unprivileged 'node' ----
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist

# ---- api ----
FROM runtime AS api
ENV PORT=8000 HOST=0.0.0.0
EXPOSE 8000
USER node
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8000)+'/health-check').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--enable-source-maps", "dist/apps/api/src/main.js"]

# ---- worker (Gotenberg converter) ----
FROM runtime AS worker
# python3-pikepdf, python3-reportlab, util-linux (prlimit): the PDF finishing step after either
# converter (options.pdf encryption, watermark, prepend/append, attachments, Factur-X; docs/pdf.md).
# qpdf: merges a batch's PDFs into one (request_data.output "merged", docs/jobs.md).
# poppler-utils: pdftoppm and pdfinfo draw page images from the PDF on either route (docs/outputs.md).
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      fonts-crosextra-carlito fonts-crosextra-caladea fonts-liberation2 fonts-dejavu-core fontconfig \
      python3-pikepdf python3-reportlab util-linux qpdf poppler-utils \
 && rm -rf /var/lib/apt/lists/*
ENV WORKER_ALIVE_FILE=/tmp/docx-worker.alive
USER node
# Healthy while the worker refreshes its heartbeat (every HEARTBEAT_INTERVAL_MS, 2 s by default).
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["sh", "-c", "test -f \"$WORKER_ALIVE_FILE\" && test $(( $(date +%s) - $(stat -c %Y \"$WORKER_ALIVE_FILE\") )) -lt 30"]
# SIGTERM lets the worker finish the jobs in hand: give it time (docker stop -t / stop_grace_period).
STOPSIGNAL SIGTERM
# Node's arguments as scripts/build.js (NODE_ARGS) gives them: why the worker's heap setting, there.
CMD ["node", "--enable-source-maps", "--heap-growing-percent=200", "dist/apps/worker/src/main.js"]

# ---- worker with the embedded LibreOffice pool ----
FROM worker AS worker-libreoffice
# Fonts for the scripts Carlito/Liberation/DejaVu lack (CJK, Thai, Devanagari, emoji), chosen by
# measurement (docs/fonts.md). For more scripts and Japanese/Korean glyph forms:
#   --build-arg SCRIPT_FONTS="fonts-noto-core fonts-noto-cjk fonts-symbola"
ARG SCRIPT_FONTS="fonts-wqy-zenhei fonts-tlwg-garuda-ttf fonts-lohit-deva fonts-symbola"
# LibreOffice 25.2 from Debian's bookworm-backports, as npm start and the tests install it
# (scripts/ensure-system-deps.sh; why 25.2 and not bookworm's 7.4: docs/conversion.md#which-libreoffice).
# Its own apt-get install: -t would take every other package from backports too.
# Calc (libreoffice-calc-nogui) and Impress (libreoffice-impress-nogui): spreadsheet and slide templates
# to PDF, ODS and ODP (docs/spreadsheets-and-slides.md).
# libjemalloc2: the allocator the pool preloads into soffice.bin (LIBREOFFICE_ALLOCATOR, docs/conversion.md).
USER root
RUN printf '%s\n' 'Types: deb' 'URIs: http://deb.debian.org/debian' 'Suites: bookworm-backports' \
      'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' \
      > /etc/apt/sources.list.d/bookworm-backports.sources \
 && apt-get update \
 && apt-get install -y --no-install-recommends -t bookworm-backports libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui python3-uno \
 && apt-get install -y --no-install-recommends libjemalloc2 ${SCRIPT_FONTS} \
 && soffice --version | grep -q '^LibreOffice 25\.' \
 && rm -rf /var/lib/apt/lists/*
# Your own fonts: mount a directory at /usr/local/share/fonts/custom (fontconfig reads it; see docs/fonts.md).
USER node
