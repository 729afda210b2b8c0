"""Functions the generated harness feeds: objects built through their public API, types from
the project's headers, flattened matrices in vectors, index pairs and loop bounds tied to their
buffers, pointers to containers, function templates and file-level using-declarations.

Most checks generate the bench and entry, build both sides and the driver with g++ and run the
driver's validation (``check``) directly: original against itself, and against a right and a
wrong rewrite. Bounds-checked vectors (``_GLIBCXX_ASSERTIONS``) and AddressSanitizer make an
out-of-range input fail the original's build of the check.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.code.site import FunctionSite
from perfpilot.code.splice import splice
from perfpilot.progress import JobContext
from perfpilot.runner.build import install_headers
from perfpilot.runner.compdb import CompileFlags, flags_for
from perfpilot.runner.entry import EntryError, entry_source
from perfpilot.runner.harness import HarnessUnsupported, classify, harness_source
from perfpilot.runner.measure import verify_and_measure
from perfpilot.runner.values import Tuning
from perfpilot.settings import RunnerSettings

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")

SIZES = "0,1,2,7,33,100"
CASES = "0:1,1:2,2:3,3:4,5:5"
# The engine's path is asserted by what it compares, never by a timing verdict: a short timing
# (few pairs, no retry, small sizes) is enough to reach one.
FAST = Tuning(target_sample_s=0.0005, edge_sizes=(0, 1, 7, 33), budget_s=2.0, noisy_retries=0,
              max_size=1 << 12, profiles=(0, 1), seeds_per_profile=1, mutants=False,
              coverage=False, sanitizers=False)
SETTINGS = RunnerSettings(pairs=4, callgrind=False, run_timeout_s=30.0)


@dataclass(frozen=True)
class Built:
    """The driver and the original's library for one function, in ``folder``."""

    folder: Path
    site: FunctionSite
    flags: tuple[str, ...]
    compdb: CompileFlags | None = None


def build(tmp: Path, unit: str, name: str, *, flags: tuple[str, ...] = (),
          path: Path | None = None) -> Built:
    """Generate the bench and entry for ``name`` and build the original and the driver; a
    ``path`` with a compile database entry has its project headers read through it."""
    site = function_by_name(unit, "cpp", name, uri=path.as_uri() if path else "")
    compdb = flags_for(path) if path else None
    tmp.mkdir(parents=True, exist_ok=True)
    install_headers(tmp)
    (tmp / "a.cpp").write_text(unit + "\n" + entry_source(site, compdb), encoding="utf-8")
    (tmp / "bench.cpp").write_text(harness_source(site, compdb)
                                   + "\n#include <perfpilot_driver.hpp>\n", encoding="utf-8")
    _gxx(tmp, flags, "-shared", "-fPIC", "a.cpp", "-o", "a.so")
    _gxx(tmp, flags, "-Iinclude", "bench.cpp", "-o", "driver", "-ldl")
    return Built(tmp, site, flags, compdb)


def _gxx(folder: Path, flags: tuple[str, ...], *argv: str) -> None:
    res = subprocess.run(["g++", "-std=c++17", "-O1", *flags, *argv], cwd=folder,
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]


