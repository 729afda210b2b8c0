"""Generated bench for functions whose parameters are plain data.

Supported parameters: arithmetic types; ``std::vector`` (nested too) and ``std::string`` by value,
reference or const reference; pointers or arrays of arithmetic type together with an integer
size parameter (named ``n``, ``len``, ``size``, ``count``, ...); ``char*`` strings. Return values
and everything the function may modify (non-const references and pointers) are recorded and
compared. The generated source uses the same API as a hand-written bench spec.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfpilot.code.site import FunctionSite, Param

_ARITH = {
    "bool", "char", "signed char", "unsigned char", "wchar_t", "short", "short int",
    "unsigned short", "unsigned short int", "int", "signed", "signed int", "unsigned",
    "unsigned int", "long", "long int", "unsigned long", "unsigned long int", "long long",
    "long long int", "unsigned long long", "unsigned long long int", "size_t", "ssize_t",
    "ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
    "uint64_t", "intptr_t", "uintptr_t", "float", "double", "long double",
}
_FLOAT = {"float", "double", "long double"}
_SIZE_NAME = re.compile(
    r"^(n|m|k_?n|len|length|size|sz|count|cnt|num|nelem|nelems|nitems|numel|[a-z]*_?(len|size|"
    r"count|num|n)|n_?[a-z]+)$", re.IGNORECASE)
_TYPEDEF = re.compile(r"^\s*typedef\s+([^;{}()]+?)\s+(\w+)\s*;", re.MULTILINE)
_USING = re.compile(r"^\s*using\s+(\w+)\s*=\s*([^;{}()]+?)\s*;", re.MULTILINE)
_DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)\s+([\w:<>, ]+?)\s*$", re.MULTILINE)
_IDENT = re.compile(r"[A-Za-z_]\w*")
_KEYWORDS = {"const", "volatile", "unsigned", "signed", "long", "short", "int", "char", "bool",
             "float", "double", "void", "std", "vector", "string", "struct"}


class HarnessUnsupported(Exception):
    """The signature needs a bench spec (the message names the parameter and why)."""


@dataclass(frozen=True)
class _Arg:
    kind: str  # scalar | size | container | buffer | cstring
    param: Param
    storage: str  # C++ type of the storage member
    mutated: bool


def _norm(text: str) -> str:
    text = re.sub(r"\bstd::", "", text)
    # C's restrict is not C++ (and does not change how a function is called).
    text = re.sub(r"\b(restrict|__restrict__|__restrict)\b", "", text)
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s*([<>,*&])\s*", r"\1", text)
    return text


def unit_aliases(unit_text: str) -> dict[str, tuple[str, str]]:
    """Top-level type aliases of the unit: name -> (definition text, resolved type)."""
    out: dict[str, tuple[str, str]] = {}
    for m in _TYPEDEF.finditer(unit_text):
        out[m.group(2)] = (m.group(0).strip(), m.group(1))
    for m in _USING.finditer(unit_text):
        out[m.group(1)] = (m.group(0).strip(), m.group(2))
    for m in _DEFINE.finditer(unit_text):
        out.setdefault(m.group(1), (m.group(0).strip(), m.group(2)))
    return out


def resolve_type(text: str, aliases: dict[str, tuple[str, str]], used: dict[str, str]) -> str:
    """Expand aliases in a type (recording which definitions the harness must repeat)."""
    for _ in range(5):
        changed = False
        for ident in set(_IDENT.findall(text)):
            if ident in aliases and ident not in _KEYWORDS:
                definition, target = aliases[ident]
                used[ident] = definition
                text = re.sub(rf"\b{ident}\b", target, text)
                changed = True
        if not changed:
            break
    return _norm(text)


def _value_type(t: str) -> bool:
    """Whether a normalized type is something the generator can fill and the recorder compare."""
    if t in _ARITH or t == "string":
        return True
    m = re.fullmatch(r"vector<(.+)>", t)
    return m is not None and _value_type(m.group(1))


def _plain(p: Param, aliases: dict[str, tuple[str, str]], used: dict[str, str]) -> str:
    base = resolve_type(p.base, aliases, used)
    return base


def classify(site: FunctionSite) -> tuple[list[_Arg], dict[str, str]]:
    """How each parameter is produced and checked; raise HarnessUnsupported otherwise."""
    aliases = unit_aliases(site.unit_text)
    used: dict[str, str] = {}
    if site.is_template:
        raise HarnessUnsupported("templates need a bench spec that picks the template arguments")
    if site.is_method and not site.is_static:
        raise HarnessUnsupported("member functions need a bench spec that builds the object")
    has_buffer = any((p.pointer == 1 or p.array) for p in site.params)
    size_names = [p.name for p in site.params
                  if p.pointer == 0 and not p.array and not p.reference
                  and _plain(p, aliases, used) in _ARITH - _FLOAT - {"bool", "char"}
                  and _SIZE_NAME.match(p.name)]
    args: list[_Arg] = []
    for p in site.params:
        if p.type_text == "...":
            raise HarnessUnsupported("variadic functions need a bench spec")
        base = _plain(p, aliases, used)
        if p.pointer == 0 and not p.array:
            if not _value_type(base):
                raise HarnessUnsupported(
                    f"parameter '{p.name}' has type '{p.type_text}', which the generated "
                    "harness cannot build")
            mutated = p.reference == "&" and not p.const
            if base in _ARITH:
                kind = "size" if p.name in size_names and not mutated else "scalar"
                args.append(_Arg(kind, p, base, mutated))
            else:
                args.append(_Arg("container", p, base, mutated))
            continue
        if p.pointer > 1 or base not in _ARITH or p.reference:
            raise HarnessUnsupported(
                f"parameter '{p.name}' has type '{p.type_text}', which the generated harness "
                "cannot build")
        mutated = not p.const
        if not size_names:
            if base == "char":
                args.append(_Arg("cstring", p, "string", mutated))
                continue
            raise HarnessUnsupported(
                f"pointer parameter '{p.name}' has no size parameter (named n, len, size, "
                "count, ...) beside it")
        args.append(_Arg("buffer", p, f"vector<{base}>", mutated))
    if not has_buffer and not any(a.kind in ("container", "size") for a in args) and args:
        # Only scalars: the first integer scalar scales the work if one exists.
        for i, a in enumerate(args):
            if a.kind == "scalar" and a.storage in _ARITH - _FLOAT - {"bool", "char"}:
                args[i] = _Arg("size", a.param, a.storage, False)
                break
    ret = resolve_type(site.return_type, aliases, used)
    if ret not in ("void", "") and not _value_type(_norm(re.sub(r"\b(const|static|inline)\b|&",
                                                                "", ret))):
        raise HarnessUnsupported(
            f"return type '{site.return_type}' cannot be compared by the generated harness")
    return args, used


def harness_source(site: FunctionSite) -> str:
    """C++ source of a bench (the perfpilot_bench.hpp API) for ``site``; may raise."""
    args, used = classify(site)
    aliases: dict[str, tuple[str, str]] = unit_aliases(site.unit_text)
    scratch: dict[str, str] = {}
    ret = resolve_type(site.return_type, aliases, scratch) if site.return_type else "void"
    ret_value = _norm(re.sub(r"\b(const|static|inline)\b|&", "", ret))
    param_types = ", ".join(_param_decl_type(a, aliases) for a in args)
    lines = [
        "// Generated by PerfPilot: inputs for the function under test.",
        "#include <perfpilot_bench.hpp>",
        "#include <cstddef>",
        "#include <cstdint>",
        "#include <string>",
        "#include <vector>",
        "",
        "namespace perfpilot_harness {",
        "using namespace std;",
        *[d for d in used.values() if not d.lstrip().startswith("#")],
        f"using Fn = {ret} (*)({param_types});",
        "",
        "struct Bench {",
    ]
    for i, a in enumerate(args):
        lines.append(f"  {a.storage} s{i}{{}};")
        if a.mutated:
            lines.append(f"  {a.storage} init{i}{{}};")
    if ret_value != "void":
        lines.append(f"  {ret_value} result{{}};")
    lines.append("  void setup(std::size_t n, std::mt19937_64& rng) {")
    for i, a in enumerate(args):
        if a.kind == "size":
            lines.append(f"    s{i} = static_cast<{a.storage}>(n);")
        elif a.kind == "scalar":
            lines.append(f"    perfpilot::gen::scalar(s{i}, rng);")
        else:
            lines.append(f"    perfpilot::gen::fill(s{i}, n, rng);")
        if a.mutated:
            lines.append(f"    init{i} = s{i};")
    lines.append("  }")
    lines.append("  void reset() {")
    lines += [f"    s{i} = init{i};" for i, a in enumerate(args) if a.mutated]
    lines.append("  }")
    call_args = ", ".join(
        f"s{i}.data()" if a.kind in ("buffer", "cstring") else f"s{i}"
        for i, a in enumerate(args))
    lines.append("  void call(Fn f) {")
    lines.append(f"    {'result = ' if ret_value != 'void' else ''}f({call_args});")
    lines.append("  }")
    lines.append("  void record(perfpilot::Recorder& r) const {")
    if ret_value != "void":
        lines.append('    r.add("return value", result);')
    for i, a in enumerate(args):
        if a.mutated:
            lines.append(f'    r.add("{a.param.name}", s{i});')
    lines.append("  }")
    lines.append("};")
    lines.append("}  // namespace perfpilot_harness")
    lines.append("PERFPILOT_BENCH(perfpilot_harness::Bench, perfpilot_harness::Fn)")
    defines = [d for d in used.values() if d.lstrip().startswith("#")]
    return "\n".join(defines + lines) + "\n"


def _param_decl_type(a: _Arg, aliases: dict[str, tuple[str, str]]) -> str:
    """The parameter's type as the generated entry's trampoline declares it."""
    p = a.param
    scratch: dict[str, str] = {}
    text = resolve_type(p.type_text, aliases, scratch)
    if p.array:
        text = re.sub(r"\[[^\]]*\]", "", text).strip() + "*"
    elif a.kind == "container" and not p.reference:
        # The trampoline takes by-value objects by const reference (see entry.py).
        text = f"const {text}&"
    return text
