"""Keep the docs honest: hook signatures, bundled components and their params, CLI commands and
the plugin examples must match the code. Each test collects everything missing and fails with the
whole list."""

from __future__ import annotations

import inspect
import re
import tempfile
import tomllib
import types
from collections.abc import Callable, Iterator
from pathlib import Path

import click
import pytest
from pydantic import BaseModel

from criss_rag import hookspecs
from criss_rag.cli.main import build_cli
from criss_rag.config.model import ENGINE_KEYS
from criss_rag.plugins import ENTRY_POINT_GROUP, PluginHost
from criss_rag.registry import ComponentSpec
from criss_rag.testing import plugin_host

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def read_doc(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


# -- Markdown helpers ----------------------------------------------------------------------------

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")


def headings(text: str) -> list[tuple[int, int, str]]:
    """(line index, level, title) of every heading outside fenced code blocks."""
    found = []
    in_fence = False
    for i, line in enumerate(text.splitlines()):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        match = None if in_fence else _HEADING.match(line)
        if match:
            found.append((i, len(match.group(1)), match.group(2)))
    return found


def section(text: str, wanted: Callable[[str], bool]) -> str | None:
    """The first section whose heading title satisfies ``wanted``: its heading line and every line
    up to the next heading of the same or a higher level."""
    lines = text.splitlines()
    marks = headings(text)
    for n, (start, level, title) in enumerate(marks):
        if wanted(title):
            end = next((i for i, lvl, _ in marks[n + 1 :] if lvl <= level), len(lines))
            return "\n".join(lines[start:end])
    return None


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


# -- what the code defines ------------------------------------------------------------------------


def hook_functions() -> list[Callable[..., None]]:
    return [
        func
        for name, func in inspect.getmembers(hookspecs, inspect.isfunction)
        if name.startswith("register_") and func.__module__ == hookspecs.__name__
    ]


def _annotation(annotation: object) -> str:
    # hookspecs uses `from __future__ import annotations`, so annotations are the source strings
    return annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)


def hook_signature(func: Callable[..., None]) -> str:
    """``name(param: Annotation, ...) -> Return`` from ``inspect.signature``, annotations unquoted."""
    sig = inspect.signature(func)
    params = ", ".join(
        p.name if p.annotation is inspect.Parameter.empty else f"{p.name}: {_annotation(p.annotation)}"
        for p in sig.parameters.values()
    )
    return f"{func.__name__}({params}) -> {_annotation(sig.return_annotation)}"


def bundled_plugin_names() -> set[str]:
    """Entry-point names declared by the distributions under plugins/."""
    names: set[str] = set()
    for pyproject in sorted((ROOT / "plugins").glob("*/pyproject.toml")):
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        names.update(data["project"]["entry-points"][ENTRY_POINT_GROUP])
    return names


def bundled_specs() -> list[ComponentSpec]:
    """Every component the bundled plugins register (the example plugin titleboost excluded)."""
    bundled = bundled_plugin_names()
    assert bundled, "no bundled plugins found under plugins/"
    host = PluginHost(strict=True)
    missing = sorted(bundled - set(host.plugins))
    assert not missing, f"bundled plugins not installed: {missing}"
    specs = [spec for spec in host.registry.specs() if spec.plugin != "titleboost" and spec.plugin in bundled]
    assert specs, "the bundled plugins registered no components"
    return specs


def component_section(text: str, spec: ComponentSpec) -> str | None:
    return section(text, lambda title: f"`{spec.name}`" in title and f"({spec.kind})" in title)


def param_names(model: type[BaseModel], prefix: str = "") -> Iterator[str]:
    """Every param of a Params model, nested models' fields as ``parent.child``."""
    for name, field in model.model_fields.items():
        yield prefix + name
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from param_names(annotation, f"{prefix}{name}.")


def cli_commands(group: click.Group, prefix: str = "") -> Iterator[tuple[str, click.Command]]:
    for name, command in sorted(group.commands.items()):
        path = f"{prefix}{name}"
        yield path, command
        if isinstance(command, click.Group):
            yield from cli_commands(command, path + " ")


# -- (1) every hook, with its exact signature -------------------------------------------------------


