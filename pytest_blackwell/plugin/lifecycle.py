"""pytest glue for engine lifecycles under CI plugins: request limit, pytest-timeout, reruns.

- ``--blackwell-request-timeout`` bounds one request to an engine; a hung request ends as
  ``timeout at execute`` and the engine is stopped (read into the session's settings).
- pytest-timeout: an engine launch does not count against the per-test limit. While the
  ``vllm_engine`` fixture launches, pytest-timeout's timer is cancelled through its own hooks
  and set again, with the test's settings, once the engine is ready (or failed); the plugin's
  stage limits govern the launch.
- Reruns (pytest-rerunfailures, or anything that runs a test's protocol again): a rerun
  relaunches its configuration's engine when the engine's failure is transient
  (``pytest_blackwell_transient_failure``), and reuses the failure otherwise.

The hooks here record pytest-timeout's timer and each test's attempts; the launch guard and
the relaunch policy that read them are :mod:`pytest_blackwell.plugin.runtime`'s.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import pytest

from pytest_blackwell.plugin.runtime import (
    ATTEMPT_KEY,
    TIMER_KEY,
)

if TYPE_CHECKING:
    from pytest_blackwell.failures import Failure

#: Categories whose failure may not happen again on a fresh engine (the built-in policy).
TRANSIENT_CATEGORIES = frozenset({"engine_died", "nccl_error", "timeout"})


# --- pytest-timeout ---------------------------------------------------------------------------


@pytest.hookimpl(optionalhook=True, wrapper=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> Generator[None, Any, Any]:
    item.stash[TIMER_KEY] = settings
    return (yield)


@pytest.hookimpl(optionalhook=True, wrapper=True)
def pytest_timeout_cancel_timer(item: pytest.Item) -> Generator[None, Any, Any]:
    if TIMER_KEY in item.stash:
        del item.stash[TIMER_KEY]
    return (yield)


# --- reruns -----------------------------------------------------------------------------------


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    item.stash[ATTEMPT_KEY] = item.stash.get(ATTEMPT_KEY, 0) + 1


@pytest.hookimpl(trylast=True)
def pytest_blackwell_transient_failure(config: pytest.Config, failure: Failure) -> bool:
    """Built-in policy: a dead engine, a collective failure or a hang may pass next time."""
    return failure.category in TRANSIENT_CATEGORIES
