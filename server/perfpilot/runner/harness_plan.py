"""How the generated bench feeds one function: what each parameter is and how long it is.

``classify`` reads the signature (template arguments chosen first, template_args.py) and the body
(body_shapes.py): which parameters are scalars, sizes, index pairs, buffers, containers,
objects built field by field or through their class's public API (api_objects.py), and which
length each size takes. harness.py writes the bench from the resulting plan.
"""


from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from perfpilot.code.site import FunctionSite, Param
from perfpilot.runner.api_objects import (
    ApiObject,
    adds,
    plan_object,
)
from perfpilot.runner.body_shapes import Bound, flattened, loop_bounds, range_pair, subscripted
from perfpilot.runner.compdb import CompileFlags
from perfpilot.runner.harness_types import (
    FLOAT,
    MAPS,
    NOT_SIZES,
    RESTRICT,
    SEQUENCES,
    SETS,
    SIZE_NAME,
    Checker,
    HarnessUnsupported,
    Needs,
    arith_type,
    is_class,
    names_of,
    strip,
    type_key,
    value_text,
)

# Re-exported: callers know these as the harness's.
from perfpilot.runner.template_args import TemplateUnresolved, instantiate
from perfpilot.runner.unit_headers import site_types
from perfpilot.runner.unit_types import (
    ClassDef,
    MethodInfo,
    Ty,
    UnitTypes,
    method_info,
    namespace_member,
    parse_type,
)


@dataclass(frozen=True)
class HarnessArg:
    """How one parameter is produced, passed and compared."""

    kind: str  # scalar | size | lower | container | buffer | cstring | object | api
    param: Param
    storage: str  # C++ type of the storage member, as spelled in the function's namespace
    mutated: bool
    boxed: bool = False  # a class of the unit: held in std::optional (it may lack a default)
    tie: int = -1  # size or lower bound: the argument whose length it is (-1: the size n)
    last: bool = False  # tied size that is the last index (``i <= k``), not the count
    count: str = "n"  # elements of a container or buffer: n, side, or side * side
    address: bool = False  # passed by address: a pointer to one container or object
    generic: bool = False  # a buffer of user types (built with gen::fill_any)
    nonempty: bool = False  # a container an unsigned last index is tied to: never empty
    clamp: bool = False  # tied size: n, but at most the length of the argument it is tied to
    api: int = -1  # kind api: the object in HarnessPlan.objects


@dataclass(frozen=True)
class HarnessPlan:
    """How the bench feeds one function: arguments, the object for a method, the return."""

    args: tuple[HarnessArg, ...]
    types: UnitTypes
    needs: Needs
    namespaces: tuple[str, ...]  # where the function's own type names are spelled
    method: MethodInfo | None
    ret: str  # the return type as written ("void" for none)
    ret_boxed: bool
    # Buffers indexed as flattened rows (``a[i*n + j]``): sizes are a side, buffers side*side.
    square: bool = False
    # (input, output): a read-only buffer and a written one of the same type, which a caller
    # may pass overlapping; the aliased profile does.
    alias: tuple[int, int] | None = None
    # Objects built through their class's public API (api_objects.py), and which one is the
    # object a method is called on (-1: none, or built field by field).
    objects: tuple[ApiObject, ...] = ()
    self_api: int = -1
    site: FunctionSite | None = None  # the site as called (template arguments substituted)
    template_args: tuple[str, ...] = ()
    template_source: str = ""


class _Snapshot:
    """Undo what a failed check added to the checker's needs (names to mirror, hooks)."""

    def __init__(self, checker: Checker) -> None:
        self.checker = checker
        self.saved = (dict(checker.needs.classes), dict(checker.needs.enums),
                      set(checker.needs.names))

    def restore(self) -> None:
        needs = self.checker.needs
        needs.classes, needs.enums, needs.names = (dict(self.saved[0]), dict(self.saved[1]),
                                                   set(self.saved[2]))


def _guarded(checker: Checker) -> Callable[[Ty], str | None]:
    def problem(ty: Ty) -> str | None:
        snap = _Snapshot(checker)
        why = checker.problem(ty)
        if why:
            snap.restore()
        return why
    return problem


def _is_sequence(ty: Ty) -> bool:
    return ty.std_name in SEQUENCES | {"string", "basic_string"}


def _unsigned(kind: str | None) -> bool:
    return kind is not None and (kind.startswith(("unsigned", "uint")) or kind == "size_t")