def check(b: Built, candidate: str | None = None, tag: str = "b") -> list[str]:
    """The driver's verdict per case on the original against ``candidate`` (itself if None):
    ``ok``, ``mismatch`` or ``noinputs``; a crash of the driver fails the test."""
    lib = "./a.so"
    if candidate is not None:
        unit = splice(b.site, candidate, ()) + "\n" + entry_source(b.site, b.compdb)
        (b.folder / f"{tag}.cpp").write_text(unit, encoding="utf-8")
        _gxx(b.folder, b.flags, "-shared", "-fPIC", f"{tag}.cpp", "-o", f"{tag}.so")
        lib = f"./{tag}.so"
    res = subprocess.run(["./driver", "check", "./a.so", lib, f"sizes={SIZES}",
                          f"cases={CASES}", "fork=0"], cwd=b.folder, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    events = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
    return [str(e["status"]) for e in events if e.get("event") == "case"]


def kinds(unit: str, name: str) -> dict[str, tuple[str, int, bool]]:
    """(kind, tie, last) per parameter."""
    args, _ = classify(function_by_name(unit, "cpp", name))
    return {a.param.name: (a.kind, a.tie, a.last) for a in args}


# ---- Objects through their public API ---------------------------------------------------------

LEDGER = """\
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

class Ledger {
 public:
  void add(const std::string& who, double amount) {
    if (who.empty()) throw std::invalid_argument("no name");
    balances_[who] += amount;
  }
  void clear() { balances_.clear(); }
  std::size_t size() const { return balances_.size(); }
  double balance(const std::string& who) const {
    auto it = balances_.find(who);
    return it == balances_.end() ? 0.0 : it->second;
  }
  std::vector<std::string> overdrawn() const;
  void apply_fee(double fee);
  void audit();  // declared, defined in another file: never called by the bench

 private:
  std::map<std::string, double> balances_;
};

std::vector<std::string> Ledger::overdrawn() const {
  std::vector<std::string> out;
  for (const auto& kv : balances_)
    if (kv.second < 0) out.push_back(kv.first);
  return out;
}

void Ledger::apply_fee(double fee) {
  for (auto& kv : balances_) kv.second -= fee;
}

double owed(const Ledger& l, const std::vector<std::string>& names) {
  double s = 0;
  for (const auto& n : names) s += l.balance(n) < 0 ? -l.balance(n) : 0.0;
  return s;
}
"""

OVERDRAWN_RIGHT = """\
std::vector<std::string> Ledger::overdrawn() const {
  std::vector<std::string> out;
  out.reserve(balances_.size());
  for (auto it = balances_.begin(); it != balances_.end(); ++it)
    if (it->second < 0.0) out.push_back(it->first);
  return out;
}"""

# Ignores the entries of a name of one character.
OVERDRAWN_WRONG = """\
std::vector<std::string> Ledger::overdrawn() const {
  std::vector<std::string> out;
  for (const auto& kv : balances_)
    if (kv.second < 0 && kv.first.size() > 1) out.push_back(kv.first);
  return out;
}"""

FEE_RIGHT = """\
void Ledger::apply_fee(double fee) {
  for (auto it = balances_.begin(); it != balances_.end(); ++it) it->second = it->second - fee;
}"""

FEE_WRONG = """\
void Ledger::apply_fee(double fee) {
  bool first = true;
  for (auto& kv : balances_) { if (!first) kv.second -= fee; first = false; }
}"""


def test_a_class_with_private_state_is_planned_through_its_mutators() -> None:
    _, plan = classify(function_by_name(LEDGER, "cpp", "overdrawn"))
    assert plan.self_api == 0
    obj = plan.objects[0]
    assert [m.name for m in obj.mutators] == ["add", "clear", "apply_fee"]  # not audit()
    assert [m.name for m in obj.accessors] == ["size", "balance", "overdrawn"]
    assert obj.copies  # a map of values: copies are independent
    text = entry_source(function_by_name(LEDGER, "cpp", "overdrawn"))
    assert 'extern "C" void* perfpilot_api(int k)' in text
    assert "->add(" in text and "->audit(" not in text


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return build(tmp_path_factory.mktemp("ledger"), LEDGER, "overdrawn")


def test_a_const_method_on_an_object_built_through_its_api_is_validated(ledger: Built) -> None:
    assert check(ledger) == ["ok"] * 5
    assert check(ledger, OVERDRAWN_RIGHT, "right") == ["ok"] * 5
    assert "mismatch" in check(ledger, OVERDRAWN_WRONG, "wrong")


def test_a_mutating_method_is_compared_through_the_accessors(tmp_path: Path) -> None:
    b = build(tmp_path, LEDGER, "apply_fee")
    source = (tmp_path / "bench.cpp").read_text()
    assert 'r.add("object.overdrawn()"' in source and "self.rebuild();" in source
    assert check(b, FEE_RIGHT, "right") == ["ok"] * 5
    assert "mismatch" in check(b, FEE_WRONG, "wrong")


async def test_the_engine_measures_a_method_of_an_object_built_through_its_api() -> None:
    # The whole path once: sandbox, object policy on the entry's helpers, validation, timing.
    site = function_by_name(LEDGER, "cpp", "overdrawn")
    bad = await verify_and_measure(site, OVERDRAWN_WRONG, SETTINGS, JobContext(), tuning=FAST)
    assert bad.verdict == "incorrect", bad.message
    assert "object" not in bad.validation_detail  # const: only the return value is compared
    good = await verify_and_measure(site, OVERDRAWN_RIGHT, SETTINGS, JobContext(), tuning=FAST)
    assert good.validation_status == "passed", good.message
    assert good.verdict != "incorrect"


def test_an_object_parameter_is_built_through_its_api_too(tmp_path: Path) -> None:
    b = build(tmp_path, LEDGER, "owed")
    assert "::perfpilot::api::Object s0" in (tmp_path / "bench.cpp").read_text()
    assert check(b) == ["ok"] * 5


# A list that frees its nodes but copies only the head pointer (the rule of three broken):
# the bench must rebuild it, never copy it.
STACK = """\
class Stack {
 public:
  ~Stack() { while (head_) { Node* n = head_->next; delete head_; head_ = n; } }
  void push(int v) { head_ = new Node{v, head_}; ++size_; }
  void pop() { if (!head_) return; Node* n = head_->next; delete head_; head_ = n; --size_; }
  int size() const { return size_; }
  long sum() const { long s = 0; for (Node* n = head_; n; n = n->next) s += n->value; return s; }
 private:
  struct Node { int value; Node* next; };
  Node* head_ = nullptr;
  int size_ = 0;
};
"""


def test_a_class_that_shares_its_pointers_when_copied_is_rebuilt(tmp_path: Path) -> None:
    _, plan = classify(function_by_name(STACK, "cpp", "sum"))
    assert not plan.objects[0].copies
    b = build(tmp_path, STACK, "sum", flags=("-fsanitize=address", "-g"))
    assert check(b) == ["ok"] * 5
    wrong = ("long sum() const { long s = 0; for (Node* n = head_; n && n->next; n = n->next) "
             "s += n->value; return s; }")
    assert "mismatch" in check(b, wrong, "wrong")


@pytest.mark.parametrize(("unit", "name", "why"), [
    ("class Acc { double bal; public: double get() const { return bal; } };\n"
     "double total(const Acc& a) { return a.get(); }", "total",
     r"private fields \(bal\) and no constructor.*no public member function.*changes it"),
    ("class Box { int v = 0; public: void set(int x) { v = x; } };\n"
     "void Box_twice(Box& b) { b.set(2); }\nclass C { int v = 0; public: void set(int x) "
     "{ v = x; } void bump() { ++v; } };", "C::bump", "no public const accessor"),
    ("class Shape { public: virtual double area() const = 0; virtual ~Shape() {} };\n"
     "double twice(const Shape& s) { return 2 * s.area(); }", "twice", "is abstract"),
])
def test_objects_the_api_cannot_build_name_the_reason(unit: str, name: str, why: str) -> None:
    with pytest.raises(HarnessUnsupported, match=why):
        harness_source(function_by_name(unit, "cpp", name))


# ---- Types from the project's headers ---------------------------------------------------------

def _project(root: Path) -> Path:
    (root / "include" / "geo").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "build").mkdir()
    (root / "include" / "geo" / "point.h").write_text(
        "#ifndef GEO_POINT_H\n#define GEO_POINT_H\n#include <vector>\n#include \"units.h\"\n"
        "namespace geo {\nstruct Point { Meters x, y; };\n"
        "class Path {\n public:\n  void add(Point p) { pts_.push_back(p); }\n"
        "  std::size_t size() const { return pts_.size(); }\n  double length() const;\n"
        " private:\n  std::vector<Point> pts_;\n};\n}\n#endif\n")
    (root / "include" / "geo" / "units.h").write_text("#pragma once\ntypedef double Meters;\n")
    source = root / "src" / "path.cpp"
    source.write_text(
        "#include \"geo/point.h\"\n#include <cmath>\nnamespace geo {\n"
        "double Path::length() const {\n  double s = 0;\n"
        "  for (std::size_t i = 1; i < pts_.size(); ++i)\n"
        "    s += std::hypot(pts_[i].x - pts_[i - 1].x, pts_[i].y - pts_[i - 1].y);\n"
        "  return s;\n}\n"
        "double span(const std::vector<Point>& p) {\n  double lo = 0, hi = 0;\n"
        "  for (const Point& q : p) { lo = std::fmin(lo, q.x); hi = std::fmax(hi, q.x); }\n"
        "  return hi - lo;\n}\n}\n")
    (root / "build" / "compile_commands.json").write_text(json.dumps([{
        "directory": str(root / "build"), "file": "../src/path.cpp",
        "arguments": ["g++", "-I../include", "-O2", "-std=c++17", "-c", "../src/path.cpp"]}]))
    return source


