"""The ``extern "C"`` entry appended, identically, to both versions of the unit.

The driver finds the function under test through ``void* perfpilot_entry(void)``, which returns
the address of a trampoline with the original's parameter types. The trampoline calls the
function by its unqualified name inside its own namespace, so overloads resolve as they would
for a caller, a candidate that changed a parameter from by-value to const reference still works,
and no mangled names are needed. For a non-static member function the trampoline takes the object
first (``Cls&``, or ``const Cls&`` for a const method) and calls the method on it.
"""

from __future__ import annotations

from dataclasses import replace

from perfpilot.code.site import FunctionSite
from perfpilot.runner.api_objects import unit_helpers
from perfpilot.runner.compdb import CompileFlags
from perfpilot.runner.harness_types import trampoline_param_type
from perfpilot.runner.template_args import TemplateUnresolved, instantiate
from perfpilot.runner.unit_headers import site_types
from perfpilot.runner.unit_types import method_info, namespace_member

ENTRY_SYMBOL = "perfpilot_entry"


class EntryError(Exception):
    """The function cannot be reached by a generated entry (a bench spec must provide one)."""


def entry_source(site: FunctionSite, compdb: CompileFlags | None = None) -> str:
    """Source text to append to the unit (C or C++), or raise EntryError; ``compdb``: the
    source's compile database entry (where its project headers are found).

    A function template is called with the template arguments template_args.py chooses; the
    helpers of objects the bench builds through their public API follow the entry.
    """
    original = site
    if site.language == "c":
        return (f"\n\n/* PerfPilot measurement entry (identical in both builds). */\n"
                f"void* {ENTRY_SYMBOL}(void) {{ return (void*)&{site.name}; }}\n")
    targs = ""
    if site.is_template:
        try:
            inst = instantiate(site)
        except TemplateUnresolved as exc:
            raise EntryError(f"'{site.qualified_name}' is a template: {exc}; a bench spec must "
                             "choose the template arguments") from exc
        site = inst.site
        targs = f"<{', '.join(inst.args)}>"
    if any(p.type_text == "..." for p in site.params):
        raise EntryError(f"'{site.qualified_name}' takes variable arguments")
    scopes = site.qualified_name.split("::")[:-1]
    types = site_types(site, compdb)
    if site.is_method and method_info(site, types) is None and namespace_member(site, types):
        site = replace(site, is_method=False)  # ``int ns::f(...) {...}``: a free function
    params_list = [f"perfpilot_t{i} a{i}" for i in range(len(site.params))]
    if site.is_method:
        method = method_info(site, types)
        if method is None and not site.is_static:
            raise EntryError(f"the class of '{site.qualified_name}' is not defined in this "
                             "file; a bench spec with an entry block must say how to call it")
        if method is None:
            # A static member of a class defined elsewhere: call it through its class.
            callee, scopes = site.qualified_name, []
        elif site.is_static:
            scopes = list(method.cls.namespaces)
            callee = f"{method.cls.path}::{'template ' if targs else ''}{site.name}{targs}"
        else:
            scopes = list(method.cls.namespaces)
            # The object comes first; the method is called on it as any caller would.
            const = "const " if method.const else ""
            params_list.insert(0, f"{const}{method.cls.path}& perfpilot_self")
            callee = f"perfpilot_self.{'template ' if targs else ''}{site.name}{targs}"
    else:
        callee = site.name + targs
    aliases = "".join(f"using perfpilot_t{i} = {trampoline_param_type(p, types)};\n"
                      for i, p in enumerate(site.params))
    params = ", ".join(params_list)
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
        f"{_api_helpers(original, compdb)}"
    )


def _api_helpers(site: FunctionSite, compdb: CompileFlags | None) -> str:
    """Helpers for the objects the generated bench builds through their public API (none
    when the bench builds every object itself, or cannot be generated at all)."""
    from perfpilot.runner.harness import HarnessUnsupported, classify

    try:
        _, plan = classify(site, compdb)
    except HarnessUnsupported:
        return ""
    return unit_helpers(plan.objects, plan.types)
