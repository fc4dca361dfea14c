"""Hooks that downstream projects implement in a ``conftest.py`` or a plugin.

Every hook is named ``pytest_blackwell_*``. The built-in behaviour of the ``firstresult`` hooks is
itself an implementation registered last (``trylast``), so returning a value from your own
implementation replaces it, and returning ``None`` falls through to it.

This module imports nothing heavy: types are for annotations only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_blackwell.device.model import DeviceInfo
    from pytest_blackwell.engine.config import EngineConfig
    from pytest_blackwell.engine.result import EngineResult
    from pytest_blackwell.failures import Failure, Rule


@pytest.hookspec(firstresult=True)
def pytest_blackwell_detect_devices(
    config: pytest.Config, request: str | None, origin: str
) -> list[DeviceInfo] | None:
    """Return the devices of this session, replacing built-in detection.

    Called once, in the controller process (xdist workers receive the result). ``request`` is
    the simulated profile asked for (``--blackwell-device``, ``PYTEST_BLACKWELL_DEVICE`` or the
    ``blackwell_device`` ini option) and ``origin`` says which of them; ``None`` when none was.
    Return ``None`` to let the built-in detection run.

    Example::

        def pytest_blackwell_detect_devices(config, request, origin):
            if os.environ.get("MY_LAB_GPU") == "spark":
                return [DeviceInfo(name="NVIDIA GB10", compute_capability=(12, 1), ...)]
            return None
    """


def pytest_blackwell_device_profiles(config: pytest.Config) -> dict[str, DeviceInfo]:
    """Add simulated device profiles (new SKUs), by name, usable with ``--blackwell-device``.

    Example::

        def pytest_blackwell_device_profiles(config):
            return {"rtx-pro-5000": DeviceInfo(name="NVIDIA RTX PRO 5000 Blackwell",
                                               compute_capability=(12, 0), ...)}
    """


def pytest_blackwell_hardware_markers(config: pytest.Config) -> dict[str, dict[str, Any]]:
    """Declare hardware markers as data: marker name -> built-in requirements.

    Example::

        def pytest_blackwell_hardware_markers(config):
            return {"datacenter_blackwell": {"compute_capability": ">=10.0,<11",
                                             "requires_smem": {"kb": 200}}}

    The same can be declared without code in the ``blackwell_hardware_markers`` ini option.
    """


def pytest_blackwell_failure_rules(config: pytest.Config) -> list[Rule]:
    """Add failure rules; they are tried before the built-in ones, in the order returned.

    A rule may name a new category: it flows through JUnit, the matrix and reports unchanged.

    Example::

        def pytest_blackwell_failure_rules(config):
            return [Rule(name="my-kernel-assert", category="my_kernel_assert",
                         pattern=r"MYLIB_ASSERT\\(", stage_hint="execute")]
    """


@pytest.hookspec(firstresult=True)
def pytest_blackwell_classify(
    config: pytest.Config, log_path: str, failure: Failure | None
) -> Failure | None:
    """Classify an engine log yourself; ``failure`` is what the built-in rules found.

    Return a ``Failure`` to replace it, or ``None`` to keep it.
    """


@pytest.hookspec(firstresult=True)
def pytest_blackwell_adjust_engine_config(
    config: pytest.Config, engine_config: EngineConfig
) -> EngineConfig | None:
    """Adjust an engine configuration; return the new one, or ``None`` to keep it.

    Called once per distinct configuration, at collection (in each xdist worker), before its
    id is used anywhere: test ids, xdist groups, logs, ``results.json`` and reports all name the
    adjusted configuration. The first implementation that returns a configuration wins; the
    built-in one (registered last) returns ``engine_config`` unchanged. To change what another
    plugin returns, wrap the hook (``@pytest.hookimpl(wrapper=True)``: ``adjusted = yield``,
    then return a changed ``adjusted``). Example::

        def pytest_blackwell_adjust_engine_config(config, engine_config):
            return engine_config.replace(env={**engine_config.env, "VLLM_LOGGING_LEVEL": "DEBUG"})
    """


def pytest_blackwell_engine_result(
    config: pytest.Config, engine_config: EngineConfig, result: EngineResult
) -> None:
    """Receive every engine result as soon as its launch has finished (e.g. to upload it)."""


@pytest.hookspec(firstresult=True)
def pytest_blackwell_transient_failure(config: pytest.Config, failure: Failure) -> bool | None:
    """Say whether an engine failure may not happen again on a fresh engine.

    Asked when a test is run again (pytest-rerunfailures' ``--reruns``, ``@pytest.mark.flaky``)
    and its configuration's engine failed: ``True`` relaunches the engine for the rerun,
    ``False`` reuses the failure (a deterministic failure fails the rerun at once). Return
    ``None`` to leave the decision to the next implementation; the built-in one (registered
    last) says ``True`` for ``engine_died``, ``nccl_error`` and ``timeout``.

    Example::

        def pytest_blackwell_transient_failure(config, failure):
            if failure.category == "device_oom" and "another process" in failure.first_error:
                return True  # memory taken by a neighbour on a shared runner
            return None
    """
