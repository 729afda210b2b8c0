"""Generated bench for functions whose parameters the runner can build and compare.

Supported parameters (by value, reference or const reference): arithmetic types; enums of the
unit (values from their enumerators); ``std::string``; ``std::vector``, ``std::deque``,
``std::list``, ``std::set``/``multiset``/``unordered_set``, ``std::map``/``multimap``/
``unordered_map``, ``std::pair``, ``std::tuple`` and ``std::array`` of supported types, nested
freely; classes and structs of the unit or of the project headers it includes (unit_headers.py),
built field by field when every field is public and no constructor is declared, else through
the public constructor with the most parameters whose types are supported, else through their
public API (api_objects.py); pointers or arrays with a length beside them (a size parameter, an
index pair, an integer bounding a loop over them: body_shapes.py); pointers to one container or
object; ``char*`` strings. Non-static member functions are called on an object built the same
way, and a non-const method's object is compared after the call. Function templates are
instantiated as template_args.py chooses. Return values and everything the function may modify
(non-const references and pointers) are recorded and compared; user types field by field (or
through their accessors when built through their API), unordered containers independently of
their iteration order.

The bench is its own translation unit. It repeats the definitions of the user's types it needs
(see unit_types.py) inside ``namespace perfpilot_harness::user``, and declares its hooks and
aliases with a ``perfpilot_`` prefix, so the user's names never meet the generator's.
"""

from __future__ import annotations

from perfpilot.code.site import FunctionSite, Param
from perfpilot.runner.api_objects import bench_aliases, bench_builder, bench_record
from perfpilot.runner.compdb import CompileFlags
from perfpilot.runner.harness_plan import HarnessArg, HarnessPlan
from perfpilot.runner.harness_plan import classify as classify
from perfpilot.runner.harness_types import (
    NOT_SIZES,
    Checker,
    arith_type,
    close_ns,
    open_ns,
    strip,
    user_ns,
    value_text,
)
from perfpilot.runner.harness_types import HarnessUnsupported as HarnessUnsupported
from perfpilot.runner.harness_types import trampoline_param_type as trampoline_param_type
from perfpilot.runner.unit_headers import site_types
from perfpilot.runner.unit_types import ClassDef, Ctor, MethodInfo, parse_type


def parameter_problem(site: FunctionSite, p: Param,
                      compdb: CompileFlags | None = None) -> str | None:
    """Why the generated harness cannot build parameter ``p`` on its own (None if it can);
    ``compdb``: the source's compile database entry."""
    if p.type_text == "...":
        return "variadic arguments"
    types = site_types(site, compdb)
    ty = parse_type(p.base, "cpp")
    if p.pointer or p.array:
        if p.pointer > 1 or arith_type(types.resolve(ty)) is None:
            return "a pointer to something other than numbers"
        return "a pointer: its length must come from another parameter"
    if p.reference == "&&":
        return "an rvalue reference"
    return Checker(types).problem(ty)


