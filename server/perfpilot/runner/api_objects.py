"""Objects the bench builds through their class's public API, as a caller of the class would.

A class whose state is private and set by its methods (``Ledger`` with a private map and a public
``add(who, amount)``) cannot be built field by field. The bench builds it the way test generators
for Java classes do: construct it (the default constructor, or the public one with the most
parameters the bench can generate), then call a generated sequence of about n of its public
mutators (non-const member functions whose parameters the bench can generate) with generated
arguments. After the call under test, the object is compared through its public const accessors
(const member functions returning a comparable value), besides the return value.

The object is the unit's own, never repeated in the bench: the entry (entry.py) appends, to both
builds identically, helpers that allocate, construct, destroy the object and call each chosen
member function, and exports them as ``void* perfpilot_api(int k)``. The driver hands the
original's table to the bench (``perfpilot::api::table()``); the bench holds the object as opaque
storage and replays the construction from the same random stream whenever it needs the object
again (reset between calls, the memory probe's copies), so both sides always get the same object.
A mutator that throws is skipped (the object keeps whatever state the class leaves it in).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from perfpilot.code.site import Param
from perfpilot.runner.harness_types import (
    NOT_SIZES,
    arith_type,
    close_ns,
    is_scalar_text,
    open_ns,
    strip,
    trampoline_param_type,
    user_ns,
    value_text,
)
from perfpilot.runner.unit_types import ClassDef, Ctor, MethodDecl, Ty, UnitTypes, parse_type

# Helpers each object has at the start of its block in the unit's table.
ALLOC, FREE, DESTROY, CONSTRUCT, COPY = 0, 1, 2, 3, 4
FIRST_CALL = 5
# Field types whose copies share state with the original (or hold addresses into it).
_SHARING = re.compile(r"\*|\b(shared_ptr|weak_ptr|reference_wrapper|string_view|span|"
                      r"function)\b")
# Mutators that take things away: called less often, so that the object still grows with n.
_SHRINKS = re.compile(r"^(clear|reset|erase|remove|pop|delete|drop|take|extract|evict|discard|"
                      r"dequeue|shrink|truncate|undo|empty)", re.IGNORECASE)
# Mutators that add one thing (cheap, and what makes the object grow with n). Any other mutator
# may touch the whole object (``apply_fee`` on every account): drawn about n times it would make
# building quadratic, so each is called at most about sqrt(n) times.
_ADDS = re.compile(r"^(add|push|insert|append|put|emplace|enqueue|set|store|record|register|"
                   r"deposit|withdraw|credit|debit|charge|pay|transfer|book|place|assign|"
                   r"increment|inc|attach|link|connect|join|unite|union|offer|feed|observe|"
                   r"track|mark|accumulate|update|upsert|write|log|submit|schedule|new|create|"
                   r"open|bump|count|visit|load)", re.IGNORECASE)
_MAX_ACCESSOR_PARAMS = 2
ACCESSOR_CALLS = 3  # calls of an accessor that takes arguments, each with fresh ones


@dataclass(frozen=True)
class ApiObject:
    """How the bench builds one class through its API, and reads it back."""

    cls: ClassDef
    ctor: Ctor | None  # None: the implicit or declared default constructor
    mutators: tuple[MethodDecl, ...]
    accessors: tuple[MethodDecl, ...]
    base: int  # index of its first helper in the unit's table
    index: int  # its number in the bench (``perfpilot_opaque<index>``)
    copies: bool = False  # copies are independent objects (else the bench rebuilds them)

    @property
    def size(self) -> int:
        """Number of helpers it takes in the table."""
        return FIRST_CALL + len(self.mutators) + len(self.accessors)

    @property
    def opaque(self) -> str:
        """The bench's name for the class (an incomplete type: only references are passed)."""
        return f"perfpilot_opaque{self.index}"

    @property
    def builder(self) -> str:
        """The bench's function that constructs the object and calls its mutators."""
        return f"perfpilot_build{self.index}"


Problem = Callable[[Ty], "str | None"]