def test_a_struct_declared_in_a_project_header_is_fed(tmp_path: Path) -> None:
    source = _project(tmp_path / "proj")
    unit = source.read_text()
    with pytest.raises(HarnessUnsupported, match="'Point' is not defined in this file"):
        harness_source(function_by_name(unit, "cpp", "span"))  # no file: no headers
    b = build(tmp_path / "span", unit, "span", path=source,
              flags=(f"-I{tmp_path / 'proj' / 'include'}",))
    bench = (tmp_path / "span" / "bench.cpp").read_text()
    assert "struct Point { Meters x, y; };" in bench and '#include "geo/point.h"' not in bench
    assert check(b) == ["ok"] * 5
    wrong = ("double span(const std::vector<Point>& p) {\n  double lo = 0, hi = 0;\n"
             "  for (const Point& q : p) { lo = std::fmin(lo, q.y); hi = std::fmax(hi, q.x); }\n"
             "  return hi - lo;\n}")
    assert "mismatch" in check(b, wrong, "wrong")


def test_a_method_of_a_class_declared_in_a_project_header_is_fed(tmp_path: Path) -> None:
    source = _project(tmp_path / "proj")
    b = build(tmp_path / "len", source.read_text(), "Path::length", path=source,
              flags=(f"-I{tmp_path / 'proj' / 'include'}",))
    assert check(b) == ["ok"] * 5


