"""The vLLM functions whose calls mark the start of an engine stage (plain data, no imports).

The hooks (:mod:`pytest_blackwell.engine.hooks`) wrap these when vLLM imports their module;
the static check (:mod:`pytest_blackwell.engine.hookscan`, ``scripts/vllm_hookpoints.py``)
reads a vLLM wheel or source tree and says which of them a release has. ``since`` / ``until``
are the first / last vLLM release known to have a point (checked against the wheels listed in
``docs/vllm-hookpoints.md``); a point missing inside its range means vLLM moved it.
"""

from __future__ import annotations

from dataclasses import dataclass

#: ``after`` value: go back to the stage that was current before the call (compile runs
#: inside memory profiling, warm-up or capture and returns to it).
RESTORE = "<restore>"

#: The oldest vLLM release the plugin supports (also stated in pyproject.toml and README).
OLDEST_SUPPORTED_VLLM = "0.10.0"


@dataclass(frozen=True)
class StagePoint:
    """One wrapped callable: ``module.owner.attr`` (``owner`` ``""``: a module-level name).

    Entering the call announces ``before``; returning announces ``after`` (``None``: nothing,
    :data:`RESTORE`: the stage current before the call). ``skip_if_true`` names a keyword
    argument that, when true, makes the call a measurement rather than the stage itself
    (capture with ``profile_only=True`` during memory profiling): no event is sent then.
    """

    module: str
    owner: str
    attr: str
    before: str
    after: str | None = None
    skip_if_true: str | None = None
    since: str | None = None
    until: str | None = None
    #: The engine platform that runs it: ``gpu``, ``cpu`` or ``any``.
    platform: str = "any"

    @property
    def name(self) -> str:
        owner = f"{self.owner}." if self.owner else ""
        return f"{self.module}:{owner}{self.attr}"


STAGE_POINTS: tuple[StagePoint, ...] = (
    StagePoint("vllm.v1.worker.gpu_worker", "Worker", "load_model", "loading"),
    StagePoint("vllm.v1.worker.gpu_worker", "Worker", "determine_available_memory", "profile"),
    StagePoint(
        "vllm.v1.worker.cpu_worker",
        "CPUWorker",
        "determine_available_memory",
        "profile",
        platform="cpu",
    ),
    StagePoint("vllm.v1.engine.core", "", "get_kv_cache_config", "kv_alloc", until="0.10.2"),
    StagePoint("vllm.v1.engine.core", "", "get_kv_cache_configs", "kv_alloc", since="0.14.0"),
    StagePoint("vllm.v1.worker.gpu_worker", "Worker", "initialize_from_config", "kv_alloc"),
    StagePoint("vllm.v1.worker.gpu_worker", "Worker", "compile_or_warm_up_model", "warmup"),
    StagePoint(
        "vllm.v1.worker.cpu_worker",
        "CPUWorker",
        "compile_or_warm_up_model",
        "warmup",
        platform="cpu",
    ),
    # The model runner of most models up to 0.33 (gone in 0.34).
    StagePoint(
        "vllm.v1.worker.gpu_model_runner",
        "GPUModelRunner",
        "capture_model",
        "graph_capture",
        after="warmup",
        skip_if_true="profile_only",
        until="0.33.0",
        platform="gpu",
    ),
    # The second model runner (present from 0.14 at the latest; most models from 0.25, the only
    # one in 0.34).
    StagePoint(
        "vllm.v1.worker.gpu.model_runner",
        "GPUModelRunner",
        "capture_model",
        "graph_capture",
        after="warmup",
        skip_if_true="profile_only",
        since="0.14.0",
        platform="gpu",
    ),
    # vLLM's torch.compile backend: Inductor compiles the traced graph inside this call.
    StagePoint("vllm.compilation.backends", "VllmBackend", "__call__", "compile", after=RESTORE),
    # Ahead-of-time compilation of the model (VLLM_USE_AOT_COMPILE, the default in recent
    # releases): Dynamo's frame callbacks do not see it.
    StagePoint(
        "vllm.compilation.wrapper",
        "TorchCompileWithNoGuardsWrapper",
        "aot_compile",
        "compile",
        after=RESTORE,
        since="0.14.0",
    ),
)

#: torch's own compile callbacks (Dynamo tracing starts before vLLM's backend is called); hooked
#: when the engine imports this module, never imported by the hooks themselves.
DYNAMO_CALLBACK_MODULE = "torch._dynamo.callback"


def version_tuple(version: str) -> tuple[int, ...]:
    """``0.10.1.1`` -> ``(0, 10, 1, 1)``; a local or dev suffix is ignored."""
    parts: list[int] = []
    for piece in version.split("+")[0].split("."):
        digits = ""
        for char in piece:
            if not char.isdigit():
                break
            digits += char
        if not digits:
            break
        parts.append(int(digits))
        if digits != piece:
            break
    return tuple(parts)


def expected_in(point: StagePoint, version: str) -> bool:
    """Whether ``point`` should exist in vLLM ``version`` (its ``since``/``until`` range)."""
    have = version_tuple(version)
    if not have:
        return True
    if point.since is not None and have < version_tuple(point.since):
        return False
    return not (point.until is not None and have > version_tuple(point.until))