class _Classifier:
    """One classification: the parameters in order, then what ties them together."""

    def __init__(self, site: FunctionSite, types: UnitTypes) -> None:
        self.site = site
        self.types = types
        self.checker = Checker(types)
        self.problem = _guarded(self.checker)
        self.objects: list[ApiObject] = []

    def arith_of(self, p: Param) -> str | None:
        return arith_type(self.types.resolve(parse_type(p.base, "cpp")))

    def api_object(self, cls: ClassDef, why: str, what: str) -> int:
        """The object of ``cls`` built through its public API (planned once per class)."""
        for k, o in enumerate(self.objects):
            if o.cls.qualified == cls.qualified:
                return k
        base = sum(o.size for o in self.objects)
        planned = plan_object(cls, self.types, self.problem, base=base, index=len(self.objects))
        if isinstance(planned, str):
            raise HarnessUnsupported(
                f"{what}: {why}; nor can it be built through its public API: {planned}")
        self.objects.append(planned)
        return len(self.objects) - 1

    def fixed_by_dimensions(self, cls: ClassDef) -> bool:
        """Whether the object the bench would build field by field is decided by its size
        alone: private state, set by a constructor from integers (dimensions) only, with no
        floating-point data to fill afterwards (a union-find of n singletons). Its public
        mutators then make far more telling inputs."""
        entry = self.checker.needs.classes.get(type_key(cls.namespaces, cls.path))
        ctor = entry[1] if entry is not None else None
        if ctor is None or not cls.user_ctors or all(f.public for f in cls.fields):
            return False
        if any((arith_type(self.types.resolve(ty)) or "float") in NOT_SIZES
               for _, ty in ctor.params):
            return False
        return not any(self._floats(f.type) for f in cls.fields)

    def _floats(self, ty: Ty) -> bool:
        ty = self.types.resolve(ty)
        return arith_type(ty) in FLOAT or any(self._floats(a) for a in ty.args)

    def api_instead(self, cls: ClassDef, snap: _Snapshot) -> int:
        """The API object to build instead of a field-by-field one that is fixed by its
        dimensions (-1 to keep the field-by-field one)."""
        if not self.fixed_by_dimensions(cls):
            return -1
        kept = _Snapshot(self.checker)
        snap.restore()
        base = sum(o.size for o in self.objects)
        planned = plan_object(cls, self.types, self.problem, base=base, index=len(self.objects))
        if isinstance(planned, str) or not any(adds(m, planned.mutators)
                                               for m in planned.mutators):
            kept.restore()
            return -1
        self.objects.append(planned)
        return len(self.objects) - 1

    def user_class(self, ty: Ty) -> ClassDef | None:
        ty = self.types.resolve(ty)
        if ty.args or ty.name.startswith(("std::", "::std::")):
            return None
        return self.types.find_class(ty)

    def value_arg(self, p: Param, arith: str | None) -> HarnessArg:
        """A parameter by value or reference."""
        base = strip(p.base)
        if p.reference == "&&":
            raise HarnessUnsupported(
                f"parameter '{p.name}' is an rvalue reference, which the generated "
                "harness does not pass")
        mutated = p.reference == "&" and not p.const
        if arith is not None:
            return HarnessArg("scalar", p, base, mutated)
        ty = parse_type(p.base, "cpp")
        snap = _Snapshot(self.checker)
        why = self.checker.problem(ty)
        cls = self.user_class(ty)
        if why:
            snap.restore()
            what = (f"parameter '{p.name}' has type '{p.type_text}', which the generated "
                    f"harness cannot build")
            if cls is None:
                raise HarnessUnsupported(f"{what}: {why}")
            k = self.api_object(cls, why, what)
            return HarnessArg("api", p, "::perfpilot::api::Object", mutated, api=k)
        k = self.api_instead(cls, snap) if cls is not None else -1
        if k >= 0:
            return HarnessArg("api", p, "::perfpilot::api::Object", mutated, api=k)
        boxed = is_class(self.types, ty)
        return HarnessArg("object" if boxed else "container", p, base, mutated, boxed)

    def pointer_arg(self, p: Param, arith: str | None, sized: bool) -> HarnessArg:
        """A pointer (or array) parameter: a buffer with a size, a C string, or the address
        of one container or object."""
        base = strip(p.base)
        mutated = not p.const
        if p.pointer > 1 or p.reference:
            raise HarnessUnsupported(
                f"parameter '{p.name}' has type '{p.type_text}', which the generated harness "
                "cannot build")
        if arith is not None:
            if sized:
                return HarnessArg("buffer", p, f"std::vector<{base}>", mutated)
            if arith == "char":
                return HarnessArg("cstring", p, "std::string", mutated)
            raise HarnessUnsupported(
                f"pointer parameter '{p.name}' has no size parameter beside it (named n, len, "
                "size, count, ..., an index pair l, r / lo, hi, or an integer bounding a loop "
                "over it)")
        ty = parse_type(p.base, "cpp")
        array = p.array or subscripted(self.site.text, self.site.language, p.name)
        why = self.problem(ty)
        what = f"parameter '{p.name}' has type '{p.type_text}', which the generated harness " \
               "cannot build"
        if why:
            cls = self.user_class(ty)
            if cls is None or array:
                raise HarnessUnsupported(f"{what}: {why}")
            k = self.api_object(cls, why, what)
            return HarnessArg("api", p, "::perfpilot::api::Object", mutated, address=True, api=k)
        if array:
            if not sized:
                raise HarnessUnsupported(
                    f"{what}: it points into an array and no parameter gives its length")
            return HarnessArg("buffer", p, f"std::vector<{base}>", mutated, generic=True)
        boxed = is_class(self.types, ty)
        return HarnessArg("object" if boxed else "container", p, base, mutated, boxed, address=True)


