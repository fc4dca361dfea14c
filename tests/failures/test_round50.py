"""Mechanisms of the fiftieth round, tuned on the whole corpus: activity lines.

A training loop's counted step (ColossalAI's ``[3/1000] Forward GPU memory usage: ...``) and
LAMMPS' thermo table header (``Step Temp E_pair ...``, printed as its run starts) are work being
done; a model part initialised from a checkpoint (``Initializing language decoder from
../pretrained_ckpt/...``) and stable-diffusion.cpp sizing a model's parameters (``clip params
backend buffer size = ...``) are loading.
The lines are of our own, in the shapes the tools print.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from classify_helpers import classify_as


@pytest.mark.parametrize(
    ("lines", "category", "stage"),
    [
        (
            [
                "INFO     colossalai - INFO: [5/1000] Forward GPU memory usage: 1605 MB",
                "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 2410 "
                "closing signal SIGTERM",
                "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) "
                "local_rank: 0 (pid: 2411) of binary: /env/bin/python",
            ],
            "engine_died",
            "execute",
        ),
        (
            [
                "Step          Temp          E_pair         E_mol          TotEng         Press",
                "         0   300    -6.7733681      0      -2.2744931     -3.7033504",
                "cudaErrorIllegalAddress: an illegal memory access was encountered",
            ],
            "illegal_memory_access",
            "execute",
        ),
        (
            [
                "Initializing language decoder from ../pretrained_ckpt/llama_ckpt/7b/ ...",
                "[2023-11-13 16:59:55,650] [ERROR] [launch.py:320:sigkill_handler] ['python', "
                "'-u', 'train.py'] exits with return code = -9",
            ],
            "engine_died",
            "loading",
        ),
        (
            [
                "[DEBUG] ggml_extend.hpp:1075 - t5 params backend buffer size =  2555.36 MB(RAM) "
                "(219 tensors)",
                "ggml_vulkan: Device memory allocation of size 4280791040 failed.",
            ],
            "device_oom",
            "loading",
        ),
    ],
)
def test_round50_readings(tmp_path: Path, lines: list[str], category: str, stage: str) -> None:
    classify_as(tmp_path, lines, category, stage)
