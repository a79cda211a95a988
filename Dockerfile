# The image of compose.yaml (docs/README-deploy.md, "Containers"): buyrent installed with pip
# from this checkout (setup.py compiles the translation catalogs into it and bundles the
# templates, static files, migrations and samples), Debian's Chromium for the plan PDF, and a
# user of its own. Not built by CI (no Docker on its machines); tests/system/test_compose.py checks
# that what this file and compose.yaml name exists in the code.
FROM python:3.11-slim-bookworm

# chromium prints the plan PDF (service/plans/pdf.py); the CJK font draws Hangul in it
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-noto-cjk fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /srv/buyrent
COPY . .
RUN pip install --no-cache-dir . \
 && useradd --system --create-home --home-dir /var/lib/buyrent buyrent

USER buyrent
# one instance folder per container, so one per process (each container runs one)
ENV BUYRENT_INSTANCE=/var/lib/buyrent/instance \
    PYTHONUNBUFFERED=1
EXPOSE 8000
ENTRYPOINT ["buyrent"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8000"]
