"""`EnginePool`: one engine launch per distinct configuration, reused, at most N alive.

The pool owns a private work directory (per-engine ``TMPDIR``, ``VLLM_RPC_BASE_PATH``,
``VLLM_CACHE_ROOT``, ``TORCHINDUCTOR_CACHE_DIR``: vLLM's sockets, ``vllm_dist_*`` files and
caches land there) and removes it on :meth:`EnginePool.close`. Logs go to
``<artifacts_dir>/logs/<config id>.log`` and stay.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pytest_blackwell.engine import vllmcache
from pytest_blackwell.engine.config import EngineConfig
from pytest_blackwell.engine.events import TOKEN_ENV
from pytest_blackwell.engine.launcher import EngineError, EngineProcess, Limits, ProgressCallback
from pytest_blackwell.engine.proctree import find_by_token
from pytest_blackwell.engine.result import EngineResult
from pytest_blackwell.failures.model import Failure

#: Environment variables pointed into the pool's work directory, per engine.
ISOLATED_ENV = ("TMPDIR", "VLLM_RPC_BASE_PATH", "VLLM_CACHE_ROOT", "TORCHINDUCTOR_CACHE_DIR")
_ISOLATED_DIRS = ("tmp", "rpc", "vllm-cache", "inductor-cache")
#: vLLM's sockets are <work dir>/eN/rpc/<36-char uuid>; AF_UNIX paths hold 107 characters.
_MAX_WORK_DIR_CHARS = 56
#: Of those, the caches: shared and kept when the pool is given a ``vllm_cache_dir``.
_CACHE_ENV = ("VLLM_CACHE_ROOT", "TORCHINDUCTOR_CACHE_DIR")

#: Checked right before a launch: ``(config, env, pids of the pool's live engines)`` -> a
#: failure that stands for the launch (the engine is not started), or ``None``. It may add to
#: ``env``, and may raise (e.g. ``ValueError``) to refuse the launch: nothing is started then.
Preflight = Callable[[EngineConfig, dict[str, str], list[int]], Failure | None]
#: Called once per failed launch with its result; returns the result with the failure it
#: should carry (e.g. one a user's classify hook chose). Only the failure of the answer counts.
Revise = Callable[[EngineResult], EngineResult]
#: Called once per launch, after any revision, with the configuration and its final result.
OnResult = Callable[[EngineConfig, EngineResult], None]


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


class EngineHandle:
    """A started (or failed) engine for one configuration; the same object for the pool's life.

    ``result`` is current: an engine that dies while serving shows its failure here.
    """

    def __init__(self, config: EngineConfig, log_path: Path) -> None:
        self.config = config
        self.log_path = log_path
        self.launches = 0
        self._process: EngineProcess | None = None
        self._result: EngineResult | None = None
        self._token: str | None = None
        self._revised: Failure | None = None
        self.evicted = False
        #: What interrupted the latest launch or request (``None``: nothing did). An
        #: interrupted engine is stopped; the next :meth:`EnginePool.get` launches it again.
        self.interrupted: str | None = None

    @property
    def result(self) -> EngineResult:
        if self._process is not None:
            result = self._process.result
        elif self._result is None:
            result = EngineResult(config_id=self.config.id, ok=False, log_path=str(self.log_path))
        else:
            result = self._result
        if self._revised is not None and result.failure is not None:
            result = replace(result, failure=self._revised)
        return result

    def revise_failure(self, failure: Failure) -> None:
        """Replace the classified failure of the current launch (e.g. by a user hook).

        Only a launch that failed can be revised; a relaunch forgets the revision.
        """
        if self.result.failure is None:
            raise ValueError(f"engine {self.config.id} did not fail; there is no failure to revise")
        self._revised = failure

    @property
    def ok(self) -> bool:
        return self.result.ok

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.alive

    def pids(self) -> dict[int, str]:
        """Live processes of the latest launch: pid -> process title (empty once stopped).

        Found by the launch's token in the environment of every process on the machine, so
        an orphan that escaped its process group still shows up here.
        """
        return {} if self._token is None else find_by_token(TOKEN_ENV, self._token)

    def generate(
        self,
        prompts: Sequence[str] | Sequence[Sequence[int]],
        max_tokens: int = 16,
        *,
        ignore_eos: bool = False,
    ) -> list[Any]:
        """Greedy completions: texts for string prompts, token ids for token-id prompts.

        Raises :class:`EngineError` (first line ``<category> at <stage>: <first error>``) when
        the engine failed to start or has failed since, and ``ValueError`` for mixed prompts.
        """
        items = list(prompts)
        if not items:
            return []
        as_text = all(isinstance(p, str) for p in items)
        if not as_text and not all(
            not isinstance(p, str) and all(isinstance(t, int) for t in p) for p in items
        ):
            raise ValueError(
                "generate(): prompts must be all strings or all lists of token ids; got "
                f"{[type(p).__name__ for p in items]}"
            )
        process = self._serving()
        payload = {
            "cmd": "generate",
            "prompts": [p if isinstance(p, str) else list(p) for p in items],
            "max_tokens": int(max_tokens),
            "ignore_eos": bool(ignore_eos),
        }
        try:
            reply = process.request(payload)
        except EngineError:
            raise
        except BaseException as exc:
            # Ctrl-C, a signal, a per-test timeout: the engine may still be busy with the
            # request, so nothing can trust it any more. Stop it; the next get() relaunches.
            self.interrupted = f"request interrupted by {_describe(exc)}"
            process.kill()
            raise
        if "error" in reply:
            raise EngineError(
                f"generate failed in engine {self.config.id}: {reply['error']} "
                f"(log: {self.log_path})",
                process.result.failure,
            )
        key = "texts" if as_text else "token_ids"
        return list(reply[key])

    def benchmark_round(self, workload: dict[str, Any], round_no: int = 0) -> dict[str, Any]:
        """Run one round of a benchmark workload in the engine process (see
        :mod:`pytest_blackwell.engine.benchmark`): ``{"wall_s", "requests": [...]}``."""
        process = self._serving()
        reply = process.request({"cmd": "benchmark", "workload": workload, "round": round_no})
        if "error" in reply:
            raise EngineError(
                f"benchmark failed in engine {self.config.id}: {reply['error']} "
                f"(log: {self.log_path})",
                process.result.failure,
            )
        return {"wall_s": float(reply["wall_s"]), "requests": list(reply["requests"])}

    def _serving(self) -> EngineProcess:
        """The live engine process, or :class:`EngineError` saying why there is none."""
        process = self._process
        if process is None or not self.result.ok:
            failure = self.result.failure
            if failure is not None:
                why = failure.summary
            elif self.interrupted is not None:
                why = f"engine was stopped: {self.interrupted} (the next test relaunches it)"
            elif self.evicted:
                why = "engine was stopped to make room for another (raise max_alive)"
            elif self.launches:
                why = "engine was stopped (its pool was closed)"
            else:
                why = "engine was never started (get it from EnginePool.get)"
            raise EngineError(f"{why}\nengine {self.config.id} (log: {self.log_path})", failure)
        return process

    def _stop(self) -> None:
        if self._process is not None:
            self._result = self._process.stop()
            self._process = None


class EnginePool:
    """Launches engines on demand and reuses them; see the module docstring.

    ``limits``: time limits for every engine; ``base_env``: the engines' environment (default:
    this process's); ``on_progress(config_id, stage, elapsed_s)``: called about twice a second
    while an engine starts (``elapsed_s`` since its launch) and once with ``ready`` or the
    failed stage; ``rules``: classifier rules (default: the built-in table); ``work_root``:
    where the pool's private work directory is made (default: the system temp dir; keep it
    short, vLLM's IPC socket paths live under it); ``vllm_cache_dir``: a persistent
    ``VLLM_CACHE_ROOT``/``TORCHINDUCTOR_CACHE_DIR`` shared by all engines and kept after close
    (e.g. to reuse torch.compile results across sessions); by default each engine gets a
    private one, removed on close, seeded with vLLM's model-inspection cache
    (:mod:`pytest_blackwell.engine.vllmcache`). ``revise(result) -> result``: lets a failed
    launch carry another failure (see :data:`Revise`); ``on_result(config, result)``: called
    once per launch with the final result (see :data:`OnResult`), so no caller has to follow
    each :meth:`get` with its own bookkeeping.
    """

    def __init__(
        self,
        artifacts_dir: str | os.PathLike[str],
        *,
        max_alive: int = 1,
        limits: Limits | None = None,
        base_env: Mapping[str, str] | None = None,
        on_progress: ProgressCallback | None = None,
        rules: Any = None,
        work_root: str | os.PathLike[str] | None = None,
        vllm_cache_dir: str | os.PathLike[str] | None = None,
        log_tag: str | None = None,
        preflight: Preflight | None = None,
        revise: Revise | None = None,
        on_result: OnResult | None = None,
    ) -> None:
        if max_alive < 1:
            raise ValueError(f"EnginePool: max_alive must be at least 1; got {max_alive}")
        self.artifacts_dir = Path(artifacts_dir)
        #: Added to log file names, so pools of parallel processes never share a log file.
        self.log_tag = log_tag
        self.max_alive = max_alive
        self.limits = limits or Limits()
        self.base_env = dict(os.environ if base_env is None else base_env)
        self.on_progress = on_progress
        self.rules = rules
        self.work_dir = Path(tempfile.mkdtemp(prefix="pbw-", dir=work_root))
        if len(str(self.work_dir)) > _MAX_WORK_DIR_CHARS:
            shutil.rmtree(self.work_dir, ignore_errors=True)
            raise ValueError(
                f"EnginePool: work directory {self.work_dir} is too long "
                f"({len(str(self.work_dir))} > {_MAX_WORK_DIR_CHARS} characters): vLLM puts IPC "
                "sockets under it and socket paths are limited to 107 characters; pass a "
                "shorter work_root"
            )
        self.vllm_cache_dir = None if vllm_cache_dir is None else Path(vllm_cache_dir)
        #: Run before every launch (see :data:`Preflight`); GPU memory and device checks.
        self.preflight = preflight
        self.revise = revise
        self.on_result = on_result
        self._launch_count = 0
        self._handles: dict[str, EngineHandle] = {}
        self._tests: dict[str, list[str]] = {}
        self._alive: list[str] = []  # keys, least recently used first
        self._closed = False

    def _log_path(self, config: EngineConfig) -> Path:
        taken = {h.log_path.name for h in self._handles.values()}
        stem = config.id if self.log_tag is None else f"{config.id}.{self.log_tag}"
        name, n = f"{stem}.log", 1
        while name in taken:
            n += 1
            name = f"{stem}~{n}.log"
        return self.artifacts_dir / "logs" / name

    def get(
        self,
        config: EngineConfig,
        *,
        relaunch_failed: Callable[[Failure], bool] | None = None,
    ) -> EngineHandle:
        """The engine for ``config``: reused if already launched, started otherwise.

        A failed engine is not relaunched (its handle, with the failure, is returned again)
        unless ``relaunch_failed(failure)`` says so (e.g. for a rerun after a transient
        failure). An engine stopped to respect ``max_alive``, or
        whose launch or request was interrupted, is started again (``launches`` grows).
        An interrupted launch (``KeyboardInterrupt``, a signal, a per-test timeout raised
        while waiting) stops the engine and re-raises.
        """
        if self._closed:
            raise RuntimeError("EnginePool.get() after close()")
        key = config.key()
        handle = self._handles.get(key)
        if handle is None:
            handle = self._handles[key] = EngineHandle(config, self._log_path(config))
        failure = handle.result.failure if handle.launches else None
        stale = handle.interrupted is not None or (
            relaunch_failed is not None and failure is not None and relaunch_failed(failure)
        )
        if stale:
            if key in self._alive:
                self._alive.remove(key)
            handle._stop()
            self._make_room()
            self._launch(key, handle)
            return handle
        if key in self._alive:
            self._alive.remove(key)
            self._alive.append(key)
            return handle
        if handle.launches and not handle.evicted:
            return handle  # launched before and failed (or died): not retried
        self._make_room()
        self._launch(key, handle)
        return handle

    def note_test(self, config: EngineConfig, nodeid: str) -> None:
        """Record that test ``nodeid`` used ``config`` (listed under ``tests`` in records)."""
        self._tests.setdefault(config.key(), []).append(nodeid)

    def _make_room(self) -> None:
        while len(self._alive) >= self.max_alive:
            oldest = self._handles[self._alive.pop(0)]
            oldest._stop()
            oldest.evicted = oldest.result.failure is None

    def _launch(self, key: str, handle: EngineHandle) -> None:
        env = dict(self.base_env)
        refused = None
        if self.preflight is not None:
            own = [pid for h in self._handles.values() if h.alive for pid in h.pids()]
            refused = self.preflight(handle.config, env, own)  # raising: nothing launched
        handle.launches += 1
        handle.evicted = False
        handle.interrupted = None
        handle._revised = None
        self._launch_count += 1
        # Short names: vLLM's IPC socket paths under rpc/ must stay below 108 characters.
        engine_dir = self.work_dir / f"e{self._launch_count}"
        for name, sub in zip(ISOLATED_ENV, _ISOLATED_DIRS, strict=True):
            path = engine_dir / sub
            if self.vllm_cache_dir is not None and name in _CACHE_ENV:
                path = self.vllm_cache_dir / sub
            path.mkdir(parents=True, exist_ok=True)
            env[name] = str(path)
        if self.vllm_cache_dir is None:
            vllmcache.seed(Path(env["VLLM_CACHE_ROOT"]))
        log_path = handle.log_path
        if handle.launches > 1:
            log_path = log_path.with_name(f"{log_path.stem}.{handle.launches}.log")
        if refused is not None:
            log_path.parent.mkdir(parents=True, exist_ok=True)
            log_path.write_text(f"pytest-blackwell: not launched: {refused.summary}\n")
            handle._result = EngineResult(
                config_id=handle.config.id, ok=False, failure=refused, log_path=str(log_path)
            )
            self._launched(handle)
            return
        process = EngineProcess(
            handle.config,
            log_path=log_path,
            work_dir=engine_dir,
            env=env,
            limits=self.limits,
            rules=self.rules,
            on_progress=self.on_progress,
        )
        handle._process = process
        handle._token = process.token
        try:
            process.start()
            result = process.wait_ready()
        except BaseException as exc:
            handle.interrupted = (
                f"launch interrupted by {_describe(exc)} in stage {process.result_stage}"
            )
            process.kill()
            raise
        if self.vllm_cache_dir is None:
            vllmcache.harvest(Path(env["VLLM_CACHE_ROOT"]))
        if result.ok:
            self._alive.append(key)
        else:
            handle._stop()
        self._launched(handle)

    def _launched(self, handle: EngineHandle) -> None:
        """A launch is over: revise its failure, then hand its result on (once per launch)."""
        result = handle.result
        if self.revise is not None and result.failure is not None:
            revised = self.revise(result).failure
            if revised is not None and revised != result.failure:
                handle.revise_failure(revised)
        if self.on_result is not None:
            self.on_result(handle.config, handle.result)

    def close(self) -> None:
        """Stop every engine (gracefully, then by force) and remove the work directory."""
        self._closed = True
        for handle in self._handles.values():
            handle._stop()
        self._alive.clear()
        shutil.rmtree(self.work_dir, ignore_errors=True)

    def __enter__(self) -> EnginePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def handles(self) -> list[EngineHandle]:
        return list(self._handles.values())

    def records(self) -> list[dict[str, Any]]:
        """One ``results.json`` ``configs`` entry per configuration (see architecture.md).

        An entry is the latest launch's :meth:`EngineResult.to_dict` (``log_path`` relative to
        the artifacts directory, with ``/``), so :meth:`EngineResult.from_dict` reads it back,
        plus the pool's own fields: ``config`` (:meth:`EngineConfig.to_dict`), ``launches``,
        ``outcome`` (``passed``/``failed``/``interrupted``), ``tests`` (node ids that used it)
        and ``interrupted`` (what stopped the latest launch or request, or ``None``).
        """
        records = []
        for key, handle in self._handles.items():
            result = handle.result
            try:
                log = str(handle.log_path.relative_to(self.artifacts_dir))
            except ValueError:
                log = str(handle.log_path)
            if result.log_path is not None:
                try:
                    log = str(Path(result.log_path).relative_to(self.artifacts_dir))
                except ValueError:
                    log = result.log_path
            record = replace(result, log_path=log.replace(os.sep, "/")).to_dict()
            record.update(
                config=handle.config.to_dict(),
                launches=handle.launches,
                outcome=_outcome(handle, result.failure),
                tests=list(self._tests.get(key, [])),
                interrupted=handle.interrupted,
            )
            records.append(record)
        return records


def _outcome(handle: EngineHandle, failure: Failure | None) -> str:
    """``failed`` (the engine failed), ``interrupted`` (stopped before it could tell) or
    ``passed``."""
    if failure is not None or not handle.launches:
        return "failed"
    return "interrupted" if handle.interrupted is not None else "passed"
