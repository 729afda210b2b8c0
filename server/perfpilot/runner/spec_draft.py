"""A draft bench spec for the user to review, written where the runner looks for specs.

When the generated harness cannot feed a function, the draft holds everything the signature
tells: the unit's includes, copies of its types, the function's type as the entry exposes it,
one member per parameter (built with ``perfpilot::gen`` where the harness could, a ``TODO`` with
the reason where it could not), the call, and the outputs to record. For member functions and
templates it adds an entry block to complete. When the harness can feed the function the draft
is the generated bench itself, a starting point for a more representative workload.
"""

from __future__ import annotations

from pathlib import Path

from perfpilot.code.site import FunctionSite
from perfpilot.runner.compdb import CompileFlags
from perfpilot.runner.harness import (
    HarnessUnsupported,
    harness_source,
    parameter_problem,
    trampoline_param_type,
)
from perfpilot.runner.spec import SPEC_FOLDER
from perfpilot.runner.unit_headers import site_types
from perfpilot.runner.unit_types import method_info, parse_type


def draft_path(site: FunctionSite, source_path: Path) -> Path:
    """Where the draft for ``site`` goes: ``.perfpilot/<function>.bench.cpp`` by the source."""
    return source_path.resolve().parent / SPEC_FOLDER / f"{site.name}.bench.cpp"


def write_draft(site: FunctionSite, source_path: Path, compdb: CompileFlags | None = None
                ) -> Path:
    """Write the draft spec and return its path; never overwrites (FileExistsError).
    ``compdb``: the source's compile database entry (where its project headers are found)."""
    path = draft_path(site, source_path)
    if path.exists():
        raise FileExistsError(f"{path} exists; it was not overwritten")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as out:
        out.write(draft_spec(site, compdb))
    return path


def draft_spec(site: FunctionSite, compdb: CompileFlags | None = None) -> str:
    """The text of a draft spec for ``site``; ``compdb``: the source's compile database entry
    (where its project headers are found)."""
    try:
        generated = harness_source(site, compdb)
    except HarnessUnsupported as exc:
        return _skeleton(site, str(exc), compdb)
    return ("// Draft bench spec: the bench PerfPilot generates for this function, to adapt\n"
            "// (sizes, value ranges, what to record). See docs/bench-spec.md.\n" + generated)


def _skeleton(site: FunctionSite, reason: str, compdb: CompileFlags | None) -> str:
    types = site_types(site, compdb)
    names: set[str] = set()
    for p in site.params:
        names |= set(parse_type(p.base).name.split("::"))
    method = method_info(site, types) if site.is_method else None
    if method is not None:
        names.add(method.cls.classes[0] if method.cls.classes else method.cls.name)
    top, body = types.mirror(names)
    params = [trampoline_param_type(p, types) for p in site.params]
    entry: list[str] = []
    if method is not None and not site.is_static:
        const = "const " if method.const else ""
        params.insert(0, f"{const}{method.cls.path}&")
    if site.is_template or (site.is_method and not site.is_static and method is None):
        entry = _entry_block(site, params, site.is_method and not site.is_static)
    ret = site.return_type or "void"
    lines = [
        f"// Draft bench spec for '{site.qualified_name}', written by PerfPilot.",
        f"// PerfPilot could not generate inputs: {reason}.",
        "// Complete the TODOs, then benchmark again: this file is picked up automatically.",
        "// See docs/bench-spec.md for the API.",
        *top,
        "#include <perfpilot_bench.hpp>",
        *types.includes,
        "",
        *entry,
        "// TODO: these are copies of the types the function uses; include your header instead",
        "// if it has one.",
        *body,
        "",
        f"using Fn = {ret} (*)({', '.join(params)});",
        "",
        "struct Bench {",
    ]
    if method is not None and not site.is_static:
        lines.append(f"  {method.cls.path} self{{}};  // TODO: build the object the method runs on")
    members, setup = _members(site, compdb)
    lines += members
    value = " ".join(w for w in ret.replace("&", " ").split() if w not in ("const", "static",
                                                                          "inline"))
    if value != "void":
        lines.append(f"  {value} result{{}};")
    lines.append("  void setup(std::size_t n, std::mt19937_64& rng) {")
    lines += setup
    lines.append("  }")
    args = ", ".join((["self"] if method is not None and not site.is_static else [])
                     + [f"s{i}" for i in range(len(site.params))])
    lines.append("  void call(Fn f) { " + ("result = " if value != "void" else "")
                 + f"f({args}); }}")
    lines.append("  void record(perfpilot::Recorder& r) const {")
    if value != "void":
        lines.append('    r.add("return value", result);  // TODO: record user types field '
                     'by field')
    for p in site.params:
        if (p.reference == "&" or p.pointer) and not p.const:
            lines.append(f'    // TODO: r.add("{p.name}", ...);  the call may change it')
    lines.append("  }")
    lines += ["};", "PERFPILOT_BENCH(Bench, Fn)", ""]
    return "\n".join(lines)


def _members(site: FunctionSite, compdb: CompileFlags | None
             ) -> tuple[list[str], list[str]]:
    members: list[str] = []
    setup: list[str] = []
    for i, p in enumerate(site.params):
        why = parameter_problem(site, p, compdb)
        storage = p.type_text.replace("[]", "*") if p.pointer or p.array else p.base
        members.append(f"  {storage} s{i}{{}};  // parameter '{p.name}'")
        if why is None:
            setup.append(f"    perfpilot::gen::fill_any(s{i}, n, rng);")
        else:
            setup.append(f"    // TODO: build '{p.name}' ({p.type_text}) for size n: {why}")
    if not setup:
        setup = ["    (void)n;", "    (void)rng;"]
    return members, setup


def _entry_block(site: FunctionSite, params: list[str], is_member: bool) -> list[str]:
    decl = ", ".join(f"{t} a{i}" for i, t in enumerate(params))
    if is_member:
        args = ", ".join(f"a{i}" for i in range(1, len(params)))
        call = f"a0.{site.name}({args})"
    else:
        args = ", ".join(f"a{i}" for i in range(len(params)))
        targs = "<TODO>" if site.is_template else ""
        call = f"{site.qualified_name}{targs}({args})"
    return [
        "// The entry below is added to both versions of your file (see docs/bench-spec.md).",
        "// perfpilot:entry-begin",
        f"static decltype(auto) perfpilot_call({decl}) {{ return {call}; }}",
        'extern "C" void* perfpilot_entry(void) {',
        "  return reinterpret_cast<void*>(&perfpilot_call);",
        "}",
        "// perfpilot:entry-end",
        "",
    ]
