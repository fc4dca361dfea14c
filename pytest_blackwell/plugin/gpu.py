"""GPUs of xdist workers: each worker's visible devices, and a header line when they share.

The decisions are :mod:`pytest_blackwell.engine.gpu_assign` and
:mod:`pytest_blackwell.engine.gpushare`; the pool's compile cache and pre-launch GPU check are
built in :mod:`pytest_blackwell.plugin.runtime`.
"""

from __future__ import annotations

import pytest

from pytest_blackwell.plugin.runtime import (
    devices_of,
    worker_visible_devices,
)
from pytest_blackwell.plugin.settings import (
    settings_of,
)


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Say so when xdist workers will have to share GPUs (engines never share one silently)."""
    workers = getattr(config.option, "numprocesses", None)
    gpus = len([d for d in devices_of(config) if d.is_gpu])
    if not isinstance(workers, int) or workers < 2 or gpus == 0:
        return []
    per_worker = settings_of(config).gpus_per_worker
    if workers * per_worker <= gpus:
        return []
    return [
        f"blackwell: {workers} xdist workers x {per_worker} GPU(s) each > {gpus} GPU(s): engines "
        "of different workers will share GPUs (use fewer workers or --blackwell-gpus-per-worker)"
    ]


@pytest.fixture(scope="session")
def blackwell_visible_devices(pytestconfig: pytest.Config) -> str | None:
    """What ``CUDA_VISIBLE_DEVICES`` this worker's engines get (``None``: inherited as is)."""
    return worker_visible_devices(pytestconfig)