def test_headers_outside_the_project_or_too_deep_are_not_read(tmp_path: Path) -> None:
    from perfpilot.runner.unit_headers import header_lookup

    source = _project(tmp_path / "proj")
    (tmp_path / "outside.h").write_text("struct Far { int x; };\n")
    assert header_lookup(source, None)("geo/point.h", str(source)) is None  # no entry: no -I
    lookup = header_lookup(source, flags_for(source))
    assert lookup("geo/point.h", str(source)) is not None
    assert lookup("../../outside.h", str(source)) is None
    assert lookup("missing.h", str(source)) is None


# ---- Flattened matrices in vectors ------------------------------------------------------------

MATRIX = """\
#include <cstddef>
#include <vector>
double trace_of_product(const std::vector<double>& a, const std::vector<double>& b,
                        std::size_t n) {
  double t = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < n; ++k) t += a[i * n + k] * b[k * n + i];
  return t;
}
void multiply(const std::vector<double>& a, const std::vector<double>& b, std::vector<double>& c,
              int rows, int cols) {
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      double s = 0;
      for (int k = 0; k < cols; ++k) s += a[i * cols + k] * b[k * cols + j];
      c[i * cols + j] = s;
    }
}
"""


def test_a_vector_indexed_as_flattened_rows_holds_n_by_n(tmp_path: Path) -> None:
    args, plan = classify(function_by_name(MATRIX, "cpp", "multiply"))
    assert plan.square and {a.param.name: a.count for a in args}["c"] == "side * side"
    b = build(tmp_path, MATRIX, "trace_of_product", flags=("-D_GLIBCXX_ASSERTIONS",))
    assert check(b) == ["ok"] * 5
    right = ("double trace_of_product(const std::vector<double>& a, const std::vector<double>& b,"
             " std::size_t n) {\n  double t = 0;\n  for (std::size_t k = 0; k < n; ++k)\n"
             "    for (std::size_t i = 0; i < n; ++i) t += b[k * n + i] * a[i * n + k];\n"
             "  return t;\n}")
    assert check(b, right, "right") == ["ok"] * 5
    assert "mismatch" in check(b, right.replace("b[k * n + i]", "b[i * n + k]"), "wrong")


