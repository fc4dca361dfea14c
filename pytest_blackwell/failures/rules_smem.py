"""Rules for a kernel that asks more shared memory than the GPU gives a block (``smem_limit``).

Triton's resource check, CUDA's launch refusals, ptxas' static limits and the attribute that opts
a kernel in to more dynamic shared memory. They come first in
:data:`pytest_blackwell.failures.rules.DEFAULT_RULES`: the limit is the cause of the launch errors
and relays that follow it.
"""

from __future__ import annotations

from pytest_blackwell.failures.rule import Rule, rule

#: Triton's resource check also runs inside autotuners (Inductor's max-autotune, triton.autotune):
#: a config that does not fit is logged at WARNING and dropped, and tuning goes on with the others.
#: Only the same text at ERROR level (or as a raised exception) is a failure.
AUTOTUNE_QUIET = ("DEBUG", "INFO", "WARNING")

# fmt: off
#: The kernel needs more shared memory than a block may have.
SMEM_RULES: tuple[Rule, ...] = (
    rule("triton_smem", "smem_limit",
       r"out of resource: shared memory, Required: (?P<required_bytes>\d+), "
       r"Hardware limit: (?P<limit_bytes>\d+)", ignore_at=AUTOTUNE_QUIET),
    rule("too_many_resources", "smem_limit",
       r"too many resources requested for launch|CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"
       r"|(?:cuda|hip)ErrorLaunchOutOfResources"
       # a launch with more threads per block than the kernel's pipeline allows (Metal's "Thread
       # group size (1024) is greater than the maximum allowed threads per threadgroup (896)")
       r"|\b(?:greater than|exceeds?|more than)\s+(?:the\s+)?maximum (?:allowed |number of )?"
       r"threads per (?:threadgroup|block)\b"
       # (a launcher's own check of it: "exceeds the maximum CUDA blocksize = 65535")
       r"|\bexceeds? the maximum (?:CUDA )?block ?size\b"),
    # a TPU kernel needing more of the core's on-chip vector memory, its shared memory, than it
    # has (XLA: "RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem while allocating on
    # stack for %kv_cache_update")
    rule("tpu_vmem", "smem_limit", r"\bRan out of memory in memory space vmem\b"),
    # Triton's resource check as Inductor relays it, naming the kernel where Triton names the
    # resource ("out of resource: triton_mm Required: 327680 Hardware limit:232448"); only shared
    # memory is checked against a byte limit there
    rule("triton_resource_relayed", "smem_limit",
       r"out of resource: (?!threads|registers)\w+,? Required: (?P<required_bytes>\d+),? "
       r"Hardware limit: ?(?P<limit_bytes>\d+)"
       # the same with its figures cut off or on the next line (Inductor's kernels: "triton_*")
       r"|out of resource: triton_\w+",
       keywords=("Hardware limit", "out of resource: triton_"), ignore_at=AUTOTUNE_QUIET),
    # ptxas: a kernel's static shared memory above the target's limit
    # ptxas: a kernel's shared data, or a thread's local data (its stack frame), over the limit
    # (Intel's GPU compiler: "total scratch space exceeds HW supported limit: 311264 bytes")
    rule("ptxas_shared_data", "smem_limit",
       r"(?:uses )?too much (?:shared|local) data\b(?: \(0x[0-9a-fA-F]+ bytes)?"
       r"|\btotal (?:scratch|private|spill) (?:space|memory) exceeds HW supported limit\b"
       # (or more registers than a thread may have: "(C7600) Register allocation failed with
       # register count of '255'")
       r"|\bRegister allocation failed with register count of\b",
       stage_hint="compile",
       keywords=("too much shared data", "too much local data", "exceeds HW supported limit",
                 "Register allocation failed")),
    rule("triton_out_of_resources", "smem_limit",
       r"^(?:[\w.]+\.)?OutOfResources\b|out of resource: shared memory",
       keywords=("OutOfResources",), ignore_at=AUTOTUNE_QUIET),
    rule("dynamic_smem_set_failed", "smem_limit",
       r"(?i)(?:failed to set|cannot set|unable to set)\b.{0,60}?(?:dynamic|max\w*) shared"
       r"|(?:requested|required) (?:dynamic )?shared memory.{0,80}?"
       r"(?:exceeds|larger than|greater than)"
       r"|shared memory (?:size )?(?:too large|too big|overflow)"),
    rule("dynamic_smem_attribute", "smem_limit",
       r"MaxDynamicSharedMemorySize.{0,200}?(?:invalid argument|failed|exceed)"
       r"|cudaFuncSetAttribute.{0,200}?(?:invalid argument|failed)"
       # ggml's report of a failed call prints the call on its own line under the error
       # ("CUDA error: invalid argument" / "current device: ..." / "cudaFuncSetAttribute(k,
       # cudaFuncAttributeMaxDynamicSharedMemorySize, n)")
       r"|^\s*cudaFuncSetAttribute\(\s*\w+,\s*cudaFuncAttributeMaxDynamicSharedMemorySize\b"
       # FlashAttention's launch templates (FlashAttention 1: its fmha kernel files) raise the
       # kernel's dynamic shared-memory attribute right before the launch: "invalid argument"
       # there is a request above the card's limit
       r"|(?:flash_(?:fwd|bwd)\w*launch_template\.h|fmha_\w+\.sm\d+\.cu):\d+\)?:? "
       r"invalid argument"
       # Triton's launcher before it opted kernels in to more than 48 KB of dynamic shared
       # memory: the launch of a kernel that needs more is refused as an invalid argument (also
       # HIP's, with its code: "Triton Error [HIP]:  Code: 1, Messsage: invalid argument")
       r"|Triton Error \[(?:CUDA|HIP)\]:\s+(?:Code: \d+, Mess+age: )?invalid argument"),
    rule("smem_exceeds", "smem_limit",
       # (Metal calls it threadgroup memory: "Threadgroup memory size (40192) exceeds the
       # maximum threadgroup memory allowed (32768)")
       r"(?i)(?:shared memory|smem|threadgroup memory)\b[^.]{0,80}?\bexceed(?:s|ed)?\b"
       r"|\bexceeds? (?:the )?(?:max\w* )?"
       r"(?:available )?(?:shared memory|smem|threadgroup memory)", keywords=("xceed",)),
    # ggml's flash-attention kernels asking the occupancy API how many blocks fit on an SM: none
    # does with the shared memory the kernel asks ("GGML_ASSERT(max_blocks_per_sm > 0) failed")
    rule("no_block_fits", "smem_limit", r"\bGGML_ASSERT\(max_blocks_per_sm > 0\)",
       keywords=("max_blocks_per_sm",)),
)
# fmt: on