def plan_object(cls: ClassDef, types: UnitTypes, problem: Problem, *, base: int,
                index: int) -> ApiObject | str:
    """How to build ``cls`` through its public API, or why it cannot be (a sentence)."""
    what = f"class '{cls.path}'"
    if cls.is_template:
        return f"{what} is a template"
    if cls.is_union:
        return f"{what} is a union"
    if cls.abstract:
        return f"{what} is abstract"
    if cls.classes:
        return f"{what} is nested in another class"
    if cls.destructor == "declared" and not types.member_defined(cls, "~" + cls.name, False):
        return f"the destructor of {what} is not defined in this file"
    ctor: Ctor | None = None
    if cls.user_ctors:
        usable = [c for c in cls.ctors
                  if c.public and (c.inline or types.member_defined(cls, cls.name, False))
                  and all(_param_ok(ty, problem, types) for _, ty in c.params)]
        if not usable:
            return f"{what} has no public constructor, defined here, from generatable types"
        ctor = max(usable, key=lambda c: len(c.params))
        if not ctor.params:
            ctor = None
    mutators: list[MethodDecl] = []
    accessors: list[MethodDecl] = []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for m in cls.decls:
        if not (m.public and m.plain and not m.static) \
                or not types.member_defined(cls, m.name, m.inline):
            continue
        sig = (m.name, tuple(p.type_text for p in m.params))
        if sig in seen or not all(_method_param_ok(p, problem, types) for p in m.params):
            continue
        seen.add(sig)
        if not m.const:
            mutators.append(m)
        elif len(m.params) <= _MAX_ACCESSOR_PARAMS and _comparable(m.ret, problem, types):
            accessors.append(m)
    if not mutators and ctor is None:
        # Constructed with no arguments and never changed: one fixed object, no input at all.
        return f"{what} has no public member function, defined here, that changes it"
    return ApiObject(cls, ctor, tuple(mutators), tuple(accessors), base, index,
                     _copies_safely(cls))


def _copies_safely(cls: ClassDef) -> bool:
    """Whether a copy of an object is an independent object with the same state: every field
    a value (no pointers, shared pointers or views), and either the class manages no resource
    of its own (no destructor) or it defines its copies itself. A class that frees memory in
    its destructor but copies its pointers (the rule of three broken) is rebuilt instead."""
    if cls.has_bases or cls.polymorphic:
        return False
    if any("pointer" in f.problem or "reference" in f.problem or _SHARING.search(f.type_text)
           for f in cls.fields):
        return False
    return not cls.destructor or cls.copies


def _nested(ty: Ty, types: UnitTypes) -> bool:
    """A type declared inside a class: the helpers, at namespace scope, cannot spell it."""
    ty = types.resolve(ty)
    found = types.find_class(ty) or types.find_enum(ty)
    return (found is not None and bool(found.classes)) or any(_nested(a, types) for a in ty.args)


def _param_ok(ty: Ty, problem: Problem, types: UnitTypes) -> bool:
    return not ty.indirect and not _nested(ty, types) and problem(ty) is None


def _method_param_ok(p: Param, problem: Problem, types: UnitTypes) -> bool:
    if p.pointer or p.array or p.type_text == "...":
        return False
    return _param_ok(parse_type(p.base), problem, types)


def _comparable(ret: str, problem: Problem, types: UnitTypes) -> bool:
    if "*" in ret or not ret or ret == "void":
        return False
    ty = parse_type(value_text(ret))
    if arith_type(types.resolve(ty)) is not None:
        return True
    return not _nested(ty, types) and problem(ty) is None


def adds(m: MethodDecl, mutators: tuple[MethodDecl, ...]) -> bool:
    """Whether a mutator is one that adds: named so (``add``, ``push``, ``insert``, ...), or,
    when no mutator of the class is, any that takes arguments and is not named like a
    removal."""
    if any(_ADDS.match(x.name) and x.params for x in mutators):
        return bool(_ADDS.match(m.name) and m.params)
    return bool(m.params) and not _SHRINKS.match(m.name)


def weight(m: MethodDecl, mutators: tuple[MethodDecl, ...]) -> int:
    """How often a mutator is drawn: those that add four times as often as the others (which
    are also called at most about sqrt(n) times each)."""
    return 4 if adds(m, mutators) else 1


# ---- The unit's side: helpers appended with the entry -----------------------------------------

def _ctor_param_type(text: str, types: UnitTypes) -> str:
    spelled = strip(text)
    return spelled if is_scalar_text(text, types) else f"const {spelled} &"


