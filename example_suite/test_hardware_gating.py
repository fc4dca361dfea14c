"""Shared-memory gating: a kernel tile that fits a datacenter part but not sm_120.

These tests need no engine: run them with a simulated device to see the gating work, e.g.
``pytest example_suite --blackwell-device rtx-pro-6000`` versus ``--blackwell-device b200``.
"""

from __future__ import annotations

import pytest

# A 128x256 FP8 tile with 4 pipeline stages needs about 160 KB of shared memory per block.
TILE_SMEM_KB = 160


@pytest.mark.requires_smem(kb=TILE_SMEM_KB)
def test_large_tile_config_fits(blackwell_device):
    assert blackwell_device.smem_per_block_optin_bytes >= TILE_SMEM_KB * 1024


@pytest.mark.sm120
@pytest.mark.requires_smem(kb=99)
def test_sm120_small_tile_fits_99kb(blackwell_device):
    # Consumer Blackwell: 99 KB per block, so the 160 KB tile must be re-tuned, not reused.
    assert blackwell_device.smem_per_block_optin_bytes < TILE_SMEM_KB * 1024


@pytest.mark.sm100
def test_sm100_is_never_sm120(blackwell_device):
    assert blackwell_device.compute_capability == (10, 0)


@pytest.mark.datacenter_blackwell
def test_declared_datacenter_marker(blackwell_device):
    assert blackwell_device.compute_capability[0] == 10


@pytest.mark.big_smem
def test_marker_declared_in_ini(blackwell_device):
    assert blackwell_device.smem_per_block_optin_bytes >= 200 * 1024
