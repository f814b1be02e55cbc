"""Imports point one way: bot -> grammar -> adjudicator, and inside bot/ from the front ends down to
the store, with no circle. The rules engine does no I/O."""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FORBIDDEN = {
    "adjudicator": {"grammar", "bot", "lark", "rapidfuzz", "discord", "sqlmodel", "sqlalchemy", "apscheduler",
                    "aiohttp", "aiosmtpd", "aiosmtplib", "socket", "urllib", "http", "requests", "asyncio",
                    "subprocess", "time", "datetime"},
    "grammar": {"bot", "discord", "sqlmodel", "sqlalchemy", "apscheduler", "aiohttp", "aiosmtpd", "aiosmtplib",
                "socket", "urllib", "http", "requests"},
}


def imported_modules(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_point_one_way(package):
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"no Python files in {package}/"
    offenders = {
        str(f.relative_to(ROOT)): sorted(imported_modules(f) & FORBIDDEN[package])
        for f in files
        if imported_modules(f) & FORBIDDEN[package]
    }
    assert offenders == {}, f"{package}/ must not import these: {offenders}"


def test_the_check_sees_a_forbidden_import(tmp_path):
    sample = tmp_path / "x.py"
    sample.write_text("import discord\nfrom sqlmodel import Field\nfrom . import sibling\n")
    assert imported_modules(sample) & FORBIDDEN["adjudicator"] == {"discord", "sqlmodel"}


# -- the import graph of the project's own modules ---------------------------------------------

PACKAGES = ("adjudicator", "grammar", "bot")
# bot's packages from the bottom up: each imports only the ones before it (and never a later one).
# app knows the front ends only by name (FRONT_END_MODULES).
BOT_LAYERS = ("codec", "store", "render", "service", "archive", "app", "frontends", "cli")


def project_modules(root: pathlib.Path = ROOT) -> dict[str, pathlib.Path]:
    modules = {}
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:``: imports for annotations, never run."""
    hidden = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            hidden.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return hidden


def import_graph(modules: dict[str, pathlib.Path], *, runtime_only: bool) -> dict[str, set[str]]:
    """Module -> the project's modules it imports, at the top or inside a function."""

    def owner(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        hidden = _type_checking_only(tree) if runtime_only else set()
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(tree):
            if id(node) in hidden:
                continue
            if isinstance(node, ast.Import):
                targets.update(owner(alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(parts + ([node.module] if node.module else []))
                for alias in node.names:  # ``from pkg import submodule`` imports the submodule
                    full = f"{base}.{alias.name}"
                    targets.add(full if full in modules else owner(base))
        graph[name] = targets - {None, name}
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every group of modules that import one another round a circle (Tarjan's components)."""
    index, low, stack, on_stack, circles = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while not group or group[-1] != v:
                group.append(stack.pop())
                on_stack.discard(group[-1])
            if len(group) > 1:
                circles.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return circles


def test_no_import_circle_anywhere_in_the_project():
    """Not within a package, not across packages, not through an import inside a function."""
    assert import_circles(import_graph(project_modules(), runtime_only=False)) == []


def test_the_circle_finder_finds_a_circle_through_a_rule_module(tmp_path):
    (tmp_path / "adjudicator" / "plugin").mkdir(parents=True)
    (tmp_path / "adjudicator" / "__init__.py").write_text("")
    (tmp_path / "adjudicator" / "core.py").write_text("def f():\n    from .plugin import rules\n")
    (tmp_path / "adjudicator" / "plugin" / "__init__.py").write_text("")
    (tmp_path / "adjudicator" / "plugin" / "rules.py").write_text("from ..core import f\n")
    modules = {k: v for k, v in project_modules(tmp_path).items() if k.startswith("adjudicator")}
    assert import_circles(import_graph(modules, runtime_only=True)) == [["adjudicator.core", "adjudicator.plugin.rules"]]


@pytest.mark.parametrize("package", ["adjudicator", "grammar", "bot"])
def test_no_import_circle(package):
    graph = import_graph(project_modules(), runtime_only=True)
    circles = [c for c in import_circles(graph) if c[0].split(".")[0] == package]
    assert circles == [], f"modules of {package}/ that import one another in a circle: {circles}"


def test_bots_packages_import_only_the_layers_below():
    modules = project_modules()
    layer = {f"bot.{name}": rank for rank, name in enumerate(BOT_LAYERS)}

    def layer_of(module: str) -> str | None:
        return next((p for p in layer if module == p or module.startswith(p + ".")), None)

    assert {layer_of(m) for m in modules if m.startswith("bot.")} == set(layer), "a package of bot/ has no layer"
    upward = sorted(f"{a} imports {b}" for a, targets in import_graph(modules, runtime_only=False).items()
                    for b in targets if layer_of(a) and layer_of(b) and layer[layer_of(b)] > layer[layer_of(a)])
    assert upward == [], f"imports against the layers {' < '.join(BOT_LAYERS)}: {upward}"


def test_the_graph_sees_circles_and_layers(tmp_path):
    for path, text in {"bot/__init__.py": "", "bot/store/__init__.py": "", "bot/cli/__init__.py": "",
                       "bot/store/a.py": "from . import b\n", "bot/store/b.py": "def f():\n    from .a import x\n",
                       "bot/store/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from bot.cli import d\n",
                       "bot/cli/d.py": "from bot.store import c\n", "adjudicator/__init__.py": "",
                       "grammar/__init__.py": ""}.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    modules = project_modules(tmp_path)
    assert import_circles(import_graph(modules, runtime_only=True)) == [["bot.store.a", "bot.store.b"]]
    assert "bot.cli.d" in import_graph(modules, runtime_only=False)["bot.store.c"]


# -- the rule-module seam ----------------------------------------------------------------------


def _rule_packages(modules: dict[str, pathlib.Path]) -> set[str]:
    """The packages inside adjudicator/ that register a rule module when imported."""
    return {name for name, path in modules.items()
            if name.startswith("adjudicator.") and path.name == "__init__.py"
            and "register(" in path.read_text(encoding="utf-8")}


def test_a_rule_module_imports_the_core_and_the_core_never_imports_a_rule_module():
    modules = project_modules()
    packages = _rule_packages(modules)
    assert packages == {"adjudicator.prestige"}

    def inside(module: str) -> bool:
        return any(module == p or module.startswith(p + ".") for p in packages)

    graph = import_graph(modules, runtime_only=False)
    core = [m for m in modules if m.split(".")[0] == "adjudicator" and not inside(m)]
    assert sorted(f"{m} imports {t}" for m in core for t in graph[m] if inside(t)) == []
    assert any(t.startswith("adjudicator.") and not inside(t) for t in graph["adjudicator.prestige"])


def test_every_rule_module_registers_itself_and_answers_every_hook_as_the_classic_rules_do():
    from adjudicator.hooks import CLASSIC, RuleHooks
    from adjudicator.modules import all_rule_modules, known_rules, rule_module

    hooks = {name for name in vars(RuleHooks) if not name.startswith("_")}
    assert {"before_movement", "commanders", "supplied_by"} <= hooks
    assert all(callable(getattr(CLASSIC, name, None)) for name in hooks)
    for name in known_rules():
        module = rule_module(name)
        assert module.name == name and module in all_rule_modules()
        assert sorted(h for h in hooks if not callable(getattr(module.hooks, h, None))) == [], name


# -- the front ends ask a rule module, and never look inside it -------------------------------

EVENTS_OF_A_MODULE = ("rule", "rule_year")
"""The fields of :class:`adjudicator.events.Events` that hold a rule module's own value."""


def module_reads(path: pathlib.Path, packages: set[str], names: set[str]) -> list[str]:
    """Where the file at ``path`` imports a rule module (one of ``packages``) or reads a rule
    module's state: a position's ``modules`` (each module's state), the old field of a module's
    state (an attribute of a module's name, ``names``), :func:`adjudicator.position.module_state`,
    or a field inside a module's events value (``events.rule.bribed``)."""

    def rule_package(module: str) -> bool:
        return any(module == p or module.startswith(p + ".") for p in packages)

    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        what = None
        if isinstance(node, ast.Import):
            what = next((a.name for a in node.names if rule_package(a.name)), None)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            full = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            what = next((m for m in full if rule_package(m)), None)
            if what is None and "module_state" in {a.name for a in node.names}:
                what = "module_state"
        elif isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)) and node.args \
                and (getattr(node.func, "id", None) or getattr(node.func, "attr", None)) in ("import_module", "__import__") \
                and isinstance(node.args[0], ast.Constant) and rule_package(str(node.args[0].value)):
            what = str(node.args[0].value)
        elif isinstance(node, ast.Attribute):
            if node.attr == "modules" or node.attr in names or node.attr == "module_state":
                what = f".{node.attr}"
            elif isinstance(node.value, ast.Attribute) and node.value.attr in EVENTS_OF_A_MODULE:
                what = f".{node.value.attr}.{node.attr}"
        elif isinstance(node, ast.Name) and node.id == "module_state":
            what = "module_state"
        if what is not None:
            found.append(f"{node.lineno}: {what}")
    return found


def test_bot_imports_no_rule_module_and_reads_no_rule_modules_state():
    """The front ends, the service and the store ask the rule module through
    :mod:`adjudicator.modules` (its orders in words, its marks, its lords, its report, its
    standings column, its seed) and the engine's turn API; they import no rule module's package
    and read no module's state, nor inside the value a module adds to a phase's events."""
    from adjudicator.modules import known_rules

    packages = _rule_packages(project_modules())
    assert packages
    offenders = {str(f.relative_to(ROOT)): found for f in sorted((ROOT / "bot").rglob("*.py"))
                 if (found := module_reads(f, packages, set(known_rules())))}
    assert offenders == {}, f"bot/ imports a rule module or reads its state: {offenders}"


@pytest.mark.parametrize("text", [
    "from adjudicator.prestige.orders import Bribe\n",
    "from adjudicator import prestige\n",
    "import adjudicator.prestige.state\n",
    "import importlib\nimportlib.import_module('adjudicator.prestige')\n",
    "def f(position):\n    return position.prestige\n",
    "def f(position):\n    return position.modules['prestige']\n",
    "from adjudicator.position import module_state\n",
    "def f(events):\n    return events.rule.bribed\n",
    "def f(events):\n    return events.rule_year.award\n",
])
def test_the_check_sees_a_rule_module_imported_or_its_state_read(tmp_path, text):
    sample = tmp_path / "x.py"
    sample.write_text(text)
    assert module_reads(sample, {"adjudicator.prestige"}, {"prestige"}) != []


def test_the_check_lets_a_front_end_pass_a_modules_events_on(tmp_path):
    sample = tmp_path / "x.py"
    sample.write_text("from adjudicator.modules import spent\n"
                      "def f(position, events, order):\n    return spent(position, events.rule, order)\n")
    assert module_reads(sample, {"adjudicator.prestige"}, {"prestige"}) == []


# -- SQL lives in the store ----------------------------------------------------------------------

# Outside bot/store only the set-up reads SQLAlchemy, for its URLs and its errors, never to query.
SQL_READERS = {"bot/app/settings.py", "bot/app/setup.py"}


def test_only_the_store_writes_sql():
    """bot/store/database.py says no other module writes SQL: no module of the service, the front ends,
    the archive or the command line builds a statement (sqlmodel's Session as a type is fine)."""
    offenders = {}
    for path in sorted((ROOT / "bot").rglob("*.py")):
        where = str(path.relative_to(ROOT))
        if where.startswith("bot/store/") or where in SQL_READERS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                builds = any(a.name.split(".")[0] == "sqlalchemy" for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                builds = node.module.split(".")[0] == "sqlalchemy" or (
                    node.module == "sqlmodel" and bool({a.name for a in node.names} - {"Session"}))
            else:
                continue
            if builds:
                offenders.setdefault(where, []).append(node.lineno)
    assert offenders == {}, f"only bot/store writes SQL; these modules import a query builder: {offenders}"
