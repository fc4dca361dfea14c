"""What the glue siblings share: options, the frozen :class:`Settings`, stash keys, typed facts.

With the hook-free :mod:`pytest_blackwell.plugin.runtime` above it, the only module the siblings
of :mod:`pytest_blackwell.plugin` import. Every option is declared here, and read once, in
``pytest_configure``, into a :class:`Settings` that remembers where each value came from
(command line > environment > ini > default), so error messages name the source. State lives in
``config.stash`` / ``item.stash`` under the keys below, never as attributes of pytest objects.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import pytest

from pytest_blackwell import hookspecs
from pytest_blackwell.device.model import DeviceInfo
from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.engine.variables import DEFAULT_VARIABLES, parse_vary
from pytest_blackwell.markers.config import ConfigMarkerError, apply_engine_args

# --- options ----------------------------------------------------------------------------------

DEVICE_ENV = "PYTEST_BLACKWELL_DEVICE"
REQUEST_TIMEOUT_ENV = "PYTEST_BLACKWELL_REQUEST_TIMEOUT"
DEFAULT_REQUEST_TIMEOUT = 300.0

DEVICE_HELP = (
    "simulate a device instead of detecting one: a built-in profile name (see "
    "'python -m pytest_blackwell profiles'), NAME*N for N such GPUs, or a path to a JSON file "
    f"describing custom hardware. Also settable with ${DEVICE_ENV}."
)
MARKERS_HELP = (
    "declare hardware markers from built-in requirements, one per line: "
    'NAME: {"compute_capability": ">=10.0,<11", "requires_smem": {"kb": 200}}'
)
ENGINE_CONFIG_HELP = (
    "base engine configuration for every engine test, as a JSON object of EngineConfig "
    'fields and vLLM engine arguments, e.g. {"max_model_len": 512, "enforce_eager": true}'
)
#: (name, metavar, help, ini default) of the engine options: ``--blackwell-NAME`` and the ini
#: option ``blackwell_NAME`` share the help text.
ENGINE_OPTIONS: tuple[tuple[str, str, str, str | None], ...] = (
    (
        "artifacts",
        "DIR",
        "where engine logs, results.json and bug reports go "
        "(default: .pytest_blackwell in the rootdir)",
        None,
    ),
    (
        "max-engines",
        "N",
        "how many engines may be alive at once (default 1: an engine takes most of a GPU)",
        "1",
    ),
    (
        "engine-timeout",
        "SECONDS",
        "time limit from an engine's launch to ready (default 1200)",
        "1200",
    ),
    (
        "stage-timeout",
        "SECONDS",
        "time limit of every engine stage (default: per stage, generous for loading and compile)",
        "",
    ),
    ("gpus-per-worker", "N", "GPUs each xdist worker's engines get (default 1)", "1"),
)
REQUEST_TIMEOUT_HELP = (
    "time limit in seconds of one request to an engine; a hung request fails as "
    f"'timeout at execute' and the engine is stopped (default 300; also ${REQUEST_TIMEOUT_ENV})"
)
COMPILE_CACHE_HELP = (
    "where torch.compile / Inductor results are kept between runs, shared by all engines "
    "(default: compile/vllm-<version> in the pytest-blackwell user cache dir); 'off' gives "
    "every engine a private cache that is deleted with it"
)
COMPILE_CACHE_OFF = ("off", "none", "no", "false", "0")
ISOLATE_HELP = (
    "after a test whose engine failed, run its configuration again changing one variable at a "
    "time and report what the failure follows. WHAT: 'all' (default: "
    f"{', '.join(DEFAULT_VARIABLES)}), 'memory' (memory-budget sweep only) or comma-separated "
    "variable names"
)
VALUES_HELP = (
    "values to try per variable in one-variable comparisons, one line each: NAME: V1, V2 "
    "(e.g. 'memory_budget: 16MiB, 64MiB, 0.5' or 'max_num_seqs: 1, 8')"
)
MEMORY_LIMIT_HELP = (
    "the most memory a memory-budget search may give an engine, e.g. 8GiB (default: the "
    "device's memory, or the host's free memory when engines run on the CPU)"
)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("blackwell", "hardware-aware engine testing (pytest-blackwell)")
    group.addoption("--blackwell-device", metavar="NAME", default=None, help=DEVICE_HELP)
    parser.addini("blackwell_device", DEVICE_HELP, default=None)
    parser.addini("blackwell_hardware_markers", MARKERS_HELP, type="linelist", default=[])
    for name, metavar, help_text, default in ENGINE_OPTIONS:
        group.addoption(f"--blackwell-{name}", metavar=metavar, default=None, help=help_text)
        parser.addini("blackwell_" + name.replace("-", "_"), help_text, default=default)
    parser.addini("blackwell_engine_config", ENGINE_CONFIG_HELP, default="")
    group.addoption(
        "--blackwell-isolate",
        nargs="?",
        const="all",
        default=None,
        metavar="WHAT",
        help=ISOLATE_HELP,
    )
    group.addoption(
        "--blackwell-isolate-memory-limit", default=None, metavar="SIZE", help=MEMORY_LIMIT_HELP
    )
    parser.addini("blackwell_isolate", ISOLATE_HELP, default="")
    parser.addini("blackwell_isolate_memory_limit", MEMORY_LIMIT_HELP, default="")
    parser.addini("blackwell_isolate_values", VALUES_HELP, type="linelist", default=[])
    group.addoption(
        "--blackwell-compile-cache", metavar="DIR|off", default=None, help=COMPILE_CACHE_HELP
    )
    parser.addini("blackwell_compile_cache", COMPILE_CACHE_HELP, default="")
    group.addoption(
        "--blackwell-request-timeout", metavar="SECONDS", default=None, help=REQUEST_TIMEOUT_HELP
    )
    parser.addini("blackwell_request_timeout", REQUEST_TIMEOUT_HELP, default="")


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    settings_of(config)  # a bad value is a usage error now, not at the first engine


# --- settings ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """Every option of the plugin, parsed and validated once; ``origins`` name their sources."""

    device: str | None
    hardware_markers: tuple[str, ...]
    artifacts: Path
    max_engines: int
    engine_timeout: float
    stage_timeout: float | None
    gpus_per_worker: int
    base_config: EngineConfig
    request_timeout: float
    compile_cache: Path | None
    compile_cache_off: bool
    isolate: tuple[str, ...] | None
    isolate_values: Mapping[str, list[Any]]
    isolate_memory_limit: int | None
    #: Field name -> where its value came from (``--blackwell-max-engines``,
    #: ``$PYTEST_BLACKWELL_REQUEST_TIMEOUT``, ``ini option blackwell_max_engines`` ...).
    origins: Mapping[str, str] = field(default_factory=dict)

    def origin(self, name: str) -> str:
        return self.origins.get(name, "default")


_SETTINGS_KEY = pytest.StashKey[Settings]()


def settings_of(config: pytest.Config) -> Settings:
    """The session's settings (read from the options once, on first use in ``pytest_configure``)."""
    settings = config.stash.get(_SETTINGS_KEY, None)
    if settings is None:
        settings = config.stash[_SETTINGS_KEY] = read_settings(config)
    return settings