def test_every_hook_signature_is_documented_exactly():
    text = read_doc("plugin-hooks.md")
    hooks = hook_functions()
    assert hooks, "criss_rag.hookspecs defines no register_* hooks"
    titles = {title for _, _, title in headings(text)}
    missing = [sig for sig in map(hook_signature, hooks) if sig not in text]
    assert not missing, f"docs/plugin-hooks.md lacks these hook signatures: {missing}"
    not_headings = [sig for sig in map(hook_signature, hooks) if f"`{sig}`" not in titles]
    assert not not_headings, f"docs/plugin-hooks.md should have a heading ### `SIGNATURE` for: {not_headings}"


def test_plugin_hooks_page_documents_no_stale_hooks():
    text = read_doc("plugin-hooks.md")
    real = {func.__name__ for func in hook_functions()}
    documented = {m.group(1) for _, _, title in headings(text) if (m := re.match(r"`(register_\w+)\(", title))}
    assert documented, "docs/plugin-hooks.md has no hook headings"
    assert not documented - real, f"documented hooks that hookspecs.py does not define: {sorted(documented - real)}"


def test_every_hook_has_a_runnable_example_that_registers():
    """Each ```python block of plugin-hooks.md runs; blocks with @hookimpl functions register
    cleanly in a strict host; together they implement every hook."""
    blocks = python_blocks(read_doc("plugin-hooks.md"))
    assert blocks, "docs/plugin-hooks.md has no python examples"
    implemented: set[str] = set()
    for n, code in enumerate(blocks):
        namespace: dict[str, object] = {"__name__": f"doc_example_{n}"}
        exec(compile(code, f"docs/plugin-hooks.md python block {n + 1}", "exec"), namespace)
        impls = {name: obj for name, obj in namespace.items()
                 if callable(obj) and hasattr(obj, f"{hookspecs.PROJECT_NAME}_impl")}
        if not impls:
            continue
        module = types.ModuleType(f"doc_example_{n}")
        for name, obj in impls.items():
            setattr(module, name, obj)
        host = plugin_host({"doc-example": module}, strict=True)
        info = host.plugins["doc-example"]
        assert set(info.hooks) == set(impls), f"block {n + 1}: registered hooks {info.hooks}, defined {sorted(impls)}"
        if "register_commands" in impls:
            group = click.Group("criss-rag")
            impls["register_commands"](cli=group)
            assert group.commands, f"block {n + 1}: register_commands added no command"
        else:
            assert info.components, f"block {n + 1}: registered no component"
        implemented.update(impls)
    hooks = {func.__name__ for func in hook_functions()}
    assert not hooks - implemented, f"hooks without an example in docs/plugin-hooks.md: {sorted(hooks - implemented)}"


# -- (2) every bundled component, (4) with every param ----------------------------------------------


def test_every_bundled_component_is_in_the_yaml_reference():
    text = read_doc("yaml-reference.md")
    specs = bundled_specs()
    missing = [f"{spec.kind} {spec.name}" for spec in specs if f"`{spec.name}`" not in text]
    assert not missing, f"docs/yaml-reference.md does not mention: {missing}"
    no_heading = [f"{spec.kind} {spec.name}" for spec in specs if component_section(text, spec) is None]
    assert not no_heading, f"docs/yaml-reference.md needs a heading `NAME` (KIND) for: {no_heading}"


def test_yaml_reference_params_tables_are_generated_and_fresh():
    """Each bundled component's section holds its params table between generated markers, and the
    checked-in tables equal what the Params models generate today."""
    from criss_rag.config.reference_tables import update

    text = read_doc("yaml-reference.md")
    no_block = [f"{spec.kind}:{spec.name}" for spec in bundled_specs()
                if f"<!-- params {spec.kind}:{spec.name} -->" not in (component_section(text, spec) or "")]
    assert not no_block, f"yaml-reference.md sections without a `<!-- params KIND:NAME -->` block: {no_block}"
    assert update(text, PluginHost(strict=True).registry) == text, (
        "docs/yaml-reference.md is stale: run `python -m criss_rag.config.reference_tables docs/yaml-reference.md`"
    )