# ---- Shapes of real files ---------------------------------------------------------------------

USING = """\
#include <string>
#include <vector>
namespace text {
struct Word { std::string s; int weight; };
int count_char(const std::string& s, char c) { int k = 0; for (char x : s) k += x == c; return k; }
}
namespace search { int unused() { return 0; } }
using text::count_char;
using text::Word;
using namespace search;
using std::vector;
int vowels(const vector<Word>& words) {
  int n = 0;
  for (const Word& w : words) n += w.weight * count_char(w.s, 'a');
  return n;
}
"""


def test_a_file_level_using_declaration_still_compiles(tmp_path: Path) -> None:
    bench = harness_source(function_by_name(USING, "cpp", "vowels"))
    assert "using text::count_char;" not in bench and "using namespace search;" not in bench
    assert "using text::Word;" in bench  # the mirror defines text::Word
    b = build(tmp_path, USING, "vowels")
    assert check(b) == ["ok"] * 5


SHAPES = """\
#include <cstddef>
#include <vector>
int range_sum(const int* a, int l, int r) {
  int s = 0; for (int i = l; i <= r; ++i) s += a[i]; return s;
}
int half_open(const int* a, int lo, int hi) {
  int s = 0; for (int i = lo; i < hi; ++i) s += a[i]; return s;
}
long by_name(const long* v, int N) { long s = 0; for (int i = 0; i < N; ++i) s += v[i]; return s; }
int common(const int* a, int n1, const int* b, int n2) {
  int c = 0;
  for (int i = 0; i < n1; ++i) for (int j = 0; j < n2; ++j) c += a[i] == b[j];
  return c;
}
void merge_sort(std::vector<int>& arr, int left, int right) {
  if (left >= right) return;
  int m = left + (right - left) / 2;
  merge_sort(arr, left, m);
  merge_sort(arr, m + 1, right);
  std::vector<int> tmp;
  int i = left, j = m + 1;
  while (i <= m && j <= right) tmp.push_back(arr[i] <= arr[j] ? arr[i++] : arr[j++]);
  while (i <= m) tmp.push_back(arr[i++]);
  while (j <= right) tmp.push_back(arr[j++]);
  for (int k = 0; k < (int)tmp.size(); ++k) arr[left + k] = tmp[k];
}
int count_positive(const std::vector<int>& v, int k) {
  int c = 0; for (int i = 0; i < k; ++i) c += v[i] > 0; return c;
}
int edges(const std::vector<std::vector<int>>& adj, int n) {
  int c = 0; for (int i = 0; i < n; ++i) c += (int)adj[i].size(); return c;
}
unsigned upto(const std::vector<unsigned>& v, unsigned last) {
  unsigned s = 0; for (unsigned i = 0; i <= last; ++i) s += v[i]; return s;
}
void odd_into(const std::vector<int>& in, std::vector<int>* out) {
  for (int x : in) if (x % 2) out->push_back(x);
}
struct P { int x, y; };
long dots(const P* pts, std::size_t count) {
  long s = 0; for (std::size_t i = 0; i < count; ++i) s += (long)pts[i].x * pts[i].y; return s;
}
"""


