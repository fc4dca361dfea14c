"""The HTML matrix in a real headless Chromium: coloured cells and hover titles render."""

from __future__ import annotations

import html.parser
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from pytest_blackwell.report.matrix import Cell, Observation, apply_baseline, build_matrix
from pytest_blackwell.report.render import render_html

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
PASS_RGB = (46, 160, 67)
FAIL_RGB = (207, 34, 46)
ERROR = 'out of resource: shared memory, Required: 232448, Hardware limit: 101376 <"&">'


def browser() -> str:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    pytest.skip(f"no browser executable installed (looked for {', '.join(BROWSERS)})")


def run_browser(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [
        browser(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture
def page(tmp_path: Path) -> Path:
    matrix = build_matrix(
        [
            Observation("t::test_generate", "kv=auto", "GPU A (sm_120)", Cell("pass")),
            Observation(
                "t::test_generate",
                "kv=fp8",
                "GPU A (sm_120)",
                Cell("fail", "smem_limit", "compile", ERROR),
            ),
            Observation("t::test_generate", "kv=auto", "GPU B (sm_90)", Cell("pass")),
            Observation("t::test_generate", "kv=fp8", "GPU B (sm_90)", Cell("skip")),
        ]
    )
    apply_baseline(matrix, {("t::test_generate", "kv=fp8", "GPU A (sm_120)"): Cell("pass")})
    path = tmp_path / "matrix.html"
    path.write_text(render_html(matrix), encoding="utf-8")
    return path


class _Cells(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.cells: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "td" and "cell" in (dict(attrs).get("class") or ""):
            self.cells.append(dict(attrs))


def test_dom_has_coloured_cells_with_titles(page: Path, tmp_path: Path) -> None:
    done = run_browser(tmp_path, "--dump-dom", page.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    parser = _Cells()
    parser.feed(done.stdout)
    classes = [c["class"] for c in parser.cells]
    assert classes == ["cell pass new", "cell pass new", "cell fail regression", "cell skip new"]
    fail = parser.cells[2]
    assert fail["title"] == f"regression: was pass\n{ERROR}"


def test_screenshot_shows_pass_and_fail_colours(page: Path, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    done = run_browser(tmp_path, f"--screenshot={shot}", "--window-size=1000,600", page.as_uri())
    assert shot.is_file(), done.stderr[-2000:]
    pixels = png_pixels(shot.read_bytes())
    assert pixels.count(PASS_RGB) > 200, "green pass cells rendered"
    assert pixels.count(FAIL_RGB) > 100, "red failure cell rendered"


def png_pixels(data: bytes) -> list[tuple[int, int, int]]:
    """RGB pixels of an 8-bit, non-interlaced RGB/RGBA PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8, depth
    assert colour in (2, 6), colour
    assert interlace == 0, interlace
    channels = 3 if colour == 2 else 4
    stride = width * channels
    raw = zlib.decompress(idat)
    previous = bytearray(stride)
    pixels: list[tuple[int, int, int]] = []
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + pred) & 0xFF
        pixels += [tuple(line[i : i + 3]) for i in range(0, stride, channels)]  # type: ignore[misc]
        previous = line
    return pixels
