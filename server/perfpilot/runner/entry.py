"""The ``extern "C"`` entry appended, identically, to both versions of the unit.

The driver finds the function under test through ``void* perfpilot_entry(void)``, which returns
the address of a trampoline with the original's parameter types. The trampoline calls the
function by its unqualified name inside its own namespace, so overloads resolve as they would
for a caller, a candidate that changed a parameter from by-value to const reference still works,
and no mangled names are needed.
"""

from __future__ import annotations

import re

from perfpilot.code.site import FunctionSite, Param
from perfpilot.runner.harness import resolve_type, unit_aliases

ENTRY_SYMBOL = "perfpilot_entry"
_ARRAY = re.compile(r"\[[^\]]*\]")
_SCALAR_WORDS = {"bool", "char", "wchar_t", "short", "int", "long", "unsigned", "signed",
                 "float", "double", "size_t", "ptrdiff_t", "auto"}


class EntryError(Exception):
    """The function cannot be reached by a generated entry (a bench spec must provide one)."""


def _param_type(p: Param, aliases: dict[str, tuple[str, str]]) -> str:
    # An array parameter is a pointer parameter; spell it as one.
    if _ARRAY.search(p.type_text):
        return _ARRAY.sub("", p.type_text).strip() + "*"
    base = resolve_type(p.base, aliases, {})
    if p.pointer == 0 and not p.reference and not _is_scalar(base):
        # A by-value object is copied where the function is called. The trampoline takes it by
        # const reference so that copy happens inside the measured call, as it does for a real
        # caller, and a candidate that takes a const reference really saves it.
        return f"const {p.type_text} &"
    return p.type_text


def _is_scalar(base: str) -> bool:
    words = set(base.replace("std::", "").split())
    return (bool(words) and words <= _SCALAR_WORDS) or base.endswith("_t")


def entry_source(site: FunctionSite) -> str:
    """Source text to append to the unit (C or C++), or raise EntryError."""
    if site.language == "c":
        return (f"\n\n/* PerfPilot measurement entry (identical in both builds). */\n"
                f"void* {ENTRY_SYMBOL}(void) {{ return (void*)&{site.name}; }}\n")
    if site.is_method and not site.is_static:
        raise EntryError(f"'{site.qualified_name}' is a member function; a bench spec with an "
                         "entry block must say how to call it")
    if site.is_template:
        raise EntryError(f"'{site.qualified_name}' is a template; a bench spec must choose the "
                         "template arguments")
    if any(p.type_text == "..." for p in site.params):
        raise EntryError(f"'{site.qualified_name}' takes variable arguments")
    scopes = site.qualified_name.split("::")[:-1]
    if site.is_method:
        # A static member: call it through its class; namespaces above it are not reopened.
        callee, scopes = site.qualified_name, []
    else:
        callee = site.name
    unit_types = unit_aliases(site.unit_text)
    aliases = "".join(f"using perfpilot_t{i} = {_param_type(p, unit_types)};\n"
                      for i, p in enumerate(site.params))
    params = ", ".join(f"perfpilot_t{i} a{i}" for i in range(len(site.params)))
    args = ", ".join(f"static_cast<decltype(a{i})&&>(a{i})" for i in range(len(site.params)))
    opens = "".join("namespace {\n" if s == "(anonymous)" else f"namespace {s} {{\n"
                    for s in scopes)
    closes = "}\n" * len(scopes)
    qualified_scope = "::".join(s for s in scopes if s != "(anonymous)")
    tramp = (f"{qualified_scope}::perfpilot_trampoline" if qualified_scope
             else "perfpilot_trampoline")
    return (
        "\n\n// PerfPilot measurement entry (identical in both builds).\n"
        f"{opens}{aliases}"
        f"static decltype(auto) perfpilot_trampoline({params}) {{ return {callee}({args}); }}\n"
        f"{closes}"
        f'extern "C" void* {ENTRY_SYMBOL}(void) {{\n'
        f"  return reinterpret_cast<void*>(&{tramp});\n}}\n"
    )