def classify(site: FunctionSite, compdb: CompileFlags | None = None
             ) -> tuple[list[HarnessArg], HarnessPlan]:
    """How each parameter is produced and checked; raise HarnessUnsupported otherwise.
    ``compdb``: the source's compile database entry (where its project headers are found)."""
    template_args: tuple[str, ...] = ()
    template_source = ""
    if site.is_template:
        try:
            inst = instantiate(site)
        except TemplateUnresolved as exc:
            raise HarnessUnsupported(
                f"{exc}; a bench spec must choose the template arguments") from exc
        site, template_args, template_source = inst.site, inst.args, inst.source
    types = site_types(site, compdb)
    if site.is_method and method_info(site, types) is None and namespace_member(site, types):
        site = replace(site, is_method=False)  # ``int ns::f(...) {...}``: a free function
    c = _Classifier(site, types)
    checker = c.checker
    method: MethodInfo | None = None
    self_api = -1
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
            snap = _Snapshot(checker)
            why = checker.problem(Ty(type_key((), method.cls.path)))
            if why:
                snap.restore()
                self_api = c.api_object(method.cls, why,
                                        f"the object for '{site.name}' cannot be built")
            else:
                self_api = c.api_instead(method.cls, snap)
    for p in site.params:
        if p.type_text == "...":
            raise HarnessUnsupported("variadic functions need a bench spec")
    lang = site.language
    ints = [p.name for p in site.params
            if p.pointer == 0 and not p.array and not p.reference
            and (c.arith_of(p) or "float") not in NOT_SIZES]
    sequences = [p.name for p in site.params
                 if p.pointer == 1 or p.array
                 or (p.pointer == 0 and _is_sequence(types.resolve(parse_type(p.base))))]
    pair = range_pair(site.text, lang, ints) if sequences else None
    bounds = loop_bounds(site.text, lang, set(ints) - set(pair[:2] if pair else ()),
                         set(sequences))
    size_names = [n for n in ints if SIZE_NAME.match(n) or n in bounds
                  or (pair is not None and n == pair[1])]
    sized = bool(size_names)
    args: list[HarnessArg] = []
    for p in site.params:
        arith = c.arith_of(p)
        if p.pointer == 0 and not p.array:
            a = c.value_arg(p, arith)
            if a.kind == "scalar" and not a.mutated:
                if pair is not None and p.name == pair[0]:
                    a = replace(a, kind="lower")
                elif p.name in size_names:
                    a = replace(a, kind="size")
            args.append(a)
        else:
            args.append(c.pointer_arg(p, arith, sized))
    has_buffer = any(a.kind == "buffer" or (a.address and a.kind != "api") for a in args) \
        or any(a.kind == "cstring" for a in args)
    if not has_buffer and not any(a.kind in ("container", "size", "object", "api")
                                  for a in args) and args and method is None:
        # Only scalars: the first integer scalar scales the work if one exists.
        for i, a in enumerate(args):
            if a.kind in ("scalar", "lower") and (c.arith_of(a.param) or "float") \
                    not in NOT_SIZES:
                args[i] = HarnessArg("size", a.param, a.storage, False)
                break
        args = [replace(a, kind="scalar") if a.kind == "lower" else a for a in args]
    ret = strip(site.return_type) or "void"
    ret_boxed = False
    ret_ty = parse_type(value_text(ret), "cpp")
    if ret != "void":
        if "*" in ret:
            raise HarnessUnsupported(
                f"return type '{site.return_type}' cannot be compared by the generated harness")
        if arith_type(types.resolve(ret_ty)) is None:
            why = checker.problem(ret_ty)
            if why:
                raise HarnessUnsupported(
                    f"return type '{site.return_type}' cannot be compared by the generated "
                    f"harness: {why}")
            ret_boxed = is_class(types, ret_ty)
    for a in args:
        if a.kind != "api":
            checker.needs.names |= names_of(parse_type(a.param.base, "cpp"))
    args, square = _shape(site, args, size_names, bounds, pair, c)
    _observable(site, method, self_api, c.objects, ret, args)
    buffers = [i for i, a in enumerate(args) if a.kind == "buffer" and not a.generic]
    inputs = [i for i in buffers if not args[i].mutated]
    outputs = [i for i in buffers if args[i].mutated]
    alias = next(((i, j) for i in inputs for j in outputs
                  if args[i].storage == args[j].storage
                  and not RESTRICT.search(args[i].param.type_text + args[j].param.type_text)),
                 None)
    plan = HarnessPlan(tuple(args), types, checker.needs, namespaces, method, ret, ret_boxed,
                       square, alias, tuple(c.objects), self_api, site, template_args,
                       template_source)
    return args, plan