def _option(config: pytest.Config, name: str) -> tuple[str | None, str]:
    """``--blackwell-NAME`` if given, else the ini option ``blackwell_NAME`` (default included)."""
    dest = "blackwell_" + name.replace("-", "_")
    cli = config.getoption(dest)
    if cli is not None:
        return str(cli), f"--blackwell-{name}"
    value = str(config.getini(dest) or "").strip()
    return (value or None), f"ini option {dest}"


def _positive(text: str | None, origin: str, kind: type[float] | type[int]) -> float:
    try:
        value = kind(text) if text is not None else None
    except ValueError:
        value = None
    if value is None or value <= 0:
        raise pytest.UsageError(f"{origin}: expected a positive {kind.__name__}, got {text!r}")
    return float(value)


def read_settings(config: pytest.Config) -> Settings:
    """Resolve and validate every option (``pytest.UsageError`` names the bad value's source)."""
    origins: dict[str, str] = {}
    device, origins["device"] = device_request(config)
    numbers: dict[str, float] = {}
    for name, kind in (
        ("max-engines", int),
        ("engine-timeout", float),
        ("gpus-per-worker", int),
        ("stage-timeout", float),
    ):
        text, origin = _option(config, name)
        origins[name.replace("-", "_")] = origin
        if name != "stage-timeout" or text is not None:
            numbers[name] = _positive(text, origin, kind)
    artifacts, origins["artifacts"] = _option(config, "artifacts")
    base_config, origins["base_config"] = _base_config(config)
    request_timeout, origins["request_timeout"] = resolve_request_timeout(
        config.getoption("blackwell_request_timeout"),
        os.environ.get(REQUEST_TIMEOUT_ENV),
        str(config.getini("blackwell_request_timeout") or ""),
    )
    cache, cache_off, origins["compile_cache"] = _compile_cache(config)
    isolate, origins["isolate"] = _isolate(config)
    values = _isolate_values(config)
    origins["isolate_values"] = "ini option blackwell_isolate_values"
    lacking = [n for n in isolate or () if n not in DEFAULT_VARIABLES and n not in values]
    if lacking:
        raise pytest.UsageError(
            f"--blackwell-isolate: no values to try for {', '.join(lacking)}; list them in the "
            f"ini option blackwell_isolate_values (e.g. '{lacking[0]}: V1, V2') or vary one of "
            f"{', '.join(DEFAULT_VARIABLES)}"
        )
    limit, origins["isolate_memory_limit"] = _memory_limit(config)
    return Settings(
        device=device,
        hardware_markers=tuple(str(line) for line in config.getini("blackwell_hardware_markers")),
        artifacts=Path(artifacts) if artifacts else Path(config.rootpath, ".pytest_blackwell"),
        max_engines=int(numbers["max-engines"]),
        engine_timeout=numbers["engine-timeout"],
        stage_timeout=numbers.get("stage-timeout"),
        gpus_per_worker=int(numbers["gpus-per-worker"]),
        base_config=base_config,
        request_timeout=request_timeout,
        compile_cache=cache,
        compile_cache_off=cache_off,
        isolate=isolate,
        isolate_values=values,
        isolate_memory_limit=limit,
        origins=origins,
    )