def test_sizes_index_pairs_and_loop_bounds_are_read_from_the_body() -> None:
    assert kinds(SHAPES, "range_sum") == {"a": ("buffer", -1, False), "l": ("lower", 0, False),
                                          "r": ("size", 0, True)}
    assert kinds(SHAPES, "half_open")["hi"] == ("size", 0, False)
    assert kinds(SHAPES, "by_name")["N"][0] == "size"
    common = kinds(SHAPES, "common")
    assert common["n1"] == ("size", 0, False) and common["n2"] == ("size", 2, False)
    assert kinds(SHAPES, "merge_sort")["right"] == ("size", 0, True)
    assert kinds(SHAPES, "count_positive")["k"] == ("size", 0, False)  # not named like a size
    assert kinds(SHAPES, "edges")["n"] == ("size", 0, False)  # sqrt(n) rows: n is adj.size()
    # Not indexed by the loop variable itself: still at most the number of rows.
    unit = ("#include <vector>\nint pairs(const std::vector<std::vector<int>>& g, int n) {\n"
            "  int s = 0;\n  for (int i = 0; i + 1 < n; ++i) s += (int)g[i + 1].size();\n"
            "  return s;\n}\n")
    args, _ = classify(function_by_name(unit, "cpp", "pairs"))
    assert (args[1].tie, args[1].clamp) == (0, True)
    args, _ = classify(function_by_name(SHAPES, "cpp", "upto"))
    assert args[0].nonempty  # an unsigned last index needs one element at least
    args, _ = classify(function_by_name(SHAPES, "cpp", "odd_into"))
    assert args[1].address and args[1].mutated
    args, _ = classify(function_by_name(SHAPES, "cpp", "dots"))
    assert args[0].kind == "buffer" and args[0].generic


@pytest.mark.parametrize("name", ["merge_sort", "count_positive", "edges", "upto", "odd_into",
                                  "dots"])
def test_tied_sizes_keep_the_original_inside_its_vectors(name: str, tmp_path: Path) -> None:
    b = build(tmp_path, SHAPES, name, flags=("-D_GLIBCXX_ASSERTIONS",))
    assert check(b) == ["ok"] * 5


def test_index_pairs_into_pointers_stay_inside_the_buffer(tmp_path: Path) -> None:
    b = build(tmp_path, SHAPES, "range_sum", flags=("-fsanitize=address", "-g"))
    assert check(b) == ["ok"] * 5
    wrong = ("int range_sum(const int* a, int l, int r) { int s = 0; "
             "for (int i = l; i < r; ++i) s += a[i]; return s; }")
    assert "mismatch" in check(b, wrong, "wrong")


def test_an_output_container_by_pointer_is_compared(tmp_path: Path) -> None:
    b = build(tmp_path, SHAPES, "odd_into")
    wrong = ("void odd_into(const std::vector<int>& in, std::vector<int>* out) "
             "{ for (int x : in) if (x % 2 == 1) out->push_back(x); }")
    assert "mismatch" in check(b, wrong, "wrong")


TEMPLATES = """\
#include <vector>
template <class T>
T max_of(const std::vector<T>& v) {
  T best{};
  for (const T& x : v) if (best < x) best = x;
  return best;
}
template <typename T>
double mean(const T* a, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += a[i];
  return n ? s / n : 0;
}
template <class C>
int size_of(const C& c) { return (int)c.size(); }
long caller() { std::vector<long> w(3, 2); return max_of(w); }
"""