def test_every_bundled_param_has_a_description():
    from criss_rag.config.reference_tables import undocumented

    missing = {f"{spec.kind}:{spec.name}": undocumented(spec.params_model) for spec in bundled_specs()}
    missing = {key: names for key, names in missing.items() if names}
    assert not missing, f"params without a Field(description=...): {missing}"


def test_engine_keys_are_in_the_yaml_reference():
    body = section(read_doc("yaml-reference.md"), lambda title: title == "Engine keys")
    assert body is not None, "docs/yaml-reference.md needs an `## Engine keys` section"
    keys = [f"{stage}.{key}" for stage, options in ENGINE_KEYS.items() for key in options]
    assert keys
    missing = [key for key in keys if f"`{key.split('.', 1)[1]}`" not in body]
    assert not missing, f"engine keys missing from the Engine keys section: {missing}"


def test_every_bundled_plugin_has_a_page():
    names = bundled_plugin_names()
    assert names
    missing = sorted(name for name in names if not (DOCS / "plugins" / f"{name}.md").is_file())
    assert not missing, f"docs/plugins/ lacks a page for: {missing}"


# -- (3) every CLI command, with its options --------------------------------------------------------


def test_every_cli_command_is_in_the_cli_reference():
    text = read_doc("cli.md")
    cli = build_cli(PluginHost(strict=True))
    commands = list(cli_commands(cli))
    assert commands, "the CLI has no commands"
    missing = [path for path, _ in commands if path.split()[-1] not in text]
    assert not missing, f"docs/cli.md does not mention the commands: {missing}"
    no_heading = [path for path, _ in commands
                  if section(text, lambda title, path=path: title == f"`criss-rag {path}`") is None]
    assert not no_heading, f"docs/cli.md needs a heading `criss-rag COMMAND` for: {no_heading}"


def test_every_cli_option_and_argument_is_in_its_command_section():
    text = read_doc("cli.md")
    cli = build_cli(PluginHost(strict=True))
    missing = []
    for path, command in cli_commands(cli):
        body = section(text, lambda title, path=path: title == f"`criss-rag {path}`") or ""
        for param in command.params:
            if isinstance(param, click.Argument):
                names = [param.human_readable_name]
            else:
                names = [opt for opt in param.opts if opt.startswith("--")] or list(param.opts)
            missing += [f"criss-rag {path} {name}" for name in names if f"`{name}" not in body]
    assert not missing, f"docs/cli.md lacks these options/arguments in their command's section: {missing}"


# -- every ```python block in the docs and the README runs as it is -----------------------------
# Convention: ```python marks a runnable, self-contained example; sketches and fragments use ```text.

RUNNABLE_PAGES = sorted(p for p in DOCS.rglob("*.md") if p.name not in {"plugin-hooks.md"}) + [
    DOCS.parent / "README.md"
]
#: pages whose examples build the example corpus's index: they run in a copy of examples/ (one per
#: test module), so no test writes an index into the repository
SANDBOXED = {"api.md", "README.md"}
BLOCKS = [
    (page, n) for page in RUNNABLE_PAGES for n in range(1, len(python_blocks(page.read_text(encoding="utf-8"))) + 1)
]


@pytest.fixture(scope="module")
def examples_copy(tmp_path_factory):
    """A folder holding a copy of examples/ (without any index built there)."""
    import shutil

    root = tmp_path_factory.mktemp("docs-sandbox")
    shutil.copytree(ROOT / "examples", root / "examples", ignore=shutil.ignore_patterns(".criss_rag", "__pycache__"))
    return root


def test_runnable_pages_have_blocks_and_every_block_is_collected():
    """Only real blocks are test cases (no page without a python block yields an empty case)."""
    pages = {page for page, _ in BLOCKS}
    assert DOCS / "api.md" in pages and DOCS.parent / "README.md" in pages
    assert all(python_blocks(page.read_text(encoding="utf-8")) for page in pages)
    assert sum(len(python_blocks(p.read_text(encoding="utf-8"))) for p in RUNNABLE_PAGES) == len(BLOCKS)


