"""The layers of simulacra import each other one way only: no cycle among its packages."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "simulacra"


def unit(module: str) -> str:
    """simulacra.cognition.plan -> simulacra.cognition; simulacra.agent stays itself."""
    return ".".join(module.split(".")[:2])


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if module == "simulacra.__init__":
            continue  # the package's front door re-exports; nothing inside imports it
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("simulacra"):
                if node.module == "simulacra":
                    deps.update(f"simulacra.{alias.name}" for alias in node.names)
                else:
                    deps.add(node.module)
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names if a.name.startswith("simulacra"))
        graph.setdefault(unit(module), set()).update(
            unit(d) for d in deps if unit(d) != unit(module)
        )
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str] | None:
        if node in path:
            return path[path.index(node) :] + [node]
        if node in done:
            return None
        for dep in sorted(graph.get(node, ())):
            found = visit(dep, [*path, node])
            if found:
                return found
        done.add(node)
        return None

    for node in sorted(graph):
        found = visit(node, [])
        if found:
            return found
    return None


def test_no_import_cycle_among_the_packages():
    graph = import_graph()
    assert "simulacra.agent" not in graph["simulacra.cognition"]
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph))


def test_the_cycle_finder_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
