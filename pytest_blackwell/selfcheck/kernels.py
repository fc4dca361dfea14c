"""Child process of ``selfcheck``: produce one real GPU failure and let it surface.

``python -m pytest_blackwell.selfcheck.kernels smem|fault``. The error is left uncaught, so its
traceback reaches stderr exactly as in an engine log; the parent classifies that output. A
step that cannot run here prints ``SKIP_MARKER`` and a reason; a kernel that should have failed
and did not prints ``NO_ERROR_MARKER``. A faulting kernel kills the CUDA context, which is why
each step runs in a process of its own.
"""

# No ``from __future__ import annotations``: Triton reads the kernels' annotations
# (``tl.constexpr``) at decoration time.
import sys
from typing import Any

from pytest_blackwell.selfcheck import NO_ERROR_MARKER, SKIP_MARKER

#: A tile no GPU can hold: 128x128 outputs, K step 256, fp16, pipelined over 4 stages needs
#: about 4 x (128x256 + 256x128) x 2 B = 512 KiB of shared memory per block (227 KiB at most;
#: one stage alone, 128 KiB, is over sm_120's 99 KiB). The fp32 accumulator stays small enough
#: for registers, so shared memory is the only limit it breaks.
_TILE = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 256}
_STAGES = 4
#: Elements past the end of a 1024-element buffer: terabytes away, never mapped.
_FAR = 1 << 40


def _triton() -> Any:
    try:
        import triton
        import triton.language as tl
    except ImportError as exc:
        print(f"{SKIP_MARKER}Triton is not installed ({exc})", flush=True)
        raise SystemExit(0) from None
    return triton, tl


def smem() -> None:
    """Launch a Triton matmul tile too big for any block's shared memory (OutOfResources)."""
    import torch

    triton, tl = _triton()

    @triton.jit
    def big_tile(a_ptr, b_ptr, c_ptr, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                 BLOCK_K: tl.constexpr):  # fmt: skip
        rm = tl.arange(0, BLOCK_M)
        rn = tl.arange(0, BLOCK_N)
        rk = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
            b = tl.load(b_ptr + (k + rk)[:, None] * BLOCK_N + rn[None, :])
            acc += tl.dot(a, b)
        tl.store(c_ptr + rm[:, None] * BLOCK_N + rn[None, :], acc)

    k = _TILE["BLOCK_K"] * 8
    a = torch.randn((_TILE["BLOCK_M"], k), device="cuda", dtype=torch.float16)
    b = torch.randn((k, _TILE["BLOCK_N"]), device="cuda", dtype=torch.float16)
    c = torch.empty((_TILE["BLOCK_M"], _TILE["BLOCK_N"]), device="cuda", dtype=torch.float32)
    big_tile[(1,)](a, b, c, k, num_warps=8, num_stages=_STAGES, **_TILE)
    torch.cuda.synchronize()


def fault() -> None:
    """A store far outside its buffer: an illegal memory access (Triton), else a device-side
    assert from an out-of-range gather (torch only); both kill the CUDA context."""
    import torch

    x = torch.zeros(1024, device="cuda", dtype=torch.float32)
    try:
        import triton
        import triton.language as tl
    except ImportError:
        index = torch.tensor([1 << 30], device="cuda")
        x[index] = 1.0
        torch.cuda.synchronize()
        return

    @triton.jit
    def wild_store(x_ptr, FAR: tl.constexpr):
        offsets = tl.arange(0, 128)
        tl.store(x_ptr + FAR + offsets, 1.0)

    wild_store[(1,)](x, FAR=_FAR)
    torch.cuda.synchronize()


STEPS = {"smem": smem, "fault": fault}


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in STEPS:
        print(f"usage: python -m pytest_blackwell.selfcheck.kernels {'|'.join(STEPS)}")
        return 2
    STEPS[argv[0]]()
    print(NO_ERROR_MARKER, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