@pytest.mark.parametrize(
    ("page", "n"), BLOCKS, ids=lambda v: str(v.relative_to(DOCS.parent)) if isinstance(v, Path) else str(v)
)
def test_every_python_block_runs(page, n, monkeypatch, request, tmp_path):
    # examples refer to paths from the repository root
    monkeypatch.chdir(request.getfixturevalue("examples_copy") if page.name in SANDBOXED else DOCS.parent)
    # what a block leaves in the temporary folder (cookiecutter never deletes its hook scripts) goes
    # to this test's own folder, not the system's
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    code = python_blocks(page.read_text(encoding="utf-8"))[n - 1]
    exec(compile(code, f"{page.name} python block {n}", "exec"), {"__name__": f"doc_block_{n}"})


def test_the_tutorial_plugin_tests_are_the_ones_in_the_repository():
    """docs/writing-a-plugin.md shows the titleboost plugin's tests; the suite runs the same file."""
    text = read_doc("writing-a-plugin.md")
    shown = next(block for block in python_blocks(text) if "def test_title_match_moves_up" in block)
    kept = (ROOT / "tests" / "plugins" / "titleboost" / "tests" / "test_titleboost.py").read_text(encoding="utf-8")
    assert kept.split('"""\n\n', 1)[1] == shown
    assert "tests/plugins/titleboost/tests/test_titleboost.py" in text


# -- names the docs use must exist ----------------------------------------------------------------


def _strip_yaml_comments(text: str) -> str:
    """YAML without comment lines, trailing comments and repeated blank lines."""
    lines: list[str] = []
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        line = re.sub(r"\s+#.*$", "", line).rstrip()
        if not line and (not lines or not lines[-1]):
            continue
        lines.append(line)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"


def test_yaml_reference_sample_is_examples_default_yaml_without_its_comments():
    text = read_doc("yaml-reference.md")
    sample = re.search(r"```yaml\n(.*?)```", text, re.S).group(1)
    expected = _strip_yaml_comments((ROOT / "examples" / "default.yaml").read_text(encoding="utf-8"))
    assert sample == expected, "regenerate the first block of docs/yaml-reference.md from examples/default.yaml"


def _code_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for folder in (ROOT / "criss_rag", ROOT / "plugins")
                     for p in sorted(folder.rglob("*.py")))


def _pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def _raised_reasons(code: str) -> set[str]:
    raised = set(re.findall(r"Refusal\(\s*\"([a-z_]+)\"", code))
    raised |= set(re.findall(r"_refuse\([^,()]+,\s*\"([a-z_]+)\"", code))
    raised |= {name for pair in re.findall(r"(?:Refusal\(|_refuse\([^,()]+,)\s*\"([a-z_]+)\" if [^\n]* else "
                                           r"\"([a-z_]+)\"", code) for name in pair}
    return raised


def test_refusal_reasons_raised_in_code_are_the_documented_ones():
    """Every reason string the code raises (``Refusal("...")``, a policy's ``_refuse(query, "...")``)
    is in the concepts page's table, and every reason in the table is raised somewhere."""
    raised = _raised_reasons(_code_text())
    table = section(read_doc("concepts.md"), lambda title: title == "Refusal reasons")
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", table, re.M))
    assert raised and raised <= documented, f"undocumented refusal reasons: {sorted(raised - documented)}"
    assert documented <= raised | {"no_evidence"}, f"documented but never raised: {sorted(documented - raised)}"


def test_names_on_lines_about_refusals_exist_in_the_code():
    """A `snake_case` name in backticks on a line of the docs that speaks of refusals (a reason, a
    field, a param) is a name the code has: `low_evidence` for `weak_evidence` fails."""
    code = _code_text()
    names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", code))
    made = set(re.findall(r"f\"([a-z][a-z0-9_]*_)\{", code))  # names made as f"caution_{label}"
    missing = []
    for page in _pages():
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
            if re.search(r"refus", line, re.I):
                missing += [
                    f"{page.relative_to(ROOT)}:{n}: `{name}`"
                    for name in re.findall(r"`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)`", line)
                    if name not in names and not any(name.startswith(p) and name[len(p) :] in names for p in made)
                ]
    assert not missing, "\n".join(missing)


#: a run of backticked names written as a list: `a`, `b` or `c` (across a line break too)
_NAME_LIST = re.compile(r"`[a-z][a-z0-9_]*`(?:[,;]?\s+(?:or\s+|and\s+)?`[a-z][a-z0-9_]*`)+")