def device_request(config: pytest.Config) -> tuple[str | None, str]:
    """The simulated device asked for and where it came from (CLI > env > ini)."""
    cli = config.getoption("blackwell_device")
    if cli:
        return str(cli), "--blackwell-device"
    env = os.environ.get(DEVICE_ENV)
    if env:
        return env, f"${DEVICE_ENV}"
    ini = str(config.getini("blackwell_device") or "")
    if ini:
        # A JSON file named in the ini file is relative to that file, not to the cwd.
        if ini.endswith(".json") and config.inipath is not None:
            ini = str(config.inipath.parent / ini)
        return ini, f"ini option blackwell_device in {config.inipath}"
    return None, ""


def _base_config(config: pytest.Config) -> tuple[EngineConfig, str]:
    base = EngineConfig()
    origin = "ini option blackwell_engine_config"
    raw = str(config.getini("blackwell_engine_config") or "").strip()
    if raw:
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise pytest.UsageError(f"{origin}: not JSON ({exc.msg}): {raw!r}") from None
        if not isinstance(data, dict):
            raise pytest.UsageError(f"{origin}: expected a JSON object, got {raw!r}")
        try:
            base = apply_engine_args(base, data, origin)
        except ConfigMarkerError as exc:
            raise pytest.UsageError(str(exc)) from None
    return base, origin


def resolve_request_timeout(cli: str | None, env: str | None, ini: str | None) -> tuple[float, str]:
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
        return value, origin
    return DEFAULT_REQUEST_TIMEOUT, "default"


def _compile_cache(config: pytest.Config) -> tuple[Path | None, bool, str]:
    """``(folder given or None for the default, opted out, origin)``."""
    cli = config.getoption("blackwell_compile_cache")
    value, origin = (
        (str(cli), "--blackwell-compile-cache")
        if cli is not None
        else (
            str(config.getini("blackwell_compile_cache") or ""),
            "ini option blackwell_compile_cache",
        )
    )
    if value != value.strip():
        raise pytest.UsageError(f"{origin}: expected a directory or 'off', got {value!r}")
    if value.lower() in COMPILE_CACHE_OFF:
        return None, True, origin
    path = Path(value).expanduser() if value else None
    if path is not None and path.exists() and not path.is_dir():
        raise pytest.UsageError(f"{origin}: {value!r} exists and is not a directory")
    return path, False, origin


def _isolate(config: pytest.Config) -> tuple[tuple[str, ...] | None, str]:
    """The variables ``--blackwell-isolate`` (or the ini option) asks for; None when off."""
    text, origin = _option(config, "isolate")
    if text is None:
        return None, origin
    if text == "all":
        return DEFAULT_VARIABLES, origin
    names = []
    for part in text.split(","):
        try:
            name, values = parse_vary(part, origin=origin)
        except ValueError as exc:
            raise pytest.UsageError(
                f"{exc} (write --blackwell-isolate=WHAT when a path follows)"
            ) from None
        if values is not None:
            raise pytest.UsageError(
                f"{origin}: values go in the ini option blackwell_isolate_values or the "
                f"one_variable marker, not here; got {part!r}"
            )
        names.append(name)
    return tuple(dict.fromkeys(names)), origin


