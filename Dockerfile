# pokerbot in a container: `docker run IMAGE play <host> <port> --strategy ...`,
# `docker run IMAGE match ...`, any other `pokerbot` command.
#
# Built from wheels only (reproducible, and no package index is needed inside the build):
#   pip wheel -w wheelhouse .                      # on the host, in the repository
#   docker build -t pokerbot .                     # or see docs/deployment.md for podman
# Build arguments:
#   BASE_IMAGE         a Debian-like image with python3 (>= 3.11) and its venv module
#                      (default python:3.11-slim; with no registry, a local one made with
#                      debootstrap: scripts/container-smoke makes localhost/bookworm-python:local)
#   BLUEPRINT_PRESET   tiny (default): train `pokerbot train-blueprint --preset tiny` into
#                      /blueprints/default.bp at build time (about 2 minutes on 2 cores);
#                      default: the full blueprint (about an hour); none: bake nothing and
#                      mount a store at /blueprints/default.bp at run time
#   BLUEPRINT_MINUTES  training time instead of the preset's (empty: the preset's)
#   APP_UID            uid and gid of the non-root user `pokerbot` (default 10001)
ARG BASE_IMAGE=python:3.11-slim

# ---------------------------------------------------------------- builder: the venv
# pokerbot and its dependencies from the wheelhouse, no index; the installer (pip,
# setuptools) and the third-party packages' test suites (about 40 MB) are removed, they
# are not needed to run.
FROM ${BASE_IMAGE} AS builder
COPY wheelhouse/ /wheelhouse/
RUN python3 -c 'import sys; assert sys.version_info >= (3, 11), sys.version' \
 && python3 -m venv /opt/venv \
 && /opt/venv/bin/python -m pip install --no-index --find-links /wheelhouse --no-cache-dir \
        --disable-pip-version-check pokerbot \
 && /opt/venv/bin/python -m pip uninstall --yes --quiet pip setuptools \
 && find /opt/venv/lib -depth -type d -name tests -path '*/site-packages/*' -exec rm -rf {} + \
 && /opt/venv/bin/pokerbot --help > /dev/null

# ---------------------------------------------------------------- runtime
FROM ${BASE_IMAGE}
ARG APP_UID=10001
ARG BLUEPRINT_PRESET=tiny
ARG BLUEPRINT_MINUTES=
LABEL org.opencontainers.image.title="pokerbot" \
      org.opencontainers.image.description="Heads-up no-limit hold'em bot for the ACPC dealer protocol" \
      org.opencontainers.image.licenses="MIT"
ENV PATH=/opt/venv/bin:$PATH \
    HOME=/home/pokerbot \
    LANG=C.UTF-8 \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    NUMBA_CACHE_DIR=/opt/pokerbot/cache/numba \
    POKERBOT_CACHE_DIR=/opt/pokerbot/cache/tables \
    POKERBOT_BLUEPRINT=/blueprints/default.bp \
    POKERBOT_LOG_STREAM=stdout
RUN groupadd --gid "${APP_UID}" pokerbot \
 && useradd --uid "${APP_UID}" --gid "${APP_UID}" --create-home --home-dir /home/pokerbot \
        --shell /usr/sbin/nologin pokerbot \
 && mkdir -p /blueprints /opt/pokerbot/cache \
 && chown pokerbot:pokerbot /blueprints /opt/pokerbot/cache
COPY --from=builder /opt/venv /opt/venv
USER pokerbot
WORKDIR /home/pokerbot

# Bake the blueprint (unless `none`); its own layer, so that a change to the warm-up
# below does not train again.
RUN set -eu; \
    if [ "$BLUEPRINT_PRESET" != none ]; then \
      pokerbot train-blueprint --preset "$BLUEPRINT_PRESET" --out /blueprints/default.bp \
          ${BLUEPRINT_MINUTES:+--minutes "$BLUEPRINT_MINUTES"}; \
      rm -rf /blueprints/default.bp.ckpt; \
      chmod 0444 /blueprints/default.bp; \
    fi

# Warm every numba kernel the play path uses, as the user that runs the bot, so the
# compiled code lands in NUMBA_CACHE_DIR (and the evaluator tables in
# POKERBOT_CACHE_DIR) inside the image: a container's first decision loads them instead
# of compiling (scripts/container-smoke checks this with NUMBA_DEBUG_CACHE=1). Numba
# keys the cache by each source file and by the CPU, so this runs on the final files.
# With `none` a throwaway tiny blueprint drives the warm-up and is deleted in the same
# step. First the agent's own start-up warm-up (`pokerbot warm`: it compiles every
# kernel the player uses, which on a cold cache takes longer than a dealer waits for a
# player to connect; `--double-precision`: also the metrics' kernels, which evaluation
# tools run in the container use), then matches. They cover the agent
# (blueprint rounds, river solves; nested re-solves after the random player's odd bet
# sizes and safe re-solves after the other agent's bets, which evaluate the old
# solution in the solver's precision; turn solving on two threads) and the blueprint
# player on every round (river buckets computed on the fly).
RUN set -eu; \
    mkdir -p /tmp/warm; \
    bp=/blueprints/default.bp; \
    if [ ! -e "$bp" ]; then \
      bp=/tmp/warm/warm.bp; \
      pokerbot train-blueprint --preset tiny --out "$bp" --minutes 0.2 > /tmp/warm/train.txt \
          || { cat /tmp/warm/train.txt; exit 1; }; \
    fi; \
    pokerbot selfcheck --hands 300 > /tmp/warm/selfcheck.txt || { cat /tmp/warm/selfcheck.txt; exit 1; }; \
    agent="pokerbot play --strategy libratus --solve-seconds 0.2 --blueprint $bp"; \
    pokerbot warm --blueprint "$bp" --double-precision; \
    m() { out=/tmp/warm/$1; shift; \
          pokerbot match "$@" --out "$out" || { tail -n 20 "$out"/*.stderr; exit 1; }; }; \
    m agent "$agent" random --hands 40 --seed 3; \
    m agents "$agent" "$agent" --hands 30 --seed 6; \
    m turn "$agent --turn-solver full --threads 2" call --hands 6 --seed 4; \
    m river "$agent --solve-round 4" call --hands 10 --seed 7; \
    m blueprint blueprint random --blueprint "$bp" --hands 60 --seed 5; \
    rm -rf /tmp/warm; \
    du -sh /opt/pokerbot/cache/* /blueprints

STOPSIGNAL SIGTERM
ENTRYPOINT ["pokerbot"]
CMD ["--help"]
