"""Kernel driver lines of the rule table, tried after every known cause and before the relays.

NVIDIA's driver (``NVRM: Xid``), a lost device, the host kernel's oops and its OOM killer, and a
kernel the driver's watchdog stopped: what the operating system saw of a process's GPU, which an
engine's own words (a cause in :data:`pytest_blackwell.failures.rules.CAUSES`) explain better.
"""

from __future__ import annotations

from pytest_blackwell.failures.rule import Rule, rule

# fmt: off
#: Kernel driver rules, in the order they are tried.
DRIVER_RULES: tuple[Rule, ...] = (
    # (an Xid is also relayed by Kubernetes' device plugin as it marks the GPU unhealthy:
    # "XidCriticalError: Xid=69 on Device=GPU-..., the device will go unhealthy.")
    rule("xid_fault", "illegal_memory_access",
       r"NVRM: Xid \([^)]*\): (?P<xid>13|31|32|43|69)\b"
       r"|\bXidCriticalError: Xid=(?P<xid__2>13|31|32|43|69)\b", keywords=("Xid",)),
    # the host's IOMMU refusing a device's access to memory not mapped for it: AMD's "AMD-Vi:
    # Event logged [IO_PAGE_FAULT domain=0x0003 address=0x8000 flags=0x0020]", Intel's "DMAR:
    # [DMA Read NO_PASID] Request device [07:00.0] fault addr 0x9e139000"
    rule("iommu_fault", "illegal_memory_access",
       r"\bEvent logged \[IO_PAGE_FAULT\b"
       r"|\bDMAR: \[DMA (?:Read|Write)\b[^\]]*\] Request device \[[\w:.]+\] fault addr\b",
       keywords=("IO_PAGE_FAULT", "fault addr")),
    rule("xid_timeout", "timeout",
       r"NVRM: Xid \([^)]*\): (?P<xid>8|109)\b|NVRM: Xid \([^)]*\): (?P<xid__2>\d+)\b.{0,200}?"
       r"(?i:timeout)\b|\bXidCriticalError: Xid=(?P<xid__3>8|109)\b", keywords=("Xid",)),
    rule("gpu_lost", "unknown",
       r"NVRM: Xid \([^)]*\): (?P<xid>\d+)|fallen off the bus|NVRM: .{0,80}?(?:failed|error)"
       r"|\bXidCriticalError: Xid=(?P<xid__2>\d+)"
       # Vulkan's lost device (vk::DeviceLostError, VK_ERROR_DEVICE_LOST, its result -4)
       r"|\bDeviceLostError\b|\bErrorDeviceLost\b|\bVK_ERROR_DEVICE_LOST\b"
       r"|\bvk[A-Z]\w+ failed -4\b",
       keywords=("Xid", "off the bus", "NVRM", "DeviceLost", "DEVICE_LOST", "failed -4")),
    # the host kernel's own oops (in a driver's code, as "RIP: ... [nvidia]" then says): a driver
    # event that fits no category
    rule("kernel_oops", "unknown",
       r"\bBUG: kernel NULL pointer dereference\b|\bBUG: unable to handle (?:kernel )?page fault\b"
       r"|\bkernel BUG at \S+:\d+", keywords=("BUG: ", "kernel BUG")),
    # the kernel's OOM killer ending a process (host memory): a death, not a device allocation
    rule("oom_killer", "engine_died",
       r"\boom-kill:constraint=|\bOut of memory: Killed process \d+|\binvoked oom-killer\b"
       r"|\bFailed with result 'oom-kill'"  # systemd's unit, its process killed by the OOM killer
       r"|^\s*Reason:\s+OOMKilled\s*$",  # (kubectl's description of a container it killed so)
       keywords=("oom-kill", "Killed process", "OOMKilled")),
    # a kernel stopped by the driver's watchdog for running too long (cudaErrorLaunchTimeout,
    # 702): no progress, even when an NCCL watchdog is the one that reports it
    # (Metal's: a command buffer macOS stopped for holding the GPU from the display too long,
    # "Command buffer execution failed: Impacting Interactivity")
    rule("launch_timeout", "timeout",
       r"launch timed out and was terminated|cudaErrorLaunchTimeout|CUDA_ERROR_LAUNCH_TIMEOUT"
       r"|\bCommand buffer execution failed: (?:Impacting Interactivity|Caused GPU Timeout)\b"
       r"|\bkIOGPUCommandBufferCallbackErrorTimeout\b"
       r"|\bkIOGPUCommandBufferCallbackErrorImpactingInteractivity\b"
       # (or a hang the GPU's own watchdog saw: "Caused GPU Hang Error (00000003:kIOGPUCommand
       # BufferCallbackErrorHang)")
       r"|\bkIOGPUCommandBufferCallbackErrorHang\b|\bCaused GPU Hang Error\b"
       # DirectX's device hung (DXGI_ERROR_DEVICE_HUNG, HRESULT 887A0006, as DirectML reports
       # it): the GPU stopped answering a command list and Windows reset it
       r"|\bDXGI_ERROR_DEVICE_HUNG\b|\b(?:0x)?887[Aa]0006\b",
       keywords=("launch timed out", "LaunchTimeout", "LAUNCH_TIMEOUT", "Interactivity",
                 "GPU Timeout", "ErrorTimeout", "DEVICE_HUNG", "887A0006", "GPU Hang", "ErrorHang",
                 "887a0006")),
)
# fmt: on
