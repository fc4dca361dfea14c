"""pytest glue for the GPU side of launches: the compile cache, shared GPUs, visible devices.

The decisions are :mod:`pytest_blackwell.engine.gpushare` and
:mod:`pytest_blackwell.engine.compilecache`; this module only reads the session's options,
devices and xdist layout and hands the engine pool what it needs (:func:`pool_options`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_blackwell.engine.config import EngineConfig
    from pytest_blackwell.failures.model import Failure

COMPILE_CACHE_HELP = (
    "where torch.compile / Inductor results are kept between runs, shared by all engines "
    "(default: compile/vllm-<version> in the pytest-blackwell user cache dir); 'off' gives "
    "every engine a private cache that is deleted with it"
)
_OFF = ("off", "none", "no", "false", "0")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("blackwell")
    group.addoption(
        "--blackwell-compile-cache", metavar="DIR|off", default=None, help=COMPILE_CACHE_HELP
    )
    parser.addini("blackwell_compile_cache", COMPILE_CACHE_HELP, default="")


def _compile_cache_setting(config: pytest.Config) -> tuple[str, str]:
    cli = config.getoption("blackwell_compile_cache")
    if cli is not None:
        return str(cli), "--blackwell-compile-cache"
    return str(config.getini("blackwell_compile_cache") or ""), "ini option blackwell_compile_cache"


def pytest_configure(config: pytest.Config) -> None:
    value, origin = _compile_cache_setting(config)
    if value != value.strip():
        raise pytest.UsageError(f"{origin}: expected a directory or 'off', got {value!r}")
    path = Path(value).expanduser() if value and value.lower() not in _OFF else None
    if path is not None and path.exists() and not path.is_dir():
        raise pytest.UsageError(f"{origin}: {value!r} exists and is not a directory")


def compile_cache(config: pytest.Config) -> Path | None:
    """The persistent compile cache of this session's engines, or ``None`` (opted out)."""
    from pytest_blackwell.engine.compilecache import compile_cache_dir

    value, _ = _compile_cache_setting(config)
    if value.lower() in _OFF:
        return None
    return compile_cache_dir(Path(value).expanduser() if value else None)


def _sharing(config: pytest.Config, gpu_count: int) -> tuple[int, str]:
    from pytest_blackwell.engine.gpushare import engines_per_gpu
    from pytest_blackwell.engine_plugin import _number

    max_engines = int(_number(config, "max-engines", int))
    per_worker = int(_number(config, "gpus-per-worker", int))
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)
    sharing = engines_per_gpu(
        max_engines=max_engines, workers=workers, gpu_count=gpu_count, per_worker=per_worker
    )
    why = (
        f"--blackwell-max-engines {max_engines}, {workers} xdist worker(s) x {per_worker} GPU(s) "
        f"each on {gpu_count} GPU(s)"
    )
    return sharing, why


def preflight_for(config: pytest.Config) -> Any:
    """The pool's pre-launch check on a host with GPUs (``None`` without one)."""
    from pytest_blackwell.engine_plugin import engine_devices

    gpus = [d for d in engine_devices(config) if d.is_gpu]
    if not gpus:
        return None
    sharing, why = _sharing(config, len(gpus))

    def preflight(engine: EngineConfig, env: dict[str, str], own: list[int]) -> Failure | None:
        from pytest_blackwell.engine.compilecache import installed_vllm_version
        from pytest_blackwell.engine.gpushare import prepare_launch, read_nvml
        from pytest_blackwell.engine.stagepoints import version_tuple

        return prepare_launch(
            env,
            engine.gpu_memory_utilization,
            sharing=sharing,
            why=why,
            vllm_version=version_tuple(installed_vllm_version() or ""),
            readings=read_nvml(),
            own_pids=own,
        )

    return preflight


def pool_options(config: pytest.Config) -> dict[str, Any]:
    """Keyword arguments for the session's ``EnginePool``."""
    return {"vllm_cache_dir": compile_cache(config), "preflight": preflight_for(config)}
