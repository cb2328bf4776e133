"""The layout is the architecture: layers import only downwards, no import cycles, short modules
that say what they hold, and a public API that is exactly `verify.__all__`."""
import ast
from pathlib import Path

import pytest

import verify

PACKAGE = Path(verify.__file__).parent
TOP = None  # verify.api and verify.strategies: the public API over the layers
ALLOWED = {  # room -> the rooms it may import besides itself, bottom to top
    "base": set(),
    "numerics": {"base"},
    "claims": {"base", "numerics"},
    "derivations": {"base", "numerics"},
    "experiments": {"base", "numerics"},
    "document": {"base", "numerics", "claims", "derivations"},
    "commandline": {"base", "numerics", "claims", "derivations", "experiments", "document", TOP},
}
CLAIMS_ORDER = [  # the sub-packages (and modules) of verify.claims, bottom to top: each imports only those before it
    "results", "scheduler", "executors", "language", "cases", "exact", "jobs", "prover", "record", "builtin", "claimfile",
    "search", "certificates", "verdicts",
]
MAX_LINES = 400


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        yield name, path


def _imports(path):
    """Every verify module imported anywhere in the file (top level or inside a function)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("verify")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("verify"):
            found |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in MODULES else node.module for a in node.names}
    return found


MODULES = dict(_modules())
GRAPH = {name: {m for m in _imports(path) if m in MODULES and m != name} for name, path in MODULES.items()}


def _layer(name):
    parts = name.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in ALLOWED) else None


LAYERED = sorted(name for name in MODULES if _layer(name) is not None and GRAPH[name])


def test_the_layering_cases_are_not_vacuous():
    """Every module left out of the layering cases is the top (api, strategies, __main__) or imports nothing of
    verify (checked here, so a broken import reader cannot make the layering pass on empty sets)."""
    left_out = {name for name in MODULES if name not in LAYERED}
    assert all(_layer(name) is TOP or not GRAPH[name] for name in left_out)
    assert len(LAYERED) > len(MODULES) // 2, (len(LAYERED), len(MODULES))
    assert GRAPH["verify.claims.verdicts.decide"] and GRAPH["verify.commandline.cli"]


@pytest.mark.parametrize("name", LAYERED)
def test_each_layer_imports_only_downwards(name):
    layer = _layer(name)
    assert layer is not None and GRAPH[name], f"{name}: a layering case with no imports to check"
    for target in GRAPH[name]:
        assert _layer(target) in ALLOWED[layer] | {layer}, f"{name} ({layer}) imports {target}"


def _claims_room(name):
    parts = name.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "claims" else None


CLAIMS_MODULES = sorted(name for name in MODULES if _claims_room(name) is not None)


def test_claims_order_names_every_room_of_claims():
    assert {_claims_room(name) for name in CLAIMS_MODULES} == set(CLAIMS_ORDER)


def test_the_claims_order_is_non_vacuous():
    """The order inside claims/ is tested on real imports: most of its modules import another room of claims/."""
    crossing = [name for name in CLAIMS_MODULES
                if any(_claims_room(t) not in (None, _claims_room(name)) for t in GRAPH[name])]
    assert len(crossing) >= len(CLAIMS_MODULES) // 3, crossing


@pytest.mark.parametrize("name", CLAIMS_MODULES)
def test_claims_rooms_import_only_downwards(name):
    """Inside claims/, a room imports only rooms before it in CLAIMS_ORDER: no arrow runs back up."""
    room = CLAIMS_ORDER.index(_claims_room(name))
    for target in GRAPH[name]:
        other = _claims_room(target)
        if other is not None and other != CLAIMS_ORDER[room]:
            assert CLAIMS_ORDER.index(other) < room, f"{name} ({CLAIMS_ORDER[room]}) imports {target} ({other}): upward"


def test_the_top_of_the_package_is_the_api_alone():
    """verify/ itself holds only the public API; everything else lives in a room of ALLOWED."""
    top = {name for name in MODULES if _layer(name) is TOP and name.count(".") == 1}
    assert top == {"verify.api", "verify.strategies", "verify.__main__"}, top


def test_no_import_cycle():
    state = {}

    def visit(node, stack):
        state[node] = "open"
        for target in GRAPH[node]:
            if target.startswith(node + ".") or node.startswith(target + "."):
                continue  # a package and its own submodules
            if state.get(target) == "open":
                raise AssertionError("import cycle: " + " -> ".join(stack + [node, target]))
            if target not in state:
                visit(target, stack + [node])
        state[node] = "done"

    for name in sorted(GRAPH):
        if name not in state:
            visit(name, [])


@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_are_short_and_say_what_they_hold(name):
    source = MODULES[name].read_text()
    assert len(source.splitlines()) <= MAX_LINES, f"{name} has {len(source.splitlines())} lines"
    assert ast.get_docstring(ast.parse(source)), f"{name} has no module docstring"


def test_public_api_is_exactly_all_and_documented():
    """`__all__` is stated once (in verify/__init__.py): every name is api's own object, documented, and
    every public function api defines is in it."""
    for name in verify.__all__:
        value = getattr(verify, name)
        assert value.__doc__, f"verify.{name} has no docstring"
    from verify import api

    assert not hasattr(api, "__all__")
    for name in verify.__all__:
        assert getattr(verify, name) is getattr(api, name)
    defined_here = {n for n, v in vars(api).items() if callable(v) and getattr(v, "__module__", "") == "verify.api"
                    and not n.startswith("_")}
    assert defined_here <= set(verify.__all__)
    with pytest.raises(AttributeError):
        verify.not_a_public_name  # noqa: B018


@pytest.mark.parametrize("front", ["verify.commandline.cli", "verify.commandline.arguments"])
def test_the_command_line_goes_through_the_public_api(front):
    """The CLI is thin: its options are checked by verify.base.options, its work done by verify.api."""
    assert not {m for m in GRAPH[front] if m.startswith(("verify.claims", "verify.numerics"))}, GRAPH[front]


def test_a_verdict_is_made_only_by_verdict_of():
    """Every `Verdict(...)` call in the package sits in verify.claims.verdicts.decide.verdict_of; no module spells a
    verdict as a string to compare ("PROVED" and its kin appear only as VerdictKind values)."""
    makers = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text())
        for function in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)] + [tree]:
            calls = [n for n in ast.walk(function) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "Verdict"]
            if calls and function is not tree:
                makers.append((name, function.name))
    assert set(makers) == {("verify.claims.verdicts.decide", "verdict_of")}, makers


def test_a_verdict_is_no_string():
    from verify.claims.results import VerdictKind
    from verify.claims.verdicts.decide import verdict_of

    proved = verdict_of("proved", assumptions=("a", "b"))
    assert proved.kind is VerdictKind.PROVED and proved.assumptions == ("a", "b")
    assert str(proved) == proved.text == "PROVED assuming a, b"
    assert proved == verdict_of("proved", assumptions=("a", "b")) != verdict_of("proved")
    for kind in VerdictKind:
        with pytest.raises(TypeError):
            proved == kind.value  # noqa: B015
    with pytest.raises(ValueError):
        verdict_of("holds", assumptions=("a",))
