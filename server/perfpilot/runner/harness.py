"""Generated bench for functions whose parameters the runner can build and compare.

Supported parameters (by value, reference or const reference): arithmetic types; enums of the
unit (values from their enumerators); ``std::string``; ``std::vector``, ``std::deque``,
``std::list``, ``std::set``/``multiset``/``unordered_set``, ``std::map``/``multimap``/
``unordered_map``, ``std::pair``, ``std::tuple`` and ``std::array`` of supported types, nested
freely; classes and structs of the unit, built field by field when every field is public and no
constructor is declared, else through the public constructor with the most parameters whose
types are supported; pointers or arrays of arithmetic type together with an integer size
parameter (named ``n``, ``len``, ``size``, ``count``, ...); ``char*`` strings. Non-static member
functions are called on an object built the same way, and a non-const method's object is
compared after the call. Return values and everything the function may modify (non-const
references and pointers) are recorded and compared; user types field by field, unordered
containers independently of their iteration order.

The bench is its own translation unit. It repeats the definitions of the user's types it needs
(see unit_types.py) inside ``namespace perfpilot_harness::user``, and declares its hooks and
aliases with a ``perfpilot_`` prefix, so the user's names never meet the generator's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import tree_sitter

from perfpilot.code.parse import node_text, parse, walk_all
from perfpilot.code.site import FunctionSite, Param
from perfpilot.runner.unit_types import (
    ClassDef,
    Ctor,
    EnumDef,
    MethodInfo,
    Ty,
    UnitTypes,
    method_info,
    parse_type,
    read_unit,
)

_ARITH = {
    "bool", "char", "signed char", "unsigned char", "wchar_t", "char16_t", "char32_t", "short",
    "short int", "signed short", "unsigned short", "unsigned short int", "int", "signed",
    "signed int", "unsigned", "unsigned int", "long", "long int", "signed long",
    "unsigned long", "unsigned long int", "long long", "long long int", "signed long long",
    "unsigned long long", "unsigned long long int", "size_t", "ssize_t", "ptrdiff_t", "int8_t",
    "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "intptr_t",
    "uintptr_t", "float", "double", "long double",
}
_FLOAT = {"float", "double", "long double"}
_NOT_SIZES = _FLOAT | {"bool", "char", "signed char", "unsigned char", "wchar_t", "char16_t",
                       "char32_t"}
_SIZE_NAME = re.compile(
    r"^(n|m|k_?n|len|length|size|sz|count|cnt|num|nelem|nelems|nitems|numel|[a-z]*_?(len|size|"
    r"count|num|n)|n_?[a-z]+)$", re.IGNORECASE)
# Containers by their std name: how many type arguments they take.
_SEQUENCES = {"vector", "deque", "list"}
_SETS = {"set", "multiset", "unordered_set", "unordered_multiset"}
_MAPS = {"map", "multimap", "unordered_map", "unordered_multimap"}
_RESTRICT = re.compile(r"\b(restrict|__restrict__|__restrict)\b")


class HarnessUnsupported(Exception):
    """The signature needs a bench spec (the message names the parameter and why)."""


@dataclass(frozen=True)
class _Arg:
    kind: str  # scalar | size | container | buffer | cstring | object
    param: Param
    storage: str  # C++ type of the storage member, as spelled in the function's namespace
    mutated: bool
    boxed: bool = False  # a class of the unit: held in std::optional (it may lack a default)


@dataclass
class _Needs:
    """User types the bench must build or record (hooks to generate)."""

    classes: dict[str, tuple[ClassDef, Ctor | None]] = field(default_factory=dict)
    enums: dict[str, EnumDef] = field(default_factory=dict)
    names: set[str] = field(default_factory=set)  # identifiers the mirror must define


def _arith(ty: Ty) -> str | None:
    """The arithmetic type a (resolved) type is, normalized, or None."""
    if ty.args or ty.unknown or ty.value or ty.indirect:
        return None
    name = ty.std_name
    return name if name in _ARITH else None


def _names(ty: Ty) -> set[str]:
    out = set(ty.name.split("::")) if not ty.value else set()
    for a in ty.args:
        out |= _names(a)
    return out


class _Checker:
    """Decides whether the bench can build and compare a type, collecting the hooks it needs."""

    def __init__(self, types: UnitTypes) -> None:
        self.types = types
        self.needs = _Needs()

    def problem(self, ty: Ty, *, key: bool = False, hashed: bool = False) -> str | None:
        """Why the bench cannot build and compare values of ``ty`` (None when it can)."""
        self.needs.names |= _names(ty)
        if ty.name in self.types.alias_problems:
            return f"'{ty.name}' {self.types.alias_problems[ty.name]}"
        ty = self.types.resolve(ty)
        if ty.indirect:
            return f"'{ty.name}' is held by pointer or reference"
        if ty.unknown:
            return f"'{ty.name}' is not a type the generated harness understands"
        if _arith(ty) is not None:
            return None
        std = ty.std_name
        written_std = ty.name.startswith(("std::", "::std::"))
        cls = None if written_std else self.types.find_class(ty)
        enum = None if written_std else self.types.find_enum(ty)
        if enum is not None and not ty.args:
            self.needs.enums[_key(enum.namespaces, enum.path)] = enum
            self.needs.names.add(enum.name)
            return None
        if cls is not None and not ty.args:
            if hashed:
                return f"'{ty.name}' has no std::hash for unordered containers"
            if key and not cls.less_than:
                return f"'{ty.name}' has no operator< to order it in a set or map"
            return self._class(cls)
        if std == "string" and not ty.args:
            return None
        if std in _SEQUENCES | _SETS | _MAPS | {"pair", "tuple", "array"}:
            return self._container(ty, std)
        return (f"'{ty.name}' is not defined in this file" if not ty.args
                else f"'{ty.name}<...>' is not a container the generated harness knows")

    def _container(self, ty: Ty, std: str) -> str | None:
        args = ty.args
        if std in _SEQUENCES | _SETS:
            if len(args) != 1:
                return f"'{ty.name}' with a custom allocator or comparator"
            unordered = std.startswith("unordered")
            return self.problem(args[0], key=std in _SETS and not unordered, hashed=unordered)
        if std in _MAPS:
            if len(args) != 2:
                return f"'{ty.name}' with a custom allocator or comparator"
            unordered = std.startswith("unordered")
            return self.problem(args[0], key=not unordered, hashed=unordered) or self.problem(
                args[1])
        if std == "array":
            if len(args) != 2 or args[0].value:
                return f"'{ty.name}' needs a type and a size"
            return self.problem(args[0])
        for a in args:  # pair, tuple
            why = self.problem(a)
            if why:
                return why
        return None if args else f"'{ty.name}' without arguments"

    def _class(self, cls: ClassDef) -> str | None:
        k = _key(cls.namespaces, cls.path)
        if k in self.needs.classes:
            return None
        what = f"class '{cls.path}'"
        if cls.is_template:
            return f"{what} is a template"
        if cls.is_union:
            return f"{what} is a union"
        if cls.polymorphic:
            return f"{what} has virtual functions"
        if cls.has_bases:
            return f"{what} derives from another class"
        if cls.item < 0 and not cls.classes:
            return f"{what} is not defined in this file"
        self.needs.names.add(cls.classes[0] if cls.classes else cls.name)
        # Reserve the name first: a class may hold containers of itself.
        self.needs.classes[k] = (cls, None)
        for f in cls.fields:
            if f.problem and f.problem != "is const":
                del self.needs.classes[k]
                return f"field '{f.name}' of {what} {f.problem}"
            why = self.problem(f.type)
            if why:
                del self.needs.classes[k]
                return f"field '{f.name}' of {what}: {why}"
        ctor = self._constructor(cls)
        if cls.user_ctors:
            if ctor is None:
                del self.needs.classes[k]
                return f"{what} has no public constructor from supported types"
        else:
            hidden = [f.name for f in cls.fields if not f.public or f.problem == "is const"]
            if hidden:
                del self.needs.classes[k]
                kind = "private" if any(not f.public for f in cls.fields) else "const"
                return (f"{what} has {kind} fields ({', '.join(hidden)}) and no constructor "
                        "to set them")
        self.needs.classes[k] = (cls, ctor)
        return None

    def _constructor(self, cls: ClassDef) -> Ctor | None:
        best: Ctor | None = None
        for c in cls.ctors:
            if not c.public:
                continue
            saved = (dict(self.needs.classes), dict(self.needs.enums))
            if any(self.problem(ty) for _, ty in c.params):
                self.needs.classes, self.needs.enums = saved[0], saved[1]
                continue
            if best is None or len(c.params) > len(best.params):
                best = c
        return best


def _key(namespaces: tuple[str, ...], path: str) -> str:
    return "::".join((*namespaces, path))


def _strip(text: str) -> str:
    return " ".join(_RESTRICT.sub("", text).split())


@dataclass(frozen=True)
class HarnessPlan:
    """How the bench feeds one function: arguments, the object for a method, the return."""

    args: tuple[_Arg, ...]
    types: UnitTypes
    needs: _Needs
    namespaces: tuple[str, ...]  # where the function's own type names are spelled
    method: MethodInfo | None
    ret: str  # the return type as written ("void" for none)
    ret_boxed: bool
    # Buffers indexed as flattened rows (``a[i*n + j]``): sizes are a side, buffers side*side.
    square: bool = False
    # (input, output): a read-only buffer and a written one of the same type, which a caller
    # may pass overlapping; the aliased profile does.
    alias: tuple[int, int] | None = None


def classify(site: FunctionSite) -> tuple[list[_Arg], HarnessPlan]:
    """How each parameter is produced and checked; raise HarnessUnsupported otherwise."""
    if site.is_template:
        raise HarnessUnsupported("templates need a bench spec that picks the template arguments")
    types = read_unit(site.unit_text, site.language)
    checker = _Checker(types)
    method: MethodInfo | None = None
    namespaces = tuple(site.qualified_name.split("::")[:-1])
    if site.is_method:
        method = method_info(site, types)
        if method is None:
            raise HarnessUnsupported(
                f"the class of member function '{site.qualified_name}' is not defined in this "
                "file")
        namespaces = method.cls.namespaces
        if not site.is_static:
            if not method.public:
                raise HarnessUnsupported(
                    f"member function '{site.name}' is not public, so no caller can reach it")
            why = checker.problem(Ty(_key((), method.cls.path)))
            if why:
                raise HarnessUnsupported(f"the object for '{site.name}' cannot be built: {why}")
    has_buffer = any((p.pointer == 1 or p.array) for p in site.params)

    def arith_of(p: Param) -> str | None:
        return _arith(types.resolve(parse_type(p.base, "cpp")))

    size_names = [p.name for p in site.params
                  if p.pointer == 0 and not p.array and not p.reference
                  and (arith_of(p) or "float") not in _NOT_SIZES
                  and _SIZE_NAME.match(p.name)]
    args: list[_Arg] = []
    for p in site.params:
        if p.type_text == "...":
            raise HarnessUnsupported("variadic functions need a bench spec")
        base = _strip(p.base)
        arith = arith_of(p)
        if p.pointer == 0 and not p.array:
            if p.reference == "&&":
                raise HarnessUnsupported(
                    f"parameter '{p.name}' is an rvalue reference, which the generated "
                    "harness does not pass")
            mutated = p.reference == "&" and not p.const
            if arith is not None:
                kind = "size" if p.name in size_names and not mutated else "scalar"
                args.append(_Arg(kind, p, base, mutated))
                continue
            why = checker.problem(parse_type(p.base, "cpp"))
            if why:
                raise HarnessUnsupported(
                    f"parameter '{p.name}' has type '{p.type_text}', which the generated "
                    f"harness cannot build: {why}")
            boxed = _is_class(types, parse_type(p.base, "cpp"))
            args.append(_Arg("object" if boxed else "container", p, base, mutated, boxed))
            continue
        if p.pointer > 1 or arith is None or p.reference:
            raise HarnessUnsupported(
                f"parameter '{p.name}' has type '{p.type_text}', which the generated harness "
                "cannot build")
        mutated = not p.const
        if not size_names:
            if arith == "char":
                args.append(_Arg("cstring", p, "std::string", mutated))
                continue
            raise HarnessUnsupported(
                f"pointer parameter '{p.name}' has no size parameter (named n, len, size, "
                "count, ...) beside it")
        args.append(_Arg("buffer", p, f"std::vector<{base}>", mutated))
    if not has_buffer and not any(a.kind in ("container", "size", "object") for a in args) \
            and args and method is None:
        # Only scalars: the first integer scalar scales the work if one exists.
        for i, a in enumerate(args):
            if a.kind == "scalar" and (arith_of(a.param) or "float") not in _NOT_SIZES:
                args[i] = _Arg("size", a.param, a.storage, False)
                break
    ret = _strip(site.return_type) or "void"
    ret_boxed = False
    ret_ty = parse_type(_value_text(ret), "cpp")
    if ret != "void":
        if "*" in ret:
            raise HarnessUnsupported(
                f"return type '{site.return_type}' cannot be compared by the generated harness")
        if _arith(types.resolve(ret_ty)) is None:
            why = checker.problem(ret_ty)
            if why:
                raise HarnessUnsupported(
                    f"return type '{site.return_type}' cannot be compared by the generated "
                    f"harness: {why}")
            ret_boxed = _is_class(types, ret_ty)
    for a in args:
        checker.needs.names |= _names(parse_type(a.param.base, "cpp"))
    buffers = [i for i, a in enumerate(args) if a.kind == "buffer"]
    square = bool(buffers) and _flattened_rows(site, [args[i].param.name for i in buffers],
                                              size_names)
    inputs = [i for i in buffers if not args[i].mutated]
    outputs = [i for i in buffers if args[i].mutated]
    alias = next(((i, j) for i in inputs for j in outputs
                  if args[i].storage == args[j].storage
                  and not _RESTRICT.search(args[i].param.type_text + args[j].param.type_text)),
                 None)
    plan = HarnessPlan(tuple(args), types, checker.needs, namespaces, method, ret, ret_boxed,
                       square, alias)
    return args, plan


def _flattened_rows(site: FunctionSite, buffers: list[str], sizes: list[str]) -> bool:
    """Whether the body indexes a buffer parameter with a product involving a size parameter
    (``a[i * n + k]``), directly or through locals computed from one (``at = i * n + k;
    a[at]``, ``row = i * n; a[row + k]``): the buffer then holds rows of that size, n*n
    elements for n rows."""
    if not sizes:
        return False
    tree = parse(site.text, site.language)
    size_set = set(sizes)
    nodes = list(walk_all(tree.root_node))

    def scaled(expr: tree_sitter.Node, rows: set[str]) -> bool:
        for inner in walk_all(expr):
            if inner.type == "identifier" and node_text(inner) in rows:
                return True
            if inner.type != "binary_expression":
                continue
            op = inner.child_by_field_name("operator")
            if op is None or node_text(op) != "*":
                continue
            operands = [inner.child_by_field_name("left"), inner.child_by_field_name("right")]
            if any(o is not None and node_text(o) in size_set for o in operands):
                return True
        return False

    # Locals that hold a row offset: assigned or initialised from a scaled expression, to a
    # fixed point (an offset built from another offset is one too).
    rows: set[str] = set()
    changed = True
    while changed:
        changed = False
        for node in nodes:
            if node.type == "init_declarator":
                name, value = node.child_by_field_name("declarator"), \
                    node.child_by_field_name("value")
            elif node.type == "assignment_expression":
                name, value = node.child_by_field_name("left"), \
                    node.child_by_field_name("right")
            else:
                continue
            if name is None or value is None or name.type != "identifier":
                continue
            if node_text(name) not in rows and scaled(value, rows):
                rows.add(node_text(name))
                changed = True
    for node in nodes:
        if node.type != "subscript_expression":
            continue
        target = node.child_by_field_name("argument")
        index = node.child_by_field_name("indices") or node.child_by_field_name("index")
        if target is None or node_text(target) not in buffers:
            continue
        if scaled(index if index is not None else node, rows):
            return True
    return False


def parameter_problem(site: FunctionSite, p: Param) -> str | None:
    """Why the generated harness cannot build parameter ``p`` on its own (None if it can)."""
    if p.type_text == "...":
        return "variadic arguments"
    types = read_unit(site.unit_text, site.language)
    ty = parse_type(p.base, "cpp")
    if p.pointer or p.array:
        if p.pointer > 1 or _arith(types.resolve(ty)) is None:
            return "a pointer to something other than numbers"
        return "a pointer: its length must come from another parameter"
    if p.reference == "&&":
        return "an rvalue reference"
    return _Checker(types).problem(ty)


def _is_class(types: UnitTypes, ty: Ty) -> bool:
    ty = types.resolve(ty)
    return not ty.args and not ty.name.startswith("std::") and types.find_class(ty) is not None


def _value_text(ret: str) -> str:
    """The return type without cv-qualifiers, references or storage words."""
    words = re.sub(r"[&]", " ", ret).split()
    return " ".join(w for w in words if w not in ("const", "static", "inline", "constexpr",
                                                  "volatile", "virtual", "extern"))


def _is_scalar_text(base: str, types: UnitTypes) -> bool:
    ty = types.resolve(parse_type(base, "cpp"))
    return _arith(ty) is not None or ty.name.endswith("_t")


def trampoline_param_type(p: Param, types: UnitTypes) -> str:
    """The parameter's type as the generated entry's trampoline declares it.

    Arrays are pointers; a by-value object that is not arithmetic is taken by const reference
    (the copy then happens inside the timed call, as for a real caller). A C unit's entry is
    the function itself, so there every type stays as written.
    """
    if p.array:
        return _strip(re.sub(r"\[[^\]]*\]", "", p.type_text)) + "*"
    if types.language == "cpp" and p.pointer == 0 and not p.reference \
            and not _is_scalar_text(p.base, types):
        return f"const {_strip(p.type_text)} &"
    return _strip(p.type_text)


def harness_source(site: FunctionSite) -> str:
    """C++ source of a bench (the perfpilot_bench.hpp API) for ``site``; may raise.

    The message of HarnessUnsupported ends with the command that drafts a spec to complete.
    """
    try:
        _, plan = classify(site)
    except HarnessUnsupported as exc:
        raise HarnessUnsupported(f"{exc} ({_draft_hint(site)})") from exc
    return _Writer(site, plan).source()


def _draft_hint(site: FunctionSite) -> str:
    path = site.uri
    if path.startswith("file://"):
        from urllib.parse import unquote, urlparse

        path = unquote(urlparse(path).path)
    where = path or "FILE"
    return f"'perfpilot spec --draft {where} --function {site.qualified_name}' drafts one"


class _Writer:
    """Writes the bench source for a classified function."""

    def __init__(self, site: FunctionSite, plan: HarnessPlan) -> None:
        self.site = site
        self.plan = plan
        self.args = plan.args
        self.ns = "::".join(["user", *[n for n in plan.namespaces if n != "(anonymous)"]])

    def source(self) -> str:
        plan = self.plan
        top, body = plan.types.mirror(plan.needs.names)
        method = plan.method if plan.method is not None and not self.site.is_static else None
        ret_value = _value_text(plan.ret)
        param_types = [trampoline_param_type(a.param, plan.types) for a in self.args]
        if method is not None:
            self_type = ("const " if method.const else "") + method.cls.path + "&"
            param_types.insert(0, self_type)
        aliases = [f"using perfpilot_fn = {plan.ret} (*)({', '.join(param_types)});"]
        for i, a in enumerate(self.args):
            aliases.append(f"using perfpilot_s{i} = {a.storage};")
        if method is not None:
            aliases.append(f"using perfpilot_self = {method.cls.path};")
        if ret_value != "void":
            aliases.append(f"using perfpilot_ret = {ret_value};")
        # The file's own headers are repeated only when its types are: they may declare what
        # those types use. System headers are cheap and may define the aliases used.
        user_types = bool(plan.needs.classes or plan.needs.enums)
        includes = [i for i in plan.types.includes if user_types or "<" in i.split()[-1][:1]]
        lines = [
            "// Generated by PerfPilot: inputs for the function under test.",
            "#include <perfpilot_bench.hpp>",
            "#include <cstddef>",
            "#include <cstdint>",
            "#include <optional>",
            "#include <string>",
            "#include <vector>",
            *includes,
            *top,
            "",
            "namespace perfpilot_harness {",
            "namespace user {",
            *body,
            "}  // namespace user",
            *self._hooks(),
            _open(self.ns),
            *aliases,
            _close(self.ns),
            f"using Fn = {self.ns}::perfpilot_fn;",
            "",
            "struct Bench {",
        ]
        lines += self._members(method is not None, ret_value)
        lines += self._setup(method is not None)
        lines += self._call(method is not None, ret_value)
        lines += self._record(method, ret_value)
        lines += ["};", "}  // namespace perfpilot_harness",
                  "PERFPILOT_BENCH(perfpilot_harness::Bench, perfpilot_harness::Fn)"]
        return "\n".join(lines) + "\n"

    def _type(self, i: int) -> str:
        return f"{self.ns}::perfpilot_s{i}"

    def _members(self, has_self: bool, ret_value: str) -> list[str]:
        alias = self.plan.alias
        out = (["  int alias_shift = -1;", f"  {self._type(alias[0])} alias_init{{}};"]
               if alias is not None else [])
        if has_self:
            out.append(f"  std::optional<{self.ns}::perfpilot_self> self, init_self;")
        for i, a in enumerate(self.args):
            t = f"std::optional<{self._type(i)}>" if a.boxed else self._type(i)
            out.append(f"  {t} s{i}{{}};")
            if a.mutated:
                out.append(f"  {t} init{i}{{}};")
        if ret_value != "void":
            t = f"{self.ns}::perfpilot_ret"
            out.append(f"  std::optional<{t}> result;" if self.plan.ret_boxed
                       else f"  {t} result{{}};")
        return out

    def _setup(self, has_self: bool) -> list[str]:
        out = ["  void setup(std::size_t n, std::mt19937_64& rng) {"]
        alias = self.plan.alias
        if alias is not None:
            # Aliased profile: 0 the same buffer, 1 the output one element past the input,
            # 2 one element before it (the input buffer then holds one element more).
            out.append("    alias_shift = ::perfpilot::gen::profile() == "
                       "::perfpilot::gen::kAliased ? static_cast<int>(rng() % 3) : -1;")
        if self.plan.square:
            out.append("    const std::size_t side = ::perfpilot::gen::side(n);")
        if has_self:
            out.append(f"    self.emplace(::perfpilot::gen::make_any<{self.ns}::perfpilot_self>"
                       "(n, rng));")
            out.append("    init_self.emplace(*self);")
        for i, a in enumerate(self.args):
            if a.kind == "size":
                count = "side" if self.plan.square else "n"
                out.append(f"    s{i} = static_cast<{self._type(i)}>({count});")
            elif a.kind == "scalar":
                out.append(f"    perfpilot::gen::scalar(s{i}, rng);")
            elif a.boxed:
                out.append(f"    s{i}.emplace(::perfpilot::gen::make_any<{self._type(i)}>"
                           "(n, rng));")
            elif a.kind in ("buffer", "cstring"):
                count = "side * side" if self.plan.square and a.kind == "buffer" else "n"
                if alias is not None and i == alias[0]:
                    count = f"{count} + (alias_shift > 0 ? 1 : 0)"
                out.append(f"    perfpilot::gen::fill(s{i}, {count}, rng);")
            else:
                out.append(f"    ::perfpilot::gen::fill_any(s{i}, n, rng);")
            if a.mutated:
                out.append(f"    init{i}.emplace(*s{i});" if a.boxed else f"    init{i} = s{i};")
        if alias is not None:
            out.append(f"    alias_init = s{alias[0]};")
        out.append("  }")
        out.append("  void reset() {")
        if alias is not None:
            out.append(f"    if (alias_shift >= 0) s{alias[0]} = alias_init;")
        if has_self:
            out.append("    self.reset();")
            out.append("    self.emplace(*init_self);")
        for i, a in enumerate(self.args):
            if a.mutated:
                out += ([f"    s{i}.reset();", f"    s{i}.emplace(*init{i});"] if a.boxed
                        else [f"    s{i} = init{i};"])
        out.append("  }")
        return out

    def _call(self, has_self: bool, ret_value: str) -> list[str]:
        call_args = [f"s{i}.data()" if a.kind in ("buffer", "cstring")
                     else (f"*s{i}" if a.boxed else f"s{i}")
                     for i, a in enumerate(self.args)]
        alias = self.plan.alias
        if alias is not None:
            src, dst = alias
            call_args[src] = f"(alias_shift == 2 ? s{src}.data() + 1 : s{src}.data())"
            call_args[dst] = (f"(alias_shift < 0 ? s{dst}.data() : alias_shift == 1 ? "
                              f"s{src}.data() + 1 : s{src}.data())")
        if has_self:
            call_args.insert(0, "*self")
        call = f"f({', '.join(call_args)})"
        if ret_value == "void":
            body = f"{call};"
        elif self.plan.ret_boxed:
            body = f"result.emplace({call});"
        else:
            body = f"result = {call};"
        return ["  void call(Fn f) {", f"    {body}", "  }"]

    def _record(self, method: MethodInfo | None, ret_value: str) -> list[str]:
        out = ["  void record(perfpilot::Recorder& r) const {"]
        if ret_value != "void":
            out.append('    if (result) r.add("return value", *result);' if self.plan.ret_boxed
                       else '    r.add("return value", result);')
        if method is not None and not method.const:
            out.append('    r.add("object", *self);')
        alias = self.plan.alias
        for i, a in enumerate(self.args):
            if a.mutated:
                value = f"*s{i}" if a.boxed else f"s{i}"
                if alias is not None and i == alias[1]:
                    # Overlapping buffers: the writes landed in the input's storage.
                    value = f"(alias_shift < 0 ? s{i} : s{alias[0]})"
                out.append(f'    r.add("{a.param.name}", {value});')
        out.append("  }")
        return out

    def _hooks(self) -> list[str]:
        """perfpilot_make / perfpilot_record for each user type, in the type's namespace."""
        decls: list[str] = []
        defs: list[str] = []
        tag = "::perfpilot::ext::type_tag"
        rng = "std::mt19937_64& perfpilot_rng"
        for enum in self.plan.needs.enums.values():
            ns = _user_ns(enum.namespaces)
            t = enum.path
            head = f"inline {t} perfpilot_make({tag}<{t}>, std::size_t, {rng})"
            decls.append(f"{_open(ns)}{head};{_close(ns)}")
            if enum.values:
                body = (f"  static const {t} perfpilot_values[] = {{{', '.join(enum.values)}}};\n"
                        f"  return perfpilot_values[perfpilot_rng() % {len(enum.values)}];")
            else:
                body = f"  (void)perfpilot_rng;\n  return static_cast<{t}>(0);"
            defs.append(f"{_open(ns)}{head} {{\n{body}\n}}{_close(ns)}")
        for cls, ctor in self.plan.needs.classes.values():
            ns = _user_ns(cls.namespaces)
            t = cls.path
            make = f"inline {t} perfpilot_make({tag}<{t}>, std::size_t perfpilot_n, {rng})"
            rec = (f"inline void perfpilot_record(::perfpilot::Recorder& perfpilot_r, "
                   f"const {t}& perfpilot_x)")
            refill = (f"inline void perfpilot_refill({t}& perfpilot_x, std::size_t perfpilot_n, "
                      f"{rng})")
            decls.append(f"{_open(ns)}{make};\n{rec};\n{refill};{_close(ns)}")
            refills = "".join(f"  ::perfpilot::gen::refill_floats(perfpilot_x.{f.name}, "
                              "perfpilot_n, perfpilot_rng, true);\n"
                              for f in cls.fields if f.problem != "is const")
            defs.append(f"{_open(ns)}{make} {{\n{self._make_body(cls, ctor)}\n}}\n"
                        f"{rec} {{\n{_record_body(cls)}\n}}\n"
                        f"{refill} {{\n{refills}  (void)perfpilot_x;\n  (void)perfpilot_n;\n"
                        "  (void)perfpilot_rng;\n}" + _close(ns))
        return decls + defs

    def _make_body(self, cls: ClassDef, ctor: Ctor | None) -> str:
        fill = "::perfpilot::gen::fill_any"
        lines = []
        if ctor is not None and cls.user_ctors:
            names = []
            for k, (text, ty) in enumerate(ctor.params):
                arith = _arith(self.plan.types.resolve(ty))
                spelled = _strip(text)
                if arith is not None and arith not in _NOT_SIZES:
                    # Integer constructor arguments are dimensions: about sqrt(n) each keeps
                    # the object near n elements and two objects of one size compatible.
                    lines.append(f"  {spelled} perfpilot_a{k} = static_cast<{spelled}>("
                                 "::perfpilot::gen::side(perfpilot_n));")
                else:
                    lines.append(f"  {spelled} perfpilot_a{k} = ::perfpilot::gen::make_any<"
                                 f"{spelled}>(perfpilot_n, perfpilot_rng);")
                names.append(f"perfpilot_a{k}")
            lines.append(f"  {cls.path} perfpilot_x({', '.join(names)});")
            for f in cls.fields:
                lines.append(f"  ::perfpilot::gen::refill_floats(perfpilot_x.{f.name}, "
                             "perfpilot_n, perfpilot_rng);")
            lines.append("  return perfpilot_x;")
            return "\n".join(lines)
        lines.append(f"  {cls.path} perfpilot_x{{}};")
        for f in cls.fields:
            lines.append(f"  {fill}(perfpilot_x.{f.name}, perfpilot_n, perfpilot_rng);")
        lines.append("  (void)perfpilot_n;\n  (void)perfpilot_rng;\n  return perfpilot_x;")
        return "\n".join(lines)


def _record_body(cls: ClassDef) -> str:
    lines = [f"  perfpilot_r.field({k}, perfpilot_x.{f.name});" for k, f in enumerate(cls.fields)]
    if not lines:
        lines = ["  (void)perfpilot_r;\n  (void)perfpilot_x;"]
    return "\n".join(lines)


def _user_ns(namespaces: tuple[str, ...]) -> str:
    # Hooks live in the type's own namespace, anonymous ones included: that is where
    # argument-dependent lookup looks for them.
    return "::".join(["user", *namespaces])


def _open(ns: str) -> str:
    return "".join("namespace { " if n == "(anonymous)" else f"namespace {n} {{ "
                   for n in ns.split("::") if n) + "\n"


def _close(ns: str) -> str:
    return "\n" + "".join("} " for n in ns.split("::") if n)
