"""The layering contract: the game core, vision and datasets know no Qt and no UI.

Walks every import statement (module level and inside functions) of our own code and
follows imports between our own modules, so an indirect path is caught too. import-linter
cannot see these packages: pyproject maps top-level folders into the `blitzcam` namespace.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {
    "blitzcam": ROOT / "blitzcam",
    "blitzcam.game": ROOT / "game",
    "blitzcam.vision": ROOT / "vision",
    "blitzcam.ui": ROOT / "ui",
    "blitzcam.datasets": ROOT / "datasets",
    "blitzcam.models": ROOT / "models",
}


def _module_files() -> dict[str, Path]:
    modules = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join((package, *parts))] = path
    return modules


MODULES = _module_files()


@cache
def direct_imports(module: str) -> frozenset[str]:
    path = MODULES[module]
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return frozenset(found)


def reachable_imports(module: str) -> dict[str, str]:
    """Every name imported from `module`, directly or through our own modules -> via whom."""
    seen: dict[str, str] = {}
    stack = [module]
    while stack:
        current = stack.pop()
        for name in direct_imports(current):
            if name in seen:
                continue
            seen[name] = current
            if name in MODULES and name != module:
                stack.append(name)
    return seen


def _forbidden(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


CONTRACTS = [
    # (layer, forbidden imports)
    ("blitzcam.game", ("PySide6", "blitzcam.ui", "blitzcam.vision", "blitzcam.datasets", "cv2",
                       "ultralytics", "torch")),
    ("blitzcam.vision", ("PySide6", "blitzcam.ui")),
    ("blitzcam.datasets", ("PySide6", "blitzcam.ui")),
]


@pytest.mark.parametrize(("layer", "forbidden"), CONTRACTS, ids=[c[0] for c in CONTRACTS])
def test_layer_does_not_import_forbidden_modules(layer: str, forbidden: tuple[str, ...]) -> None:
    modules = [m for m in MODULES if m == layer or m.startswith(layer + ".")]
    assert modules, f"no modules found for {layer}"
    broken = []
    for module in modules:
        for name, via in reachable_imports(module).items():
            if _forbidden(name, forbidden):
                broken.append(f"{module} imports {name} (via {via})")
    assert not broken, "\n".join(sorted(broken))


def test_the_walker_sees_indirect_imports() -> None:
    # the contract test is only as good as the walker: the CLI reaches the game core through commands
    assert "blitzcam.game.rules" in reachable_imports("blitzcam.commands.match")
    assert "sqlite3" in reachable_imports("blitzcam.commands.match")


def test_openvino_is_imported_in_one_place_only() -> None:
    # vision/onnx_session.py imports it with its telemetry left out; anywhere else would not
    importers = sorted(
        m for m in MODULES if any(_forbidden(n, ("openvino", "openvino_telemetry"))
                                  for n in direct_imports(m))
    )
    assert importers == ["blitzcam.vision.onnx_session"]


def test_every_python_package_is_in_the_distribution() -> None:
    # an installed (not editable) blitzcam lacked blitzcam.commands: `blitzcam` failed to start
    import tomllib

    from blitzcam.paths import REPO_ROOT

    tool = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(tool["packages"])
    folders = {name: REPO_ROOT / folder for name, folder in tool["package-dir"].items()}
    found = set()
    for name, folder in folders.items():
        for init in folder.rglob("__init__.py"):
            parts = init.parent.relative_to(folder).parts
            if "__pycache__" not in parts and not any(p.startswith(".") for p in parts):
                found.add(".".join((name, *parts)))
    assert found - listed == set()


def test_every_package_data_pattern_names_a_file() -> None:
    # (the deck art's globs, art/*.png, outlived the folder: the art is drawn by code)
    import tomllib

    from blitzcam.paths import REPO_ROOT

    tool = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert set(tool["package-data"]) <= set(tool["packages"])  # (setuptools ignores the others)

    def folder_of(package: str) -> Path:  # (a sub-package lies in its parent's mapped folder)
        if package in tool["package-dir"]:
            return REPO_ROOT / tool["package-dir"][package]
        parent, _, name = package.rpartition(".")
        return folder_of(parent) / name

    for package, patterns in tool["package-data"].items():
        folder = folder_of(package)
        for pattern in patterns:
            assert any(folder.glob(pattern)), f"{package}: {pattern}"