def test_a_list_naming_a_refusal_reason_names_only_things_that_exist():
    """A list of names that holds one refusal reason is a list of reasons, wherever it is (a line
    that never says "refus" included): each other name in it must be a reason or a name the code
    has, so `weak_evidence`, `low_evidence` fails. Quoted values of `refusal_reason` must be reasons."""
    code = _code_text()
    reasons = _raised_reasons(code)
    names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", code))
    wrong = []
    for page in _pages():
        text = page.read_text(encoding="utf-8")
        for match in _NAME_LIST.finditer(text):
            listed = re.findall(r"`([a-z][a-z0-9_]*)`", match.group(0))
            if set(listed) & reasons:
                line = text.count("\n", 0, match.start()) + 1
                wrong += [f"{page.relative_to(ROOT)}:{line}: `{n}`" for n in listed if n not in reasons | names]
        for match in re.finditer(r"refusal_reason\\?\"?\s*(?:==|=|:)\s*\\?\"([a-z_]+)\\?\"", text):
            if match.group(1) not in reasons:
                wrong.append(f"{page.relative_to(ROOT)}:{text.count(chr(10), 0, match.start()) + 1}: {match.group(0)}")
    assert not wrong, "names listed with refusal reasons that are neither a reason nor in the code:\n" + "\n".join(
        wrong
    )


def _types_with_fields() -> dict[str, type]:
    from criss_rag import types

    return {
        name: cls
        for name, cls in vars(types).items()
        if isinstance(cls, type) and getattr(cls, "__module__", "").startswith(types.__name__ + ".")
        and hasattr(cls, "model_fields")
    }


def _has(cls: type, name: str) -> bool:
    return name in cls.model_fields or hasattr(cls, name)


def test_fields_listed_for_a_type_exist():
    """`Citation`: `number`, `doc_id`, ... and one `SentenceSupport` per sentence (`supported`, ...):
    every field the docs list for a type of criss_rag.types is a field or attribute of it."""
    types = _types_with_fields()
    listing = re.compile(
        r"`([A-Z][A-Za-z]+)`s?(?::|,? with| per [a-z ]+?(?: \(|:)| has| arrives with| \()\s*"
        r"((?:`[a-z_]+`(?:[,;]?\s+(?:and\s+|or\s+)?(?:the\s+[a-z]+'s\s+)?)?)+)"
    )
    missing, checked = [], 0
    for page in _pages():
        text = page.read_text(encoding="utf-8")
        for match in listing.finditer(text):
            cls = types.get(match.group(1))
            if cls is None or cls.__name__ == "JudgeVerdict":  # a verdict's scores are named by the judge
                continue
            checked += 1
            line = text.count("\n", 0, match.start()) + 1
            missing += [
                f"{page.relative_to(ROOT)}:{line}: {cls.__name__}.{name}"
                for name in re.findall(r"`([a-z_]+)`", match.group(2))
                if not _has(cls, name)
            ]
    assert checked >= 7, "the pattern no longer finds the field lists of api.md, concepts.md and plugin-hooks.md"
    assert not missing, "\n".join(missing)


def test_the_answer_fields_api_md_lists_exist():
    """api.md's list of what `engine.ask` returns: each bullet's leading names are Answer attributes."""
    from criss_rag.types import Answer

    ask = section(read_doc("api.md"), lambda title: title.startswith("`engine.ask`"))
    bullets = re.findall(r"^- ((?:`[a-z_]+`(?:, )?)+):", ask, re.M)
    named = [name for bullet in bullets for name in re.findall(r"`([a-z_]+)`", bullet)]
    assert {"text", "citations", "refused", "refusal_reason", "sentences", "context", "trace"} <= set(named)
    assert not [name for name in named if not _has(Answer, name)]


def test_answer_attributes_named_in_the_docs_exist():
    from criss_rag.types import Answer

    missing = []
    for page in _pages():
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
            missing += [
                f"{page.relative_to(ROOT)}:{n}: answer.{name}"
                for name in re.findall(r"\banswer\.([a-z_]+)", line)
                if name not in Answer.model_fields and not hasattr(Answer, name)
            ]
    assert not missing, "\n".join(missing)
