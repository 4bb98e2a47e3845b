# One image for the four services: `python -m services.<name>` picks the service.
FROM python:3.11-slim-bookworm

# WeasyPrint renders with Pango; Noto CJK so that zh-CN PDFs have no missing-glyph boxes.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libpango-1.0-0 libpangoft2-1.0-0 \
      libharfbuzz-subset0 fonts-noto-cjk fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md ./
COPY shared ./shared
COPY services ./services
COPY repodigest ./repodigest
RUN pip install --no-cache-dir ".[postgres,s3]"

RUN useradd --system --uid 10001 repodigest \
 && mkdir /data && chown repodigest /data
# /data: the one writable directory (the CLI's working directory in docker-compose.yml, where a
# named volume keeps `report`'s ./reports); /app stays root-owned and read-only to the services
USER repodigest
ENV PYTHONUNBUFFERED=1 REPODIGEST_HEALTH_PORT=8080
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --retries=6 \
  CMD python -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:8080/readyz', timeout=2)" || exit 1
CMD ["repodigest", "serve", "all"]
