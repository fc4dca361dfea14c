"""The engine child: ``python -m pytest_blackwell.engine.probe CONFIG_JSON``.

Builds ``vllm.LLM`` for one :class:`EngineConfig`, reports stage events on the events channel
(:mod:`pytest_blackwell.engine.events`), runs a few short requests, then serves requests read as
JSON lines on stdin until ``{"cmd": "shutdown"}`` or end of input. Its stdout and stderr are the
engine's log; nothing structured is printed there.

Requests: ``{"cmd": "generate", "id": 1, "prompts": [...], "max_tokens": 16,
"ignore_eos": false}`` where prompts are strings or lists of token ids; the reply event carries
``texts`` and ``token_ids`` (one per prompt), or ``error``. ``{"cmd": "benchmark", "id": 2,
"workload": {...}, "round": 0}`` runs one round of a
:class:`~pytest_blackwell.engine.benchmark.Workload` in this process; the reply carries ``wall_s``
and per-request ``requests`` timings.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.engine.cpuaffinity import (
    cpu_engine_threads_env,
    cpu_wheels_installed,
    pin_from_env,
    setup_off,
)
from pytest_blackwell.engine.events import EVENTS_ENV, emit, enter_stage
from pytest_blackwell.engine.gpushare import SHARE_ENV

#: KV-cache size used on CPU when the config sets no memory budget at all (vLLM's default
#: reserves most of NUMA node 0 and fails on small machines).
CPU_DEFAULT_KV_CACHE_BYTES = 64 * 1024**2
#: Requests the probe runs itself once the engine is up (and measures tokens/s on).
WARMUP_PROMPTS = ("hello world", "the quick brown fox", "a small engine test", "one two three")
WARMUP_MAX_TOKENS = 16


def _is_cpu_build() -> bool:
    import torch

    if torch.version.cuda is not None or getattr(torch.version, "hip", None) is not None:
        return False
    xpu = getattr(torch, "xpu", None)
    return not (xpu is not None and xpu.is_available())


def resolve(
    config: EngineConfig, *, cpu: bool, gpu_share: float | None = None
) -> tuple[str, dict[str, Any]]:
    """The model path and ``LLM`` kwargs actually used, with the platform defaults applied.

    On CPU: ``enforce_eager`` defaults to True (compilation adds ~40 s) and, when neither
    ``kv_cache_memory_bytes`` nor ``gpu_memory_utilization`` is set, the KV cache gets
    :data:`CPU_DEFAULT_KV_CACHE_BYTES`. On GPU: ``gpu_share`` (this engine's part of a GPU it
    shares with other engines, see :mod:`pytest_blackwell.engine.gpushare`) is the
    ``gpu_memory_utilization`` when the configuration sets none.
    """
    kwargs = config.engine_kwargs()
    if not cpu and gpu_share is not None and config.gpu_memory_utilization is None:
        kwargs["gpu_memory_utilization"] = gpu_share
    if cpu:
        kwargs.setdefault("enforce_eager", True)
        if config.kv_cache_memory_bytes is None and config.gpu_memory_utilization is None:
            kwargs["kv_cache_memory_bytes"] = CPU_DEFAULT_KV_CACHE_BYTES
    if config.model is not None:
        return config.model, kwargs
    from pytest_blackwell.engine.tinymodel import tiny_model_path

    return str(tiny_model_path()), kwargs


def _sampling(llm_module: Any, max_tokens: int, ignore_eos: bool) -> Any:
    return llm_module.SamplingParams(temperature=0.0, max_tokens=max_tokens, ignore_eos=ignore_eos)


def _generate(llm: Any, vllm: Any, prompts: list[Any], max_tokens: int, ignore_eos: bool) -> Any:
    inputs = [p if isinstance(p, str) else {"prompt_token_ids": list(p)} for p in prompts]
    outputs = llm.generate(inputs, _sampling(vllm, max_tokens, ignore_eos), use_tqdm=False)
    return [out.outputs[0] for out in outputs]


def _engine_dead(exc: BaseException) -> bool:
    try:
        from vllm.v1.engine.exceptions import EngineDeadError
    except ImportError:
        return True  # cannot tell: let the classifier see the traceback
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, EngineDeadError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _benchmark(llm: Any, vllm: Any, request: dict[str, Any]) -> dict[str, Any]:
    from pytest_blackwell.engine.benchmark import Workload, run_round

    workload = Workload.from_dict(request.get("workload") or {}, source="benchmark request")
    return run_round(llm, vllm, workload, int(request.get("round", 0)))


def _serve(llm: Any, vllm: Any) -> None:
    for raw in sys.stdin:
        line = raw.strip()
        if not line:
            continue
        request = json.loads(line)
        if request.get("cmd") == "shutdown":
            return
        request_id = request.get("id")
        try:
            enter_stage("execute")
            if request.get("cmd") == "benchmark":
                emit("reply", id=request_id, **_benchmark(llm, vllm, request))
                continue
            started = time.perf_counter()
            outs = _generate(
                llm,
                vllm,
                list(request["prompts"]),
                int(request.get("max_tokens", 16)),
                bool(request.get("ignore_eos", False)),
            )
            emit(
                "reply",
                id=request_id,
                texts=[o.text for o in outs],
                token_ids=[list(o.token_ids) for o in outs],
                seconds=time.perf_counter() - started,
            )
        except Exception as exc:
            dead = _engine_dead(exc)
            if dead:
                traceback.print_exc()  # the engine is gone: the log must say so
            else:  # a rejected request; the engine still serves, so keep the log clean
                print(f"pytest-blackwell probe: request {request_id} rejected: {exc!r}")
            sys.stdout.flush()
            sys.stderr.flush()
            emit("reply", id=request_id, error=f"{type(exc).__name__}: {exc}", engine_dead=dead)


def _stop_engine_tree(llm: Any) -> None:
    """Shut vLLM down, but never for long: the process group goes with us anyway."""
    closer = threading.Thread(target=_shutdown_quietly, args=(llm,), daemon=True)
    closer.start()
    closer.join(timeout=1.0)


def _shutdown_quietly(llm: Any) -> None:
    with contextlib.suppress(Exception):  # best effort: the launcher reaps whatever is left
        llm.llm_engine.engine_core.shutdown()


def _allow_amx(torch: Any) -> None:
    """Ask Linux for the AMX tile state before vLLM's CPU kernels use it.

    A process must request the AMX register state (``arch_prctl``) before its first AMX
    instruction, or it dies on SIGILL. oneDNN asks for it on its first bf16 matmul, but vLLM's
    CPU attention picks AMX for bf16 on its own and can run first, in this process or in the
    engine's spawned processes (each asks again as it imports this module, below). Seen on a
    virtual machine whose CPU has AMX: every engine with ``VLLM_ENABLE_V1_MULTIPROCESSING=1``
    died at its first request (``exit code: -4``).
    """
    cpu = getattr(torch, "cpu", None)
    init = getattr(getattr(torch._C, "_cpu", None), "_init_amx", None)
    if cpu is not None and init is not None and cpu._is_amx_tile_supported():
        init()


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m pytest_blackwell.engine.probe CONFIG_JSON", file=sys.stderr)
        return 2
    if not os.environ.get(EVENTS_ENV):
        print(
            f"pytest_blackwell.engine.probe: ${EVENTS_ENV} must name the events file",
            file=sys.stderr,
        )
        return 2
    enter_stage("startup")
    cores = pin_from_env(os.environ)
    if cores is not None:
        print(f"pytest-blackwell: engine process pinned to CPU cores {cores}", file=sys.stderr)
    if cpu_wheels_installed() and not setup_off(os.environ):
        for key, value in cpu_engine_threads_env(cores).items():
            os.environ.setdefault(key, value)
    config = EngineConfig.from_json(Path(argv[0]).read_text(), source=argv[0])
    cpu = _is_cpu_build()
    if cpu:
        # Measured on 2-core CPU runners: in-process engine starts ~20 s faster.
        os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
    share = os.environ.get(SHARE_ENV)
    model, kwargs = resolve(config, cpu=cpu, gpu_share=float(share) if share else None)

    import torch
    import vllm
    from vllm.engine.arg_utils import EngineArgs

    if cpu:
        _allow_amx(torch)

    from pytest_blackwell.engine.hooks import install_in_engine_process

    accepted = set(EngineArgs.__dataclass_fields__)
    unknown = sorted(set(kwargs) - accepted - {"attention_backend"})
    if unknown:
        raise ValueError(
            f"unknown engine argument(s) {', '.join(unknown)} for vLLM {vllm.__version__} "
            "(expected names of vllm.engine.arg_utils.EngineArgs fields)"
        )
    if "attention_backend" in kwargs:
        from pytest_blackwell.engine.capabilities import backend_alias, known_backends

        asked = str(kwargs["attention_backend"])
        kwargs["attention_backend"] = backend_alias(asked, known_backends()) or asked
        if "attention_backend" not in accepted:
            os.environ["VLLM_ATTENTION_BACKEND"] = str(kwargs.pop("attention_backend"))
    emit(
        "info",
        versions={
            "vllm": str(vllm.__version__),
            "torch": str(torch.__version__),
            "python": sys.version.split()[0],
        },
        platform="cpu" if cpu else "gpu",
        model=model,
        engine_kwargs=kwargs,
        multiprocessing=os.environ.get("VLLM_ENABLE_V1_MULTIPROCESSING", "1") != "0",
    )
    install_in_engine_process()
    enter_stage("loading")
    llm = vllm.LLM(model=model, **kwargs)
    enter_stage("execute")
    started = time.perf_counter()
    outs = _generate(llm, vllm, list(WARMUP_PROMPTS), WARMUP_MAX_TOKENS, True)
    seconds = time.perf_counter() - started
    tokens = sum(len(o.token_ids) for o in outs)
    emit("ready", tokens_per_s=tokens / seconds if seconds > 0 else None, seconds=seconds)
    try:
        _serve(llm, vllm)
    finally:
        enter_stage("shutdown")
        _stop_engine_tree(llm)
    return 0


def _exit_with_group(code: int) -> None:
    """Leave no engine process behind: the probe leads its process group."""
    sys.stdout.flush()
    sys.stderr.flush()
    if os.getpgid(0) == os.getpid():
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        os.killpg(os.getpid(), signal.SIGTERM)
    os._exit(code)


def _die_with_group(signum: int, frame: object) -> None:
    if os.getpgid(0) == os.getpid():
        os.killpg(os.getpid(), signal.SIGKILL)  # takes this process too
    os._exit(1)


def _watch_parent(interval_s: float = 0.2) -> None:
    """The launcher died without stopping us (SIGKILL of pytest): take the engine down."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval_s)
        print("pytest-blackwell probe: the launching process is gone; stopping", flush=True)
        _exit_with_group(1)

    threading.Thread(target=watch, name="pytest-blackwell-parent", daemon=True).start()


def _run(argv: list[str]) -> int:
    # First line of defence: the kernel signals us when pytest dies, even by SIGKILL. SIGTERM,
    # not SIGKILL: the probe then kills its whole process group, which also takes helpers
    # that cannot arm a signal themselves (vLLM's model-inspection subprocess).
    from pytest_blackwell.engine.pdeathsig import arm

    signal.signal(signal.SIGTERM, _die_with_group)
    arm(signal.SIGTERM)
    _watch_parent()
    try:
        return main(argv)
    except BaseException:  # the traceback is the log's first error; exit at once after it
        traceback.print_exc()
        return 1


if __name__ == "__main__":
    _exit_with_group(_run(sys.argv[1:]))
elif __name__ == "__mp_main__" and os.environ.get(EVENTS_ENV):
    # vLLM's EngineCore and workers are spawned: they import this module as __mp_main__,
    # which is where their stage hooks get installed.
    from pytest_blackwell.engine.hooks import install_in_engine_process as _install

    _install()
    if _is_cpu_build():  # (the permission is per process: a spawned worker asks again)
        import torch as _torch

        _allow_amx(_torch)