def test_a_template_is_instantiated_with_its_callers_types(tmp_path: Path) -> None:
    site = function_by_name(TEMPLATES, "cpp", "max_of")
    assert "return max_of<long>(" in entry_source(site)
    _, plan = classify(site)
    assert plan.template_args == ("long",)
    assert "using perfpilot_fn = long (*)(const std::vector<long>&);" in harness_source(site)
    _, plan = classify(function_by_name(TEMPLATES, "cpp", "mean"))
    assert plan.template_args == ("int",)  # an arithmetic element: int by default
    with pytest.raises(HarnessUnsupported, match="template type parameter 'C'"):
        harness_source(function_by_name(TEMPLATES, "cpp", "size_of"))
    with pytest.raises(EntryError, match="template"):
        entry_source(function_by_name(TEMPLATES, "cpp", "size_of"))
    b = build(tmp_path, TEMPLATES, "max_of")
    assert check(b) == ["ok"] * 5
    wrong = ("template <class T>\nT max_of(const std::vector<T>& v) {\n  T best{};\n"
             "  for (const T& x : v) if (best <= x + 1) best = x;\n  return best;\n}")
    assert "mismatch" in check(b, wrong, "wrong")


@pytest.mark.parametrize(("body", "inclusive"), [
    ("for (int i = lo; i < hi; ++i) s += a[i];", False),
    ("for (int i = lo; i <= hi; ++i) s += a[i];", True),
    ("s = a[hi]; for (int i = lo; i < hi; ++i) s += a[i];", True),  # a[hi] is read
    ("int len = hi - lo + 1; for (int i = 0; i < len; ++i) s += a[lo + i];", True),
    ("if (lo < hi) s = a[lo];", True),  # nothing says: inclusive stays inside either way
    ("for (int i = 0; i < 4; ++i) if (a[i] >= lo && a[i] <= hi) ++s;", None),  # values
])
def test_index_pairs_are_read_inclusive_or_half_open(body: str, inclusive: bool | None) -> None:
    from perfpilot.runner.body_shapes import range_pair

    text = f"int f(const int* a, int lo, int hi) {{ int s = 0; {body} return s; }}"
    expected = None if inclusive is None else ("lo", "hi", inclusive)
    assert range_pair(text, "cpp", ["lo", "hi"]) == expected
    assert range_pair(text, "cpp", ["hi", "lo"]) is None  # the lower one comes first


def test_explicit_and_deduced_template_arguments() -> None:
    from perfpilot.runner.template_args import instantiate

    unit = ("#include <vector>\ntemplate <typename K, typename V> V pick(const std::vector<K>& k,"
            " V d) { return k.empty() ? d : d + 1; }\n"
            "void use() { std::vector<short> ks; pick<int, float>(ks, 1.0f); }\n")
    inst = instantiate(function_by_name(unit, "cpp", "pick"))
    assert inst.args == ("int", "float") and "line 3" in inst.source
    assert inst.site.params[0].type_text == "const std::vector<int>&"
    deduced = unit.replace("pick<int, float>(ks, 1.0f)", "pick(ks, 2.5)")
    assert instantiate(function_by_name(deduced, "cpp", "pick")).args == ("short", "double")


def test_headers_are_read_once_and_not_too_large(tmp_path: Path) -> None:
    from perfpilot.runner.unit_headers import MAX_BYTES, site_types

    (tmp_path / "a.h").write_text("#pragma once\n#include \"b.h\"\nstruct A { B b; };\n")
    (tmp_path / "b.h").write_text("#pragma once\n#include \"a.h\"\nstruct B { int x; };\n")
    (tmp_path / "big.h").write_text("struct Big { int x; };\n" + "//" * MAX_BYTES)
    source = tmp_path / "u.cpp"
    source.write_text("#include \"a.h\"\n#include \"a.h\"\n#include \"big.h\"\n"
                      "int f(const A& a) { return a.b.x; }\n")
    types = site_types(function_by_name(source.read_text(), "cpp", "f", uri=source.as_uri()))
    assert set(types.classes) == {"A", "B"}  # b.h's include of a.h is not read again
    assert '#include "big.h"' in types.includes  # too large: left to the compiler
