"""Hardware features per compute capability: what kernel authors really gate their tests on.

The table is data. Each feature is either available *from* a compute capability on (the
instruction is part of every later architecture's ISA) or only *on* an explicit list of
architectures (architecture-specific instructions, compiled for ``sm_90a`` / ``sm_100a`` /
``sm_120a`` targets, that later architectures do not inherit). The sources are NVIDIA's PTX ISA
("Target ISA notes" of each instruction) and the CUDA Programming Guide's compute-capability
tables; docs/features.md cites them per row.

The consumer Blackwell case is why this exists: sm_120/sm_121 have FP8, block-scaled FP4/FP6/FP8
MMA, TMA and thread-block clusters, but neither ``tcgen05`` (tensor memory) nor ``wgmma``.
"compute capability >= 10" is the right gate for none of those.

A device can declare more features (a custom profile or the device-profile hook) with
``extra={"features": ["name", ...]}``; such names become known to ``requires_feature``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pytest_blackwell.device.model import DeviceInfo

CC = tuple[int, int]

#: Key of ``DeviceInfo.extra`` holding the features a device declares beyond the table.
EXTRA_KEY = "features"


@dataclass(frozen=True)
class Feature:
    """One hardware feature: available from ``since`` on, or only on the ``only`` list."""

    name: str
    description: str
    since: CC | None = None
    only: tuple[CC, ...] = ()
    source: str = ""

    def available(self, cc: CC | None) -> bool:
        if cc is None:
            return False
        if self.only:
            return cc in self.only
        return self.since is not None and cc >= self.since

    def requirement_text(self) -> str:
        """Where the feature exists, e.g. ``compute capability >= 8.9`` or ``sm_90 only``."""
        if self.only:
            return " / ".join(f"sm_{a}{b}" for a, b in self.only) + " only"
        assert self.since is not None
        return f"compute capability >= {self.since[0]}.{self.since[1]}"


#: sm_100 (B200/GB200), sm_103 (B300/GB300), sm_110 (Jetson Thor; sm_101 before CUDA 13).
_TCGEN05_ARCHS: tuple[CC, ...] = ((10, 0), (10, 3), (11, 0))
#: Block-scaled MMA: tcgen05.mma on the datacenter parts, mma.sync on the RTX/GB10 parts.
_BLOCK_SCALED_ARCHS: tuple[CC, ...] = (*_TCGEN05_ARCHS, (12, 0), (12, 1))

_PTX = "PTX ISA, Target ISA notes of"

#: The built-in table, keyed by feature name.
FEATURES: dict[str, Feature] = {
    f.name: f
    for f in (
        Feature(
            "tensor_cores",
            "FP16 tensor-core MMA (mma.sync / wmma .f16)",
            since=(7, 0),
            source=f"{_PTX} wmma and mma (sm_70)",
        ),
        Feature(
            "int8",
            "INT8 tensor-core MMA",
            since=(7, 2),
            source=f"{_PTX} wmma .s8/.u8 (sm_72); mma .s8 (sm_75)",
        ),
        Feature(
            "bf16",
            "BF16 tensor-core MMA and native bfloat16 arithmetic",
            since=(8, 0),
            source=f"{_PTX} mma .bf16 (sm_80)",
        ),
        Feature(
            "tf32",
            "TF32 tensor-core MMA",
            since=(8, 0),
            source=f"{_PTX} mma .tf32 (sm_80)",
        ),
        Feature(
            "sparse_mma",
            "2:4 structured-sparsity tensor-core MMA (mma.sp)",
            since=(8, 0),
            source=f"{_PTX} mma.sp (sm_80)",
        ),
        Feature(
            "cp_async",
            "asynchronous global-to-shared copies (cp.async)",
            since=(8, 0),
            source=f"{_PTX} cp.async (sm_80)",
        ),
        Feature(
            "fp8",
            "FP8 (E4M3/E5M2) tensor-core MMA",
            since=(8, 9),
            source=f"{_PTX} mma with .e4m3/.e5m2 (sm_89)",
        ),
        Feature(
            "tma",
            "Tensor Memory Accelerator: bulk tensor copies (cp.async.bulk.tensor)",
            since=(9, 0),
            source=f"{_PTX} cp.async.bulk.tensor (sm_90)",
        ),
        Feature(
            "clusters",
            "thread-block clusters and distributed shared memory",
            since=(9, 0),
            source="CUDA Programming Guide, Thread Block Clusters (compute capability 9.0)",
        ),
        Feature(
            "wgmma",
            "warpgroup MMA (Hopper; needs an sm_90a build)",
            only=((9, 0),),
            source=f"{_PTX} wgmma.mma_async (sm_90a)",
        ),
        Feature(
            "tcgen05",
            "5th-generation tensor-core instructions with tensor memory (TMEM)",
            only=_TCGEN05_ARCHS,
            source=f"{_PTX} tcgen05.mma (sm_100a, sm_101a/sm_110a, sm_103a)",
        ),
        Feature(
            "nvfp4",
            "block-scaled FP4 MMA with E4M3 scales (NVFP4)",
            only=_BLOCK_SCALED_ARCHS,
            source=f"{_PTX} tcgen05.mma kind::mxf4nvf4 and mma.sync kind::mxf4nvf4 (sm_120a)",
        ),
        Feature(
            "mxfp4",
            "block-scaled FP4 MMA with E8M0 scales (MXFP4)",
            only=_BLOCK_SCALED_ARCHS,
            source=f"{_PTX} tcgen05.mma kind::mxf4 and mma.sync kind::mxf4 (sm_120a)",
        ),
        Feature(
            "mxfp8",
            "block-scaled FP8 MMA with E8M0 scales (MXFP8)",
            only=_BLOCK_SCALED_ARCHS,
            source=f"{_PTX} tcgen05.mma and mma.sync kind::mxf8f6f4 (sm_120a)",
        ),
        Feature(
            "fp6",
            "FP6 (E3M2/E2M3) tensor-core MMA",
            only=_BLOCK_SCALED_ARCHS,
            source=f"{_PTX} kind::f8f6f4 / kind::mxf8f6f4 (sm_100a, sm_120a)",
        ),
    )
}

#: Other names kernel authors use for the same features.
ALIASES: dict[str, str] = {
    "tmem": "tcgen05",
    "fp4": "nvfp4",
    "block_scaled_mma": "mxfp8",
    "thread_block_clusters": "clusters",
    "fp16": "tensor_cores",
}


def canonical(name: str) -> str:
    """The table's name for ``name`` (aliases resolved, case and dashes forgiven)."""
    key = name.strip().lower().replace("-", "_")
    return ALIASES.get(key, key)


def declared(device: DeviceInfo) -> list[str]:
    """Feature names a device declares beyond the table (``extra["features"]``)."""
    raw = device.extra.get(EXTRA_KEY) or []
    if isinstance(raw, str):
        raw = [raw]
    return [canonical(str(name)) for name in raw]


def known_names(devices: Iterable[DeviceInfo] = ()) -> list[str]:
    """Every feature name ``requires_feature`` accepts: the table's, then devices' own."""
    names = list(FEATURES)
    for device in devices:
        names.extend(n for n in declared(device) if n not in names)
    return names


def features_of(device: DeviceInfo) -> list[str]:
    """The features a device has, in table order, then the ones it declares."""
    cc = device.compute_capability
    have = [name for name, feature in FEATURES.items() if feature.available(cc)]
    have.extend(n for n in declared(device) if n not in have)
    return have


def missing(device: DeviceInfo, names: Sequence[str]) -> list[str]:
    """Of ``names`` (canonical), those the device lacks."""
    have = set(features_of(device))
    return [n for n in names if n not in have]
