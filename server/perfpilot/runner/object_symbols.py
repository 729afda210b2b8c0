"""What an imported symbol gives the code that imports it: pure library work, a standard
stream, threads, or a capability (process control, files, clocks, ...).

Symbols are judged by the entity they name: the C name (glibc's fortified and ISO-versioned
aliases folded onto it: ``__printf_chk`` is ``printf``), or for C++ the demangled, qualified
name without template arguments, parameters or return type (``std::chrono::_V2::steady_clock
::now``). The allowlist names pure work (maths, memory and string functions, allocation, the C++
runtime, OpenMP's compiler entry points, libstdc++ members of strings, containers, string
streams and locale reads); anything else is a capability the original must already import.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from perfpilot.runner import capability_lists as L


@dataclass(frozen=True)
class Kind:
    """How the policy treats one imported symbol.

    ``pure``: always allowed. ``family``: allowed when the original imports any symbol of the
    same family (stdout, stderr, stdin, streams, threads). ``denied``: allowed only when the
    original imports the same symbol; ``label`` says what it gives (``process control``).
    """

    verdict: Literal["pure", "family", "denied"]
    family: str = ""
    label: str = ""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


PURE = Kind("pure")
_UNKNOWN = Kind("denied", label="not a pure library function")

# Families of symbols one of which the original may import for the candidate to use others.
FAMILY_LABELS = {"stdout": "standard output", "stderr": "standard error",
                 "stdin": "standard input", "streams": "stream I/O", "threads": "threads"}
# Standard streams: a FILE* function or stream set-up may be used when the original uses any
# standard stream; the stream objects themselves only on the channel the original uses.
_CHANNELS = frozenset({"stdout", "stderr", "stdin"})

# -- C symbols -----------------------------------------------------------------------------
_C_PURE = L.C_FUNCTIONS | _words("""
sincos sincosf sincosl exp10 exp10f exp10l pow10 memalign bcmp rawmemchr strchrnul memrchr
qsort_r __errno_location __ctype_b_loc __ctype_tolower_loc __ctype_toupper_loc __assert_fail
__libc_single_threaded __stack_chk_fail __stack_chk_guard __dso_handle _GLOBAL_OFFSET_TABLE_
__tls_get_addr __gxx_personality_v0 __gcc_personality_v0 _Unwind_Resume __cxa_pure_virtual
__cxa_deleted_virtual pthread_mutex_lock pthread_mutex_unlock pthread_mutex_trylock
pthread_mutex_init pthread_mutex_destroy
omp_get_thread_num omp_get_num_threads omp_get_max_threads omp_get_num_procs omp_in_parallel
omp_get_level omp_get_active_level omp_get_team_size omp_get_ancestor_thread_num
omp_get_team_num omp_get_num_teams omp_get_dynamic omp_get_nested omp_get_thread_limit
omp_get_max_active_levels omp_get_schedule omp_init_lock omp_destroy_lock omp_set_lock
omp_unset_lock omp_test_lock omp_init_nest_lock omp_destroy_nest_lock omp_set_nest_lock
omp_unset_nest_lock omp_test_nest_lock
""")
# The compiler's own runtime: OpenMP entry points, C++ ABI helpers, the checks sanitizers
# insert (not their API: `__sanitizer_set_report_path` writes files), libgcc arithmetic.
_C_PURE_PATTERN = re.compile(
    r"^(GOMP_\w+|__cxa_\w+|__ubsan_(handle|vptr)_\w+|__tsan_(read|write|func_entry|func_exit|"
    r"init|atomic|vptr|unaligned)\w*|__asan_(report|load|store|init|version_mismatch_check|"
    r"register|unregister|handle_no_return|stack_malloc|stack_free|option_detect|memcpy|"
    r"memset|memmove|set_shadow|alloca_poison|allocas_unpoison|before_dynamic_init|"
    r"after_dynamic_init|shadow_memory_dynamic_address|poison_stack_memory|"
    r"unpoison_stack_memory|exp_)\w*|__(fpclassify|isnan|isinf|finite|signbit|issignaling)[fl]?|"
    r"__(u?(div|mod)[dt]i3|mul[dt]i3|mulv[dst]i3|(ashl|ashr|lshr)[dt]i3|neg[dt]i2|"
    r"u?cmp[dt]i2|(popcount|clz|ctz|ffs|parity)[sdt]i2|bswap[sd]i2|float(un)?[dt]i[sdxt]f|"
    r"fix(uns)?[sdxt]f[dt]i|(mul|div)[sdxt]c3|powi[sdxt]f2|extend[hsd]f[sdx]f2|"
    r"trunc[sdx]f[hs]f2|(add|sub|neg|abs)v[sd]i[23]))$")
# Vector maths from libmvec (``_ZGVdN4v_sin``): the same pure functions, several lanes at once.
_VECTOR_MATH = re.compile(r"^_ZGV[a-z][NM]\d+[a-z0-9_]*?_(\w+)$")
_THREADS_C = _words("""
pthread_create pthread_join pthread_detach pthread_tryjoin_np pthread_timedjoin_np thrd_create
thrd_join thrd_detach
""")
_STREAM_C = L.STREAM_FUNCTIONS | _words("__overflow __uflow _IO_putc _IO_getc")


def c_base(name: str) -> str:
    """``name`` with glibc's aliases folded: ``__printf_chk`` → ``printf``,
    ``__isoc99_scanf`` → ``scanf``, ``__exp_finite`` → ``exp``."""
    m = re.match(r"^__(\w+?)_chk$", name)
    if m:
        return m.group(1)
    m = re.match(r"^__isoc(99|23)_(\w+)$", name)
    if m:
        return m.group(2)
    m = re.match(r"^__(\w+)_finite$", name)
    if m:
        return m.group(1)
    return name


def _category(name: str) -> str | None:
    for label, names in L.CATEGORIES:
        if name in names:
            return label
    if L.EXEC.match(name):
        return "process control"
    return None


def _c_kind(name: str) -> Kind:
    base = c_base(name)
    vector = _VECTOR_MATH.match(name)
    if vector is not None:
        return PURE if vector.group(1) in L.C_FUNCTIONS else _UNKNOWN
    if base in L.STREAM_HANDLES:
        return Kind("family", L.STREAM_HANDLES[base])
    if base in L.CHANNEL_OF:
        return Kind("family", L.CHANNEL_OF[base])
    if base in _STREAM_C:
        return Kind("family", "streams")
    if base in _THREADS_C:
        return Kind("family", "threads")
    category = _category(base)
    if category is not None:
        return Kind("denied", label=category)
    if base in _C_PURE or _C_PURE_PATTERN.match(name):
        return PURE
    return _UNKNOWN


# -- C++ symbols (qualified names, template arguments removed) ------------------------------
_CXX_DENIED: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^std::(__cxx11::)?(filesystem|experimental::filesystem)::"),
     "files and I/O"),
    (re.compile(r"(^|::)(basic_ofstream|basic_ifstream|basic_fstream|basic_filebuf|"
                r"__basic_file)(::|$)"), "files and I/O"),
    (re.compile(r"^std::chrono::"), "clocks and scheduling"),
    (re.compile(r"^std::this_thread::"), "clocks and scheduling"),
    (re.compile(r"^std::random_device::"), "the machine's random device"),
    (re.compile(r"^std::locale::global$|^std::(set_new_handler|set_terminate|"
                r"set_unexpected|quick_exit|exit|abort|_Exit)$"),
     "process-wide state"),
    (re.compile(r"^std::(__once_call|__once_callable|__once_proxy|call_once)"),
     "not a pure library function"),
)
_CXX_STREAM_OBJECTS = {"std::cout": "stdout", "std::wcout": "stdout", "std::cerr": "stderr",
                       "std::clog": "stderr", "std::wcerr": "stderr", "std::wclog": "stderr",
                       "std::cin": "stdin", "std::wcin": "stdin"}
_CXX_THREADS = re.compile(r"^std::(thread|jthread)(::|$)")
# libstdc++ members of pure types and the C++ runtime, by qualified name (each alternative is
# a scope or a name; members of a scope are included).
_CXX_PURE_SCOPES = _words("""
__cxxabiv1 __gnu_cxx::__snprintf_lite __gnu_cxx::__concat_size_t __gnu_cxx::__exchange_and_add
__gnu_cxx::__atomic_add
std::basic_string std::__cxx11::basic_string std::basic_ostringstream
std::__cxx11::basic_ostringstream std::basic_istringstream std::__cxx11::basic_istringstream
std::basic_stringstream std::__cxx11::basic_stringstream std::basic_stringbuf
std::__cxx11::basic_stringbuf std::basic_ostream std::basic_istream std::basic_iostream
std::basic_ios std::basic_streambuf std::ios_base std::locale std::ctype std::num_put
std::num_get std::numpunct std::__cxx11::numpunct std::codecvt std::collate
std::__cxx11::collate std::moneypunct std::__cxx11::moneypunct std::__ctype_abstract_base
std::__detail std::_List_node_base std::__cxx11::_List_node_base std::__shared_count
std::__exception_ptr std::exception std::bad_alloc std::bad_array_new_length std::bad_cast
std::bad_typeid std::bad_function_call std::bad_optional_access std::bad_variant_access
std::bad_any_cast std::bad_exception std::logic_error std::runtime_error std::domain_error
std::invalid_argument std::length_error std::out_of_range std::range_error
std::overflow_error std::underflow_error std::type_info std::nested_exception
std::error_category std::_V2::error_category std::system_error std::__cow_string
std::__sso_string std::_Hash_bytes std::_Fnv_hash_bytes std::__glibcxx_assert_fail
std::__replacement_assert std::__ostream_insert std::__istream_extract std::operator<<
std::operator>> std::getline std::ws std::endl std::ends std::flush std::use_facet
std::has_facet std::__use_facet std::__has_facet std::to_chars std::from_chars std::nothrow
std::align_val_t std::_V2::generic_category std::_V2::system_category std::generic_category
std::system_category std::terminate std::current_exception std::rethrow_exception
std::uncaught_exception std::uncaught_exceptions std::__convert_to_v std::__convert_from_v
std::__int_to_char std::__add_grouping std::__verify_grouping std::__pad
std::pmr::new_delete_resource std::pmr::null_memory_resource std::pmr::get_default_resource
std::pmr::memory_resource std::pmr::monotonic_buffer_resource
std::pmr::unsynchronized_pool_resource std::pmr::synchronized_pool_resource
std::pmr::__pool_resource
""")
_CXX_PURE = re.compile(
    r"^(operator (new|delete)(\[\])?$|std::(_Rb_tree_|_Sp_|__throw_|__to_chars|__from_chars)"
    r"\w*(::|$)|__gnu_cxx::__throw_\w+$|("
    + "|".join(re.escape(s) for s in sorted(_CXX_PURE_SCOPES)) + r")(::|$))")
_STREAM_SETUP = re.compile(r"^std::ios_base::sync_with_stdio$")
_SPECIAL = re.compile(r"^(vtable|typeinfo|typeinfo name|VTT|construction vtable|"
                      r"guard variable|TLS init function|TLS wrapper function) for ")
_OPERATOR = re.compile(r"operator(<<=|>>=|<=>|<<|>>|<=|>=|->\*|->|<|>|\(\)|\[\]|"
                       r" new\[\]| delete\[\]| new| delete)")
_BUILTIN_TYPE = re.compile(r"^(unsigned |signed )?(bool|char|wchar_t|char8_t|char16_t|"
                           r"char32_t|short|int|long|long long|__int128|float|double|"
                           r"long double|void|decltype\(nullptr\)|std::nullptr_t)"
                           r"( const| volatile|\*|&)*$")


def _strip_templates(text: str) -> str:
    out: list[str] = []
    depth = 0
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def entity(demangled: str) -> tuple[str, str]:
    """(``vtable for``-style prefix or "", the qualified name the symbol defines with its
    template arguments, parameters and return type removed)."""
    prefix = ""
    special = _SPECIAL.match(demangled)
    if special is not None:
        prefix, demangled = special.group(0).strip(), demangled[special.end():]
    ops: list[str] = []

    def hold(m: re.Match[str]) -> str:
        ops.append(m.group(0))
        return f"operator@{len(ops) - 1}@"

    text = _OPERATOR.sub(hold, demangled)
    text = re.sub(r"(operator@\d+@) <", r"\1<", text)
    # A conversion operator: `operator bool`, `operator std::string`.
    text = re.sub(r"\boperator (?!@)[^()]*?(?=\()", "operator@conv", text)
    # Drop the trailing parameter list (with qualifiers after it).
    body = text.rstrip()
    body = re.sub(r"(\s+(const|volatile|&&|&|noexcept|\[clone [^]]*\]))+$", "", body)
    if body.endswith(")"):
        depth = 0
        for i in range(len(body) - 1, -1, -1):
            if body[i] == ")":
                depth += 1
            elif body[i] == "(":
                depth -= 1
                if depth == 0:
                    body = body[:i]
                    break
    # Drop a return type: the name starts after the last space outside brackets.
    depth = 0
    start = 0
    for i in range(len(body) - 1, -1, -1):
        ch = body[i]
        if ch in ">)":
            depth += 1
        elif ch in "<(":
            depth -= 1
        elif ch == " " and depth == 0:
            start = i + 1
            break
    name = _strip_templates(body[start:])
    name = re.sub(r"operator@(\d+)@", lambda m: ops[int(m.group(1))], name)
    return prefix, name.replace("operator@conv", "operator (conversion)")


def _cxx_kind(name: str, prefix: str) -> Kind:
    if prefix and _BUILTIN_TYPE.match(name):
        return PURE  # typeinfo for int, char const*, ...
    for pattern, label in _CXX_DENIED:
        if pattern.search(name):
            return Kind("denied", label=label)
    if name in _CXX_STREAM_OBJECTS:
        return Kind("family", _CXX_STREAM_OBJECTS[name])
    if _CXX_THREADS.match(name):
        return Kind("family", "threads")
    if _STREAM_SETUP.match(name):
        return Kind("family", "streams")
    if _CXX_PURE.match(name):
        return PURE
    return _UNKNOWN


# A locale by name reads the locale files, and `std::locale("")` the environment.
_NAMED_LOCALE = re.compile(r"^std::locale::locale\(.*(char const\*|basic_string)")


def classify(symbol: str, demangled: str) -> tuple[Kind, str]:
    """How the policy treats ``symbol`` (as the object spells it; ``demangled`` is its
    demangled form, or the same text when it is not a C++ name), and the name to show."""
    if not symbol.startswith("_Z") or _VECTOR_MATH.match(symbol):
        return _c_kind(symbol), c_base(symbol)
    prefix, name = entity(demangled)
    shown = f"{prefix} {name}" if prefix else name
    if _NAMED_LOCALE.match(demangled):
        return Kind("denied", label="environment and identity"), shown
    return _cxx_kind(name, prefix), shown


def family_allowed(family: str, original: frozenset[str]) -> bool:
    """Whether a symbol of ``family`` may be added when the original imports symbols of the
    families ``original``: a stream channel the original uses; FILE* functions and stream
    set-up when it uses any standard stream; threads when it starts threads itself."""
    if family == "streams":
        return bool(original & (_CHANNELS | {"streams"}))
    return family in original
