# syntax=docker/dockerfile:1
# Senki's image: a wheel built in a throwaway stage, installed into a slim Python 3.11 runtime
# that runs as an unprivileged user. `docker build -t senki .` (BuildKit, the default builder).

# --- build: the project's wheel and every dependency's wheel -------------------------------
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY domain ./domain
COPY projections ./projections
COPY api ./api
COPY infra ./infra
RUN python -m pip wheel --no-cache-dir --wheel-dir /wheels .

# --- runtime: no compilers, no sources, no pip cache ----------------------------------------
FROM python:3.11-slim AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    SENKI_DATA_DIR=/var/lib/senki \
    SENKI_PORT=8000
# A fixed numeric uid/gid, so Kubernetes' runAsNonRoot can check it without a passwd lookup.
RUN groupadd --system --gid 10001 senki \
 && useradd --system --uid 10001 --gid senki --home-dir /var/lib/senki --no-create-home \
      --shell /usr/sbin/nologin senki \
 && mkdir -p /var/lib/senki \
 && chown senki:senki /var/lib/senki
# The wheels are bind-mounted from the build stage, so they never become a layer of this image.
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    python -m pip install --no-cache-dir --no-index --find-links /wheels senki
# The data directory (embedded PostgreSQL, generated dice key) must stay writable.
VOLUME ["/var/lib/senki"]
WORKDIR /var/lib/senki
USER 10001:10001
EXPOSE 8000
# No curl in the slim image: Python asks /healthz (liveness, no database query).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import os, urllib.request as r; r.urlopen('http://127.0.0.1:' + os.environ.get('SENKI_PORT', '8000') + '/healthz', timeout=4)"]
ENTRYPOINT ["senki"]
CMD ["serve", "--host", "0.0.0.0"]
