"""pytest glue for engine lifecycles under CI plugins: request limit, pytest-timeout, reruns.

- ``--blackwell-request-timeout`` bounds one request to an engine; a hung request ends as
  ``timeout at execute`` and the engine is stopped.
- pytest-timeout: an engine launch does not count against the per-test limit. While the
  ``vllm_engine`` fixture launches, pytest-timeout's timer is cancelled through its own hooks
  and set again, with the test's settings, once the engine is ready (or failed); the plugin's
  stage limits govern the launch.
- Reruns (pytest-rerunfailures, or anything that runs a test's protocol again): a rerun
  relaunches its configuration's engine when the engine's failure is transient
  (``pytest_blackwell_transient_failure``), and reuses the failure otherwise.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_blackwell.failures import Failure

REQUEST_TIMEOUT_ENV = "PYTEST_BLACKWELL_REQUEST_TIMEOUT"
REQUEST_TIMEOUT_HELP = (
    "time limit in seconds of one request to an engine; a hung request fails as "
    f"'timeout at execute' and the engine is stopped (default 300; also ${REQUEST_TIMEOUT_ENV})"
)
DEFAULT_REQUEST_TIMEOUT = 300.0

#: Categories whose failure may not happen again on a fresh engine (the built-in policy).
TRANSIENT_CATEGORIES = frozenset({"engine_died", "nccl_error", "timeout"})

_REQUEST_TIMEOUT_KEY = pytest.StashKey[float]()
#: pytest-timeout's settings while its timer runs for an item (set/cancel seen through hooks).
_TIMER_KEY = pytest.StashKey[Any]()
#: How many times an item's protocol has started (2 and more: a rerun).
_ATTEMPT_KEY = pytest.StashKey[int]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("blackwell")
    group.addoption(
        "--blackwell-request-timeout", metavar="SECONDS", default=None, help=REQUEST_TIMEOUT_HELP
    )
    parser.addini("blackwell_request_timeout", REQUEST_TIMEOUT_HELP, default="")


def resolve_request_timeout(cli: str | None, env: str | None, ini: str | None) -> float:
    """The request limit from the first of CLI, environment, ini that is set; validated."""
    for text, origin in (
        (cli, "--blackwell-request-timeout"),
        (env, f"${REQUEST_TIMEOUT_ENV}"),
        (ini, "ini option blackwell_request_timeout"),
    ):
        if text is None or not str(text).strip():
            continue
        try:
            value = float(text)
        except ValueError:
            value = -1.0
        if not value > 0 or value == float("inf"):
            raise pytest.UsageError(
                f"{origin}: expected a positive number of seconds, got {text!r}"
            )
        return value
    return DEFAULT_REQUEST_TIMEOUT


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_REQUEST_TIMEOUT_KEY] = resolve_request_timeout(
        config.getoption("blackwell_request_timeout"),
        os.environ.get(REQUEST_TIMEOUT_ENV),
        str(config.getini("blackwell_request_timeout") or ""),
    )


def request_timeout(config: pytest.Config) -> float:
    """Seconds one engine request may take (resolved once, when the session is configured)."""
    cached = config.stash.get(_REQUEST_TIMEOUT_KEY, None)
    return DEFAULT_REQUEST_TIMEOUT if cached is None else cached


# --- pytest-timeout ---------------------------------------------------------------------------


@pytest.hookimpl(optionalhook=True, wrapper=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> Generator[None, Any, Any]:
    item.stash[_TIMER_KEY] = settings
    return (yield)


@pytest.hookimpl(optionalhook=True, wrapper=True)
def pytest_timeout_cancel_timer(item: pytest.Item) -> Generator[None, Any, Any]:
    if _TIMER_KEY in item.stash:
        del item.stash[_TIMER_KEY]
    return (yield)


@contextlib.contextmanager
def launch_guard(item: pytest.Item) -> Generator[None, None, None]:
    """Hold pytest-timeout's per-test timer while an engine launches; restart it after.

    The restarted timer has the test's own settings, so the test body keeps the full limit.
    Without pytest-timeout, or with its timer not running (``timeout_func_only``), nothing
    happens.
    """
    settings = item.stash.get(_TIMER_KEY, None)
    if settings is None:
        yield
        return
    hook = item.config.hook
    hook.pytest_timeout_cancel_timer(item=item)
    try:
        yield
    finally:
        hook.pytest_timeout_set_timer(item=item, settings=settings)


# --- reruns -----------------------------------------------------------------------------------


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    item.stash[_ATTEMPT_KEY] = item.stash.get(_ATTEMPT_KEY, 0) + 1


def relaunch_policy(item: pytest.Item) -> Callable[[Failure], bool] | None:
    """For a rerun: which earlier engine failures get a fresh engine. ``None``: first run."""
    if item.stash.get(_ATTEMPT_KEY, 1) < 2:
        return None
    config = item.config

    def transient(failure: Failure) -> bool:
        answer = config.hook.pytest_blackwell_transient_failure(config=config, failure=failure)
        return bool(answer)

    return transient


@pytest.hookimpl(trylast=True)
def pytest_blackwell_transient_failure(config: pytest.Config, failure: Failure) -> bool:
    """Built-in policy: a dead engine, a collective failure or a hang may pass next time."""
    return failure.category in TRANSIENT_CATEGORIES
