"""One name per concept: no two classes of the package share a name, so a name read anywhere
(a traceback, a review, a search) means one thing."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "simulacra"


def class_names(package: Path = PACKAGE) -> dict[str, list[str]]:
    """Every class defined in the package (nested ones too), by name: where each is."""
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                found[node.name].append(f"{path.relative_to(package.parent)}:{node.lineno}")
    return found


def test_no_two_classes_share_a_name():
    shared = {name: places for name, places in class_names().items() if len(places) > 1}
    assert not shared, "classes defined more than once: " + "; ".join(
        f"{name} ({', '.join(places)})" for name, places in sorted(shared.items())
    )


def test_the_check_finds_a_name_defined_twice(tmp_path):
    (tmp_path / "a.py").write_text("class Town:\n    pass\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("def f():\n    class Town:\n        pass\n", encoding="utf-8")
    assert class_names(tmp_path)["Town"] == [f"{tmp_path.name}/a.py:1", f"{tmp_path.name}/b.py:2"]