def _isolate_values(config: pytest.Config) -> dict[str, list[Any]]:
    """Explicit values per variable from the ini option ``blackwell_isolate_values``."""
    found: dict[str, list[Any]] = {}
    for line in config.getini("blackwell_isolate_values"):
        try:
            name, values = parse_vary(str(line), origin="ini option blackwell_isolate_values")
        except ValueError as exc:
            raise pytest.UsageError(str(exc)) from None
        if values is None:
            raise pytest.UsageError(
                f"ini option blackwell_isolate_values: expected 'NAME: V1, V2'; got {line!r}"
            )
        found[name] = values
    return found


def _memory_limit(config: pytest.Config) -> tuple[int | None, str]:
    """``(bytes or None, where it came from)`` of the memory-budget search's user limit."""
    from pytest_blackwell.units import parse_size

    text, origin = _option(config, "isolate-memory-limit")
    if text is None:
        return None, origin
    try:
        size = parse_size(str(text), what=origin)
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    if size <= 0:
        raise pytest.UsageError(f"{origin}: expected a size above 0 bytes, e.g. 8GiB; got {text!r}")
    return size, origin


# --- xdist roles ------------------------------------------------------------------------------


def xdist_worker(config: pytest.Config) -> str | None:
    """This process's xdist worker id (``gw0`` ...), or ``None`` in a controller or without xdist.

    The one test the siblings use to tell a worker from the controller.
    """
    workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
    if workerinput is None:
        return None
    return str(workerinput.get("workerid") or os.environ.get("PYTEST_XDIST_WORKER") or "gw?")


def worker_input(config: pytest.Config) -> dict[str, Any]:
    """What the xdist controller handed this worker (empty outside a worker)."""
    workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
    return workerinput if workerinput is not None else {}


def worker_output(config: pytest.Config) -> dict[str, Any] | None:
    """Where a worker puts data for the controller (``None`` outside a worker)."""
    output: dict[str, Any] | None = getattr(config, "workeroutput", None)
    return output


# --- per-test facts ---------------------------------------------------------------------------


@dataclass
class ItemFacts:
    """What one test's reports say about it (JUnit ``blackwell.<name>`` properties, matrix).

    Plain values only; ``None`` is left out of reports. ``perf`` holds the ``perf.<name>`` facts.
    """

    device: str | None = None
    compute_capability: str | None = None
    config: str | None = None
    kv_cache_dtype: str | None = None
    attention_backend: str | None = None
    outcome: str | None = None
    category: str | None = None
    stage: str | None = None
    first_error: str | None = None
    follows: str | None = None
    isolation: str | None = None
    perf: dict[str, str | int | float | bool] = field(default_factory=dict)

    def set_device(self, devices: list[DeviceInfo], *, replace: bool = False) -> None:
        """Name the first of ``devices`` (keep a device already named unless ``replace``)."""
        if devices and (replace or self.device is None):
            self.device = devices[0].name
            self.compute_capability = devices[0].cc_string or "none"

    def to_dict(self) -> dict[str, Any]:
        """``{"device": ..., "perf.ratio": ...}``: the facts that are set, by property name."""
        data = {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name != "perf" and getattr(self, f.name) is not None
        }
        data.update({f"perf.{name}": value for name, value in self.perf.items()})
        return data


#: The plugin's own facts about a test (typed).
FACTS_KEY = pytest.StashKey[ItemFacts]()
#: Extra facts a conftest or another plugin adds, as a dict of plain values keyed by property
#: name without the ``blackwell.`` prefix; merged over :data:`FACTS_KEY` in reports.
TEST_FACTS_KEY = pytest.StashKey[dict[str, Any]]()


def facts_of(item: pytest.Item) -> ItemFacts:
    """The test's facts, created empty on first use."""
    facts = item.stash.get(FACTS_KEY, None)
    if facts is None:
        facts = item.stash[FACTS_KEY] = ItemFacts()
    return facts


def existing_facts(item: pytest.Item) -> ItemFacts | None:
    """The test's facts, ``None`` when nothing was recorded about it."""
    return item.stash.get(FACTS_KEY, None)


def report_facts(item: pytest.Item) -> dict[str, Any] | None:
    """The test's facts for reports (``None``: nothing was recorded about it)."""
    own = item.stash.get(FACTS_KEY, None)
    extra = item.stash.get(TEST_FACTS_KEY, None)
    if own is None and extra is None:
        return None
    return {**(own.to_dict() if own is not None else {}), **(extra or {})}