def _shape(site: FunctionSite, args: list[HarnessArg], size_names: list[str],
           bounds: dict[str, Bound], pair: tuple[str, str, bool] | None,
           c: _Classifier) -> tuple[list[HarnessArg], bool]:
    """Lengths: flattened rows make sizes a side and those buffers side*side; a size that
    bounds a loop over one argument, or an index pair into it, takes that argument's length."""
    index = {a.param.name: i for i, a in enumerate(args)}
    buffers = [a.param.name for a in args if a.kind == "buffer"]
    flat = [a.param.name for a in args if a.kind == "container" and _flat_vector(a, c)]
    rows = flattened(site.text, site.language, buffers + flat, size_names)
    square = bool(rows)
    out: list[HarnessArg] = []
    for a in args:
        if a.kind == "buffer" and square:
            a = replace(a, count="side * side")
        elif a.kind == "container" and square and a.param.name in flat:
            a = replace(a, count="side * side" if a.param.name in rows else "side")
        out.append(a)
    if square:
        return out, True
    for i, a in enumerate(out):
        if a.kind not in ("size", "lower"):
            continue
        name = a.param.name
        target, last = "", False
        if pair is not None and name in pair[:2]:
            target = next((n for n in index if out[index[n]].kind in ("buffer", "container")
                           and _is_seq_arg(out[index[n]], c)), "")
            last = pair[2] and name == pair[1]
        elif name in bounds:
            target, last = bounds[name].target, bounds[name].inclusive
        if not target and a.kind == "size":
            # Not tied by the body: never longer than a vector of rows (about sqrt(n) of
            # them), which a loop up to this size may well walk.
            target = next((n for n in index if out[index[n]].kind == "container"
                           and _nested_sequence(out[index[n]], c)), "")
            if target:
                out[i] = replace(a, tie=index[target], clamp=True)
            continue
        if not target or target not in index:
            continue
        t = index[target]
        out[i] = replace(a, tie=t, last=last)
        if (last or a.kind == "lower") and _unsigned(c.arith_of(a.param)):
            out[t] = replace(out[t], nonempty=True)
    return out, False


def _nested_sequence(a: HarnessArg, c: _Classifier) -> bool:
    """A vector (or deque) of containers or strings: about sqrt(n) long, not n."""
    ty = c.types.resolve(parse_type(a.param.base, "cpp"))
    return ty.std_name in ("vector", "deque") and len(ty.args) == 1 \
        and (_is_sequence(ty.args[0]) or ty.args[0].std_name in SETS | MAPS)


def _flat_vector(a: HarnessArg, c: _Classifier) -> bool:
    ty = c.types.resolve(parse_type(a.param.base, "cpp"))
    return ty.std_name == "vector" and len(ty.args) == 1 and arith_type(ty.args[0]) is not None


def _is_seq_arg(a: HarnessArg, c: _Classifier) -> bool:
    return a.kind == "buffer" or _is_sequence(c.types.resolve(parse_type(a.param.base, "cpp")))


def _observable(site: FunctionSite, method: MethodInfo | None, self_api: int,
                objects: list[ApiObject], ret: str, args: list[HarnessArg]) -> None:
    """A function that changes an object built through its API must leave something to
    compare: a return value, another argument it writes, or the object's accessors."""
    changed = [(objects[a.api], f"argument '{a.param.name}'") for a in args
               if a.kind == "api" and a.mutated]
    if self_api >= 0 and method is not None and not method.const:
        changed.append((objects[self_api], "object"))
    if not changed or ret != "void" or any(a.mutated and a.kind != "api" for a in args) \
            or any(obj.accessors for obj, _ in changed):
        return
    obj, what = changed[0]
    raise HarnessUnsupported(
        f"'{site.name}' changes its {what}, of class '{obj.cls.path}' that the bench builds "
        "through its public API, but returns nothing and the class has no public const "
        "accessor to compare the object by")