def harness_source(site: FunctionSite, compdb: CompileFlags | None = None) -> str:
    """C++ source of a bench (the perfpilot_bench.hpp API) for ``site``; may raise.
    ``compdb``: the source's compile database entry (where its project headers are found).

    The message of HarnessUnsupported ends with the command that drafts a spec to complete.
    """
    try:
        _, plan = classify(site, compdb)
    except HarnessUnsupported as exc:
        raise HarnessUnsupported(f"{exc} ({_draft_hint(site)})") from exc
    return _Writer(plan.site or site, plan).source()


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

    def _opaque(self, k: int) -> str:
        """The bench's spelling of an object built through its API (an incomplete type)."""
        obj = self.plan.objects[k]
        spaces = [n for n in obj.cls.namespaces if n != "(anonymous)"]
        return "::".join(["::perfpilot_harness::user", *spaces, obj.opaque])

    def _param_type(self, a: HarnessArg) -> str:
        if a.kind != "api":
            return trampoline_param_type(a.param, self.plan.types)
        const = "const " if a.param.const or not (a.param.reference or a.address) else ""
        return f"{const}{self._opaque(a.api)}{'*' if a.address else '&'}"

    def source(self) -> str:
        plan = self.plan
        top, body = plan.types.mirror(plan.needs.names)
        method = plan.method if plan.method is not None and not self.site.is_static else None
        ret_value = value_text(plan.ret)
        param_types = [self._param_type(a) for a in self.args]
        if method is not None:
            cls = self._opaque(plan.self_api) if plan.self_api >= 0 else method.cls.path
            self_type = ("const " if method.const else "") + cls + "&"
            param_types.insert(0, self_type)
        aliases = [f"using perfpilot_fn = {plan.ret} (*)({', '.join(param_types)});"]
        for i, a in enumerate(self.args):
            aliases.append(f"using perfpilot_s{i} = {a.storage};")
        if method is not None and plan.self_api < 0:
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
            *self._api_objects(),
            open_ns(self.ns),
            *aliases,
            close_ns(self.ns),
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
        if has_self and self.plan.self_api >= 0:
            out.append(f"  ::perfpilot::api::Object self{{{self._object(self.plan.self_api)}}};")
        elif has_self:
            out.append(f"  std::optional<{self.ns}::perfpilot_self> self, init_self;")
        for i, a in enumerate(self.args):
            if a.kind == "api":
                out.append(f"  ::perfpilot::api::Object s{i}{{{self._object(a.api)}}};")
                continue
            t = f"std::optional<{self._type(i)}>" if a.boxed else self._type(i)
            out.append(f"  {t} s{i}{{}};")
            if a.mutated:
                out.append(f"  {t} init{i}{{}};")
        if ret_value != "void":
            t = f"{self.ns}::perfpilot_ret"
            out.append(f"  std::optional<{t}> result;" if self.plan.ret_boxed
                       else f"  {t} result{{}};")
        return out

    def _object(self, k: int) -> str:
        """Constructor arguments of the bench's handle on API object k."""
        obj = self.plan.objects[k]
        spaces = [n for n in obj.cls.namespaces if n != "(anonymous)"]
        builder = "::".join(["::perfpilot_harness::user", *spaces, obj.builder])
        return f"{obj.base}, &{builder}"

    def _length(self, t: int) -> str:
        """The length of argument t, which a size or index is tied to."""
        a = self.args[t]
        if a.kind == "buffer":
            # The buffer's own count (an aliased input holds one element more).
            return "std::max<std::size_t>(n, 1)" if a.nonempty else "n"
        return f"s{t}.size()"

    def _setup(self, has_self: bool) -> list[str]:
        out = ["  void setup(std::size_t n, std::mt19937_64& rng) {"]
        alias = self.plan.alias
        if alias is not None:
            # Aliased profile: 0 the same buffer, 1 the output one element past the input,
            # 2 one element before it (the input buffer then holds one element more).
            out.append("    alias_shift = ::perfpilot::gen::profile() == "
                       "::perfpilot::gen::kAliased ? static_cast<int>(rng() % 3) : -1;")
        if self.plan.square or any("side" in a.count for a in self.args):
            out.append("    const std::size_t side = ::perfpilot::gen::side(n);")
        if has_self and self.plan.self_api >= 0:
            out.append("    self.build(n, rng);")
        elif has_self:
            out.append(f"    self.emplace(::perfpilot::gen::make_any<{self.ns}::perfpilot_self>"
                       "(n, rng));")
            out.append("    init_self.emplace(*self);")
        tied: list[str] = []
        for i, a in enumerate(self.args):
            count = f"std::max<std::size_t>({a.count}, 1)" if a.nonempty else a.count
            if a.kind in ("size", "lower") and a.tie >= 0:
                tied += self._tied(i, a)
            elif a.kind == "size":
                size = "side" if self.plan.square else "n"
                out.append(f"    s{i} = static_cast<{self._type(i)}>({size});")
            elif a.kind in ("scalar", "lower"):
                out.append(f"    perfpilot::gen::scalar(s{i}, rng);")
            elif a.kind == "api":
                out.append(f"    s{i}.build(n, rng);")
            elif a.boxed:
                out.append(f"    s{i}.emplace(::perfpilot::gen::make_any<{self._type(i)}>"
                           "(n, rng));")
            elif a.kind in ("buffer", "cstring"):
                if alias is not None and i == alias[0]:
                    count = f"{count} + (alias_shift > 0 ? 1 : 0)"
                fill = "::perfpilot::gen::fill_any" if a.generic else "perfpilot::gen::fill"
                out.append(f"    {fill}(s{i}, {count}, rng);")
            else:
                out.append(f"    ::perfpilot::gen::fill_any(s{i}, {count}, rng);")
            if a.mutated and a.kind != "api":
                out.append(f"    init{i}.emplace(*s{i});" if a.boxed else f"    init{i} = s{i};")
        out += tied
        if alias is not None:
            out.append(f"    alias_init = s{alias[0]};")
        out.append("  }")
        out.append("  void reset() {")
        if alias is not None:
            out.append(f"    if (alias_shift >= 0) s{alias[0]} = alias_init;")
        method = self.plan.method
        if has_self and self.plan.self_api >= 0:
            if method is not None and not method.const:
                out.append("    self.rebuild();")
        elif has_self:
            out.append("    self.reset();")
            out.append("    self.emplace(*init_self);")
        for i, a in enumerate(self.args):
            if a.mutated and a.kind == "api":
                out.append(f"    s{i}.rebuild();")
            elif a.mutated:
                out += ([f"    s{i}.reset();", f"    s{i}.emplace(*init{i});"] if a.boxed
                        else [f"    s{i} = init{i};"])
        out.append("  }")
        return out

    def _tied(self, i: int, a: HarnessArg) -> list[str]:
        """A size or index taken from the length of the argument it bounds (after that
        argument is built): the length, the last index, or a lower bound up to half of it."""
        t = self._type(i)
        length = self._length(a.tie)
        if a.kind == "lower":
            return [f"    s{i} = static_cast<{t}>(::perfpilot::gen::profile() == "
                    f"::perfpilot::gen::kNatural ? 0 : rng() % ({length} / 2 + 1));"]
        if a.last:
            return [f"    s{i} = static_cast<{t}>(static_cast<long long>({length}) - 1);"]
        if a.clamp:
            return [f"    s{i} = static_cast<{t}>(std::min<std::size_t>(n, {length}));"]
        return [f"    s{i} = static_cast<{t}>({length});"]

    def _call(self, has_self: bool, ret_value: str) -> list[str]:
        call_args: list[str] = []
        for i, a in enumerate(self.args):
            if a.kind in ("buffer", "cstring"):
                call_args.append(f"s{i}.data()")
            elif a.kind == "api":
                ptr = f"static_cast<{self._opaque(a.api)}*>(s{i}.at())"
                call_args.append(ptr if a.address else f"*{ptr}")
            elif a.address:
                call_args.append(f"&*s{i}" if a.boxed else f"&s{i}")
            else:
                call_args.append(f"*s{i}" if a.boxed else f"s{i}")
        alias = self.plan.alias
        if alias is not None:
            src, dst = alias
            call_args[src] = f"(alias_shift == 2 ? s{src}.data() + 1 : s{src}.data())"
            call_args[dst] = (f"(alias_shift < 0 ? s{dst}.data() : alias_shift == 1 ? "
                              f"s{src}.data() + 1 : s{src}.data())")
        if has_self and self.plan.self_api >= 0:
            call_args.insert(0, f"*static_cast<{self._opaque(self.plan.self_api)}*>(self.at())")
        elif has_self:
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
            if self.plan.self_api >= 0:
                out += bench_record(self.plan.objects[self.plan.self_api], self.plan.types,
                                    "self", "object")
            else:
                out.append('    r.add("object", *self);')
        alias = self.plan.alias
        for i, a in enumerate(self.args):
            if a.mutated and a.kind == "api":
                out += bench_record(self.plan.objects[a.api], self.plan.types, f"s{i}",
                                    a.param.name)
            elif a.mutated:
                value = f"*s{i}" if a.boxed else f"s{i}"
                if alias is not None and i == alias[1]:
                    # Overlapping buffers: the writes landed in the input's storage.
                    value = f"(alias_shift < 0 ? s{i} : s{alias[0]})"
                out.append(f'    r.add("{a.param.name}", {value});')
        out.append("    (void)r;")
        out.append("  }")
        return out

    def _api_objects(self) -> list[str]:
        """For each object built through its API: its opaque name and accessor types, and the
        builder that constructs it and calls its mutators (after the hooks it may use)."""
        out: list[str] = []
        for obj in self.plan.objects:
            ns = user_ns(obj.cls.namespaces)
            out.append(f"{open_ns(ns)}{chr(10).join(bench_aliases(obj))}{close_ns(ns)}")
        out += [bench_builder(obj, self.plan.types) for obj in self.plan.objects]
        return out

    def _hooks(self) -> list[str]:
        """perfpilot_make / perfpilot_record for each user type, in the type's namespace."""
        decls: list[str] = []
        defs: list[str] = []
        tag = "::perfpilot::ext::type_tag"
        rng = "std::mt19937_64& perfpilot_rng"
        for enum in self.plan.needs.enums.values():
            ns = user_ns(enum.namespaces)
            t = enum.path
            head = f"inline {t} perfpilot_make({tag}<{t}>, std::size_t, {rng})"
            decls.append(f"{open_ns(ns)}{head};{close_ns(ns)}")
            if enum.values:
                body = (f"  static const {t} perfpilot_values[] = {{{', '.join(enum.values)}}};\n"
                        f"  return perfpilot_values[perfpilot_rng() % {len(enum.values)}];")
            else:
                body = f"  (void)perfpilot_rng;\n  return static_cast<{t}>(0);"
            defs.append(f"{open_ns(ns)}{head} {{\n{body}\n}}{close_ns(ns)}")
        for cls, ctor in self.plan.needs.classes.values():
            ns = user_ns(cls.namespaces)
            t = cls.path
            make = f"inline {t} perfpilot_make({tag}<{t}>, std::size_t perfpilot_n, {rng})"
            rec = (f"inline void perfpilot_record(::perfpilot::Recorder& perfpilot_r, "
                   f"const {t}& perfpilot_x)")
            refill = (f"inline void perfpilot_refill({t}& perfpilot_x, std::size_t perfpilot_n, "
                      f"{rng})")
            decls.append(f"{open_ns(ns)}{make};\n{rec};\n{refill};{close_ns(ns)}")
            refills = "".join(f"  ::perfpilot::gen::refill_floats(perfpilot_x.{f.name}, "
                              "perfpilot_n, perfpilot_rng, true);\n"
                              for f in cls.fields if f.problem != "is const")
            defs.append(f"{open_ns(ns)}{make} {{\n{self._make_body(cls, ctor)}\n}}\n"
                        f"{rec} {{\n{_record_body(cls)}\n}}\n"
                        f"{refill} {{\n{refills}  (void)perfpilot_x;\n  (void)perfpilot_n;\n"
                        "  (void)perfpilot_rng;\n}" + close_ns(ns))
        return decls + defs

    def _make_body(self, cls: ClassDef, ctor: Ctor | None) -> str:
        fill = "::perfpilot::gen::fill_any"
        lines = []
        if ctor is not None and cls.user_ctors:
            names = []
            for k, (text, ty) in enumerate(ctor.params):
                arith = arith_type(self.plan.types.resolve(ty))
                spelled = strip(text)
                if arith is not None and arith not in NOT_SIZES:
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
