"""Markers as plain functions: parse and validate them into requirement objects.

Hardware markers (``sm120``, ``requires_smem``, ...), hardware features (``requires_feature``)
and software versions (``requires_cuda``, ``requires_driver``, ``requires_package``) all become
:class:`Requirement` objects that a device list satisfies or not. Nothing here holds pytest
state; the plugin adds the test's node id to every :class:`MarkerError`.
"""

from __future__ import annotations

from pytest_blackwell.markers.base import MarkerError, MarkInput, Requirement
from pytest_blackwell.markers.hardware import (
    ARCH_MARKERS,
    FAMILY_MARKERS,
    SMEM_SCOPES,
    ArchRequirement,
    CapabilityRequirement,
    GpuCountRequirement,
    GpuMemoryRequirement,
    SmemRequirement,
)
from pytest_blackwell.markers.registry import (
    HARDWARE_MARKERS,
    MARKER_HELP,
    is_hardware_marker,
    parse_marker_definition,
    parse_requirements,
    unmet,
)

__all__ = [
    "ARCH_MARKERS",
    "FAMILY_MARKERS",
    "HARDWARE_MARKERS",
    "MARKER_HELP",
    "SMEM_SCOPES",
    "ArchRequirement",
    "CapabilityRequirement",
    "GpuCountRequirement",
    "GpuMemoryRequirement",
    "MarkInput",
    "MarkerError",
    "Requirement",
    "SmemRequirement",
    "is_hardware_marker",
    "parse_marker_definition",
    "parse_requirements",
    "unmet",
]