def unit_helpers(objects: tuple[ApiObject, ...], types: UnitTypes) -> str:
    """C++ appended to both builds: the helpers of every object and the table exporting them."""
    if not objects:
        return ""
    out = ["", "// PerfPilot: helpers that build objects through their public API (identical "
           "in both builds).", "#include <memory>", "#include <new>", "#include <type_traits>"]
    table: list[str] = []
    for obj in objects:
        cls = obj.cls
        t = cls.path
        ns = "::".join(n for n in cls.namespaces if n != "(anonymous)")
        prefix = f"{ns}::" if ns else ""
        names = [f"perfpilot_api_{obj.base + k}" for k in range(obj.size)]
        body: list[str] = [
            f"static void* {names[ALLOC]}() {{ return std::allocator<{t}>().allocate(1); }}",
            f"static void {names[FREE]}(void* p) {{ std::allocator<{t}>().deallocate("
            f"static_cast<{t}*>(p), 1); }}",
            f"static void {names[DESTROY]}(void* p) {{ static_cast<{t}*>(p)->~{cls.name}(); }}",
        ]
        if obj.copies:
            body.append(f"static bool {names[COPY]}(void* to, const void* from, bool live) {{ "
                        f"if constexpr (std::is_copy_constructible_v<{t}> && "
                        f"std::is_copy_assignable_v<{t}>) {{ if (live) *static_cast<{t}*>(to) = "
                        f"*static_cast<const {t}*>(from); else ::new (to) {t}("
                        f"*static_cast<const {t}*>(from)); return true; }} else {{ (void)to; "
                        "(void)from; (void)live; return false; } }")
        else:
            body.append(f"static bool {names[COPY]}(void*, const void*, bool) {{ return false; }}")
        params = obj.ctor.params if obj.ctor is not None else ()
        decl = ", ".join(["void* p", *(f"{_ctor_param_type(text, types)} a{k}"
                                       for k, (text, _) in enumerate(params))])
        args = ", ".join(f"a{k}" for k in range(len(params)))
        body.append(f"static void {names[CONSTRUCT]}({decl}) {{ ::new (p) {t}({args}); }}")
        for k, m in enumerate((*obj.mutators, *obj.accessors)):
            name = names[FIRST_CALL + k]
            decl = ", ".join(["const void* p" if m.const else "void* p",
                              *(f"{trampoline_param_type(q, types)} a{j}"
                                for j, q in enumerate(m.params))])
            args = ", ".join(f"static_cast<decltype(a{j})&&>(a{j})" for j in range(len(m.params)))
            self_ = f"static_cast<{'const ' if m.const else ''}{t}*>(p)"
            if m.const:
                ret = value_text(m.ret)
                body.append(f"static {ret} {name}({decl}) {{ return {self_}->{m.name}({args}); }}")
            else:
                body.append(f"static void {name}({decl}) {{ {self_}->{m.name}({args}); }}")
        opens = "".join("namespace {\n" if n == "(anonymous)" else f"namespace {n} {{\n"
                        for n in cls.namespaces)
        out.append(opens + "\n".join(body) + "\n" + "}\n" * len(cls.namespaces))
        table += [f"reinterpret_cast<void*>(&{prefix}{n})" for n in names]
    out.append('extern "C" void* perfpilot_api(int k) {')
    out.append(f"  static void* const perfpilot_table[] = {{{', '.join(table)}}};")
    out.append(f"  return k >= 0 && k < {len(table)} ? perfpilot_table[k] : nullptr;")
    out.append("}")
    return "\n".join(out) + "\n"


# ---- The bench's side --------------------------------------------------------------------------

def _fn_type(ret: str, self_const: bool, params: list[str]) -> str:
    return f"{ret} (*)({', '.join(['const void*' if self_const else 'void*', *params])})"


def _call_args(m: MethodDecl) -> str:
    return ", ".join(["perfpilot_at", *(f"std::move(perfpilot_a{j})" if p.reference == "&&"
                                        else f"perfpilot_a{j}"
                                        for j, p in enumerate(m.params))])


def _generate(m: MethodDecl, indent: str) -> list[str]:
    return [f"{indent}auto perfpilot_a{j} = ::perfpilot::api::argument<{strip(p.base)}>("
            "perfpilot_n, perfpilot_bound, perfpilot_rng);" for j, p in enumerate(m.params)]


