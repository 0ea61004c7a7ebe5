"""The import rules of DESIGN.md: imports point one way, and `rules` stays pure."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("rules", "calibration", "vision", "tracking", "hardware", "railbird")

# What each package may import from the project (itself always allowed).
ALLOWED = {
    "rules": set(),
    "calibration": {"rules"},
    "vision": {"calibration", "rules"},
    "tracking": {"vision", "calibration", "rules"},
    "hardware": {"calibration", "rules"},
    "railbird": set(PACKAGES) - {"railbird"},
}


def _project_imports(package: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in PACKAGES and top != package:
                    found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_imports_point_one_way(package: str) -> None:
    imported = _project_imports(package)
    forbidden = {k: v for k, v in imported.items() if k not in ALLOWED[package]}
    assert not forbidden, f"{package} imports {forbidden}, against DESIGN.md's import rules"


def test_importing_rules_pulls_in_no_heavy_library() -> None:
    code = (
        "import sys, rules, rules.codec, rules.events, rules.shot\n"
        "heavy = [m for m in ('numpy', 'cv2', 'filterpy', 'serial', 'scipy') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert result.stdout.strip() == ""


def test_rules_source_never_names_a_heavy_library() -> None:
    heavy = {"numpy", "cv2", "filterpy", "serial", "scipy"}
    for path in (ROOT / "rules").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                tops = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                tops = {node.module.split(".")[0]}
            else:
                continue
            assert not tops & heavy, f"{path.name} imports {tops & heavy}"