def bench_builder(obj: ApiObject, types: UnitTypes) -> str:
    """The bench's function that builds the object in place: constructor, then about n
    mutator calls drawn by weight (those without arguments at most sqrt(n) times)."""
    cls = obj.cls
    ns = user_ns(cls.namespaces)
    lines = [f"inline void {obj.builder}(void* perfpilot_at, std::size_t perfpilot_n, "
             "std::mt19937_64& perfpilot_rng) {",
             "  std::size_t perfpilot_bound = 0;"]
    ctor_types: list[str] = []
    ctor_args: list[str] = []
    for k, (text, ty) in enumerate(obj.ctor.params if obj.ctor is not None else ()):
        spelled = strip(text)
        kind = arith_type(types.resolve(ty))
        if kind is not None and kind not in NOT_SIZES:
            # Integer constructor arguments are dimensions (a graph's vertex count): about
            # sqrt(n), and integer arguments of the mutators stay below the smallest.
            lines.append(f"  {spelled} perfpilot_c{k} = static_cast<{spelled}>("
                         "::perfpilot::gen::side(perfpilot_n));")
            lines.append("  if (perfpilot_bound == 0 || ::perfpilot::gen::side(perfpilot_n) < "
                         "perfpilot_bound) perfpilot_bound = ::perfpilot::gen::side(perfpilot_n);")
        else:
            lines.append(f"  auto perfpilot_c{k} = ::perfpilot::gen::make_any<{spelled}>("
                         "perfpilot_n, perfpilot_rng);")
        ctor_types.append(spelled if is_scalar_text(text, types) else f"const {spelled} &")
        ctor_args.append(f"perfpilot_c{k}")
    lines.append(f"  ::perfpilot::api::fn<{_fn_type('void', False, ctor_types)}>("
                 f"{obj.base + CONSTRUCT})({', '.join(['perfpilot_at', *ctor_args])});")
    if obj.mutators:
        count = len(obj.mutators)
        weights = ", ".join(str(weight(m, obj.mutators)) for m in obj.mutators)
        lines += [f"  static const unsigned perfpilot_weights[] = {{{weights}}};",
                  "  const std::size_t perfpilot_cap = ::perfpilot::gen::side(perfpilot_n);",
                  f"  std::size_t perfpilot_calls[{count}] = {{}};",
                  "  for (std::size_t perfpilot_k = 0; perfpilot_k < perfpilot_n; ++perfpilot_k) {",
                  f"    switch (::perfpilot::api::pick(perfpilot_weights, {count}, "
                  "perfpilot_rng)) {"]
        for k, m in enumerate(obj.mutators):
            fn = _fn_type("void", False, [trampoline_param_type(p, types) for p in m.params])
            lines.append(f"      case {k}: {{")
            if not adds(m, obj.mutators):
                lines.append(f"        if (perfpilot_calls[{k}]++ >= perfpilot_cap) break;")
            lines += _generate(m, "        ")
            lines.append(f"        ::perfpilot::api::attempt(::perfpilot::api::fn<{fn}>("
                         f"{obj.base + FIRST_CALL + k}), {_call_args(m)});")
            lines.append("        break;")
            lines.append("      }")
        lines += ["      default: break;", "    }", "  }", "  (void)perfpilot_calls;"]
    lines += ["  (void)perfpilot_bound;", "  (void)perfpilot_rng;", "}"]
    return f"{open_ns(ns)}{chr(10).join(lines)}{close_ns(ns)}"


def bench_record(obj: ApiObject, types: UnitTypes, ref: str, label: str) -> list[str]:
    """Lines of ``record()`` reading the object held by ``ref`` through its accessors."""
    out: list[str] = []
    ns = "::".join(["user", *obj.cls.namespaces])
    ns = "::".join(n for n in ns.split("::") if n != "(anonymous)")
    for k, m in enumerate(obj.accessors):
        index = obj.base + FIRST_CALL + len(obj.mutators) + k
        ret = f"{ns}::perfpilot_r{obj.index}_{k}"
        fn = _fn_type(ret, True, [trampoline_param_type(p, types) for p in m.params])
        call = f"::perfpilot::api::fn<{fn}>({index})"
        if not m.params:
            out.append(f'    r.add("{label}.{m.name}()", {call}({ref}.at()));')
            continue
        out.append("    {")
        out.append(f"      std::mt19937_64 perfpilot_rng({index});")
        out.append("      const std::size_t perfpilot_n = 16, perfpilot_bound = 0;")
        out.append(f"      for (int perfpilot_j = 0; perfpilot_j < {ACCESSOR_CALLS}; "
                   "++perfpilot_j) {")
        out += _generate(m, "        ")
        args = ", ".join(f"perfpilot_a{j}" for j in range(len(m.params)))
        out.append(f'        r.add("{label}.{m.name}(...)", {call}({ref}.at(), {args}));')
        out.append("      }")
        out.append("    }")
    return out


def bench_aliases(obj: ApiObject) -> list[str]:
    """Declarations in the class's namespace of the bench: the opaque type and the
    accessors' return types (spelled there, so the unit's type names resolve)."""
    lines = [f"struct {obj.opaque};"]
    for k, m in enumerate(obj.accessors):
        lines.append(f"using perfpilot_r{obj.index}_{k} = {value_text(m.ret)};")
    return lines
