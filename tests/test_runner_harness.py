"""The generated harness: which signatures it accepts, and that its source compiles."""

from __future__ import annotations

import shutil
import subprocess
from importlib import resources
from pathlib import Path

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.progress import JobContext
from perfpilot.runner.entry import EntryError, entry_source
from perfpilot.runner.harness import HarnessUnsupported, classify, harness_source
from perfpilot.runner.measure import verify_and_measure
from perfpilot.runner.values import Tuning
from perfpilot.settings import RunnerSettings

INCLUDE = Path(str(resources.files("perfpilot.runner") / "include"))
# What is tested here is what reaches the function and what is compared, never a timing
# verdict: a short timing (few pairs, no retry, small sizes) is enough to reach a verdict.
FAST = Tuning(target_sample_s=0.0005, edge_sizes=(0, 1, 7), budget_s=2.0, noisy_retries=0,
              max_size=1 << 12,
              # Verification itself is tested in test_verification*.py: fewer cases here.
              profiles=(0, 1), seeds_per_profile=1, mutants=False, coverage=False,
              sanitizers=False)
SETTINGS = RunnerSettings(pairs=4, callgrind=False, run_timeout_s=30.0)

SIGNATURES = {
    "nested": ("#include <vector>\nusing namespace std;\n"
               "int total(const vector<vector<int>>& m) { int s = 0; for (auto& r : m) "
               "for (int x : r) s += x; return s; }", "total"),
    "alias": ("#include <vector>\ntypedef long long ll;\n"
              "ll sum(const std::vector<ll>& v, int k) { ll s = 0; for (ll x : v) s += x * k; "
              "return s; }", "sum"),
    "buffer": ("#include <cstddef>\nvoid axpy(double a, const double* x, double* y, "
               "std::size_t n) { for (std::size_t i = 0; i < n; ++i) y[i] += a * x[i]; }",
               "axpy"),
    "string": ("#include <string>\nvoid upper(std::string& s) { for (auto& c : s) "
               "c = (char)(c - 32); }", "upper"),
    "returns_vector": ("#include <vector>\nstd::vector<int> squares(int n) { std::vector<int> "
                       "v(n); for (int i = 0; i < n; ++i) v[i] = i * i; return v; }",
                       "squares"),
    "cstring": ("#include <cstring>\nint vowels(const char* s) { int c = 0; "
                "for (; *s; ++s) c += std::strchr(\"aeiou\", *s) != nullptr; return c; }",
                "vowels"),
}


@pytest.mark.parametrize("key", sorted(SIGNATURES))
def test_supported_signatures_generate_compilable_benches(key: str, tmp_path: Path) -> None:
    if shutil.which("g++") is None:
        pytest.skip("g++ not installed")
    unit, name = SIGNATURES[key]
    site = function_by_name(unit, "cpp", name)
    source = harness_source(site)
    assert "PERFPILOT_BENCH" in source
    # The unit with its entry must compile too (as both builds will).
    (tmp_path / "unit.cpp").write_text(unit + "\n" + entry_source(site))
    (tmp_path / "bench.cpp").write_text(source + "\n#include <perfpilot_driver.hpp>\n")
    for file in ("unit.cpp", "bench.cpp"):
        res = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", f"-I{INCLUDE}", file],
                             cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, res.stderr


def test_mutated_and_size_parameters_are_classified() -> None:
    unit, name = SIGNATURES["buffer"]
    args, _ = classify(function_by_name(unit, "cpp", name))
    kinds = {a.param.name: (a.kind, a.mutated) for a in args}
    assert kinds == {"a": ("scalar", False), "x": ("buffer", False), "y": ("buffer", True),
                     "n": ("size", False)}
    unit, name = SIGNATURES["returns_vector"]
    args, _ = classify(function_by_name(unit, "cpp", name))
    assert args[0].kind == "size"  # the only scalar scales the work


@pytest.mark.parametrize("unit,name,why", [
    ("struct P { int x; P* next; };\nint get(P p) { return p.x; }", "get",
     "field 'next' of class 'P' is a pointer"),
    ("class Acc { double bal; public: double get() const { return bal; } };\n"
     "double total(const Acc& a) { return a.get(); }", "total",
     r"class 'Acc' has private fields \(bal\) and no constructor"),
    ("struct S { virtual int f() const { return 1; } };\nint g(const S& s) { return s.f(); }",
     "g", "class 'S' has virtual functions"),
    ("int first(const int* a) { return a[0]; }", "first", "size parameter"),
    ("template <class C> int size_of(const C& c) { return (int)c.size(); }", "size_of",
     "template type parameter 'C'"),
    ("class S { int v; int get() const { return v; } };", "get", "not public"),
    ("int* ptr(int n) { static int x; return &x + n * 0; }", "ptr", "return type"),
])
def test_unsupported_signatures_name_the_reason(unit: str, name: str, why: str) -> None:
    site = function_by_name(unit, "cpp", name)
    with pytest.raises(HarnessUnsupported, match=why):
        harness_source(site)


def test_entry_calls_methods_on_an_object_passed_first() -> None:
    unit = ("namespace la { class M { int n_; public: M(int n) : n_(n) {}\n"
            "int twice(int k) const { return n_ * k; } void bump(); }; void M::bump() { ++n_; } }")
    text = entry_source(function_by_name(unit, "cpp", "twice"))
    assert "perfpilot_trampoline(const M& perfpilot_self, perfpilot_t0 a0)" in text
    assert "perfpilot_self.twice(" in text and "namespace la {" in text
    text = entry_source(function_by_name(unit, "cpp", "M::bump"))
    assert "perfpilot_trampoline(M& perfpilot_self)" in text


def test_entry_refuses_templates_it_cannot_instantiate() -> None:
    site = function_by_name("template <class C> int size_of(const C& c) { return (int)c.size(); }",
                            "cpp", "size_of")
    with pytest.raises(EntryError):
        entry_source(site)


def test_entry_reopens_the_namespace() -> None:
    unit = "namespace geo { namespace {\nint sq(int a) { return a * a; }\n} }\n"
    text = entry_source(function_by_name(unit, "cpp", "sq"))
    assert "namespace geo {" in text and "namespace {" in text
    assert "geo::perfpilot_trampoline" in text


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
async def test_mutated_string_argument_is_compared() -> None:
    unit, name = SIGNATURES["string"]
    site = function_by_name(unit, "cpp", name)
    wrong = "void upper(std::string& s) { for (std::size_t i = 1; i < s.size(); ++i) " \
            "s[i] = (char)(s[i] - 32); }"
    v = await verify_and_measure(site, wrong, SETTINGS, JobContext(), tuning=FAST)
    assert v.verdict == "incorrect"
    assert v.validation_detail.startswith("size 1, "), v.validation_detail
    assert ": original s = " in v.validation_detail


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
async def test_by_value_objects_and_aliased_scalars_reach_the_function() -> None:
    unit = ("#include <vector>\nusing namespace std;\ntypedef long long ll;\n"
            "ll weighted(vector<ll> v, ll k) { ll s = 0; for (ll x : v) s += x * k; return s; }\n")
    site = function_by_name(unit, "cpp", "weighted")
    # The candidate takes the vector by const reference: same call, no copy.
    better = ("ll weighted(const vector<ll>& v, ll k) { ll s = 0; for (ll x : v) s += x * k; "
              "return s; }")
    v = await verify_and_measure(site, better, SETTINGS, JobContext(), tuning=FAST)
    assert v.validation_status == "passed", v.message
    wrong = better.replace("x * k", "x * (k + 1)")
    bad = await verify_and_measure(site, wrong, SETTINGS, JobContext(), tuning=FAST)
    assert bad.verdict == "incorrect"


# Signatures with the unit's own types, standard containers of them, and methods: the bench and
# the unit with its entry must both compile.
USER_TYPES = {
    "aggregate_vector": ("#include <vector>\nstruct Point { double x, y; };\n"
                         "double sx(const std::vector<Point>& p) { double s = 0; "
                         "for (auto& q : p) s += q.x; return s; }", "sx"),
    "nested_return": ("struct P { double x = 0; };\nstruct Seg { P a, b; int id; };\n"
                      "Seg flip(Seg s) { P t = s.a; s.a = s.b; s.b = t; return s; }", "flip"),
    "maps_sets": ("#include <map>\n#include <set>\n#include <string>\n#include <unordered_map>\n"
                  "#include <unordered_set>\nint f(const std::map<std::string, int>& a, "
                  "std::unordered_map<long, double>& b, const std::set<int>& c, "
                  "const std::unordered_set<std::string>& d) { b[1] += 1; "
                  "return (int)(a.size() + c.size() + d.size()); }", "f"),
    "pair_tuple_array": ("#include <array>\n#include <tuple>\n#include <utility>\n"
                         "#include <vector>\ndouble f(std::pair<int, double> p, "
                         "const std::tuple<int, long, float>& t, std::array<int, 4>& a, "
                         "const std::vector<std::pair<int, int>>& v) { a[0] = p.first; "
                         "return p.second + std::get<2>(t) + (double)v.size(); }", "f"),
    "deque_list": ("#include <deque>\n#include <list>\nlong f(const std::deque<int>& d, "
                   "std::list<long>& l) { l.push_back((long)d.size()); return (long)l.size(); }",
                   "f"),
    "enums": ("#include <map>\n#include <vector>\nenum Color { Red, Green };\nnamespace k {\n"
              "enum class Level { Lo = 1, Hi = 9 };\nstruct Ev { Level lv; Color c; };\n"
              "std::map<Level, int> h(const std::vector<Ev>& v, Color c) { std::map<Level, int> m;"
              " for (auto& e : v) if (e.c == c) ++m[e.lv]; return m; } }", "h"),
    "class_with_constructor": ("#include <vector>\nclass Grid { int w_; std::vector<double> v_; "
                               "public: Grid(int w, int h) : w_(w), v_(w * h) {} "
                               "double sum() const { double s = 0; for (double x : v_) s += x; "
                               "return s; } };\ndouble total(const Grid& g) { return g.sum(); }",
                               "total"),
    "method_out_of_class": ("#include <vector>\nnamespace la {\nclass M {\n public:\n"
                            "  explicit M(int n) : d_(n * n), n_(n) {}\n  void scale(double f);\n"
                            " private:\n  std::vector<double> d_;\n  int n_;\n};\n"
                            "void M::scale(double f) { for (double& x : d_) x *= f; }\n}",
                            "M::scale"),
    "method_in_anonymous_namespace": ("#include <set>\nnamespace {\nstruct Iv { int lo, hi;\n"
                                      "  bool operator<(const Iv& o) const { return lo < o.lo; }"
                                      "\n};\nstruct Book { std::set<Iv> ivs; long width() const {"
                                      " long w = 0; for (auto& i : ivs) w += i.hi - i.lo; "
                                      "return w; } };\n}", "width"),
    "typedef_struct": ("typedef struct { int id; double w; } item_t;\n#include <vector>\n"
                       "double wsum(const std::vector<item_t>& v) { double s = 0; "
                       "for (auto& i : v) s += i.w * i.id; return s; }", "wsum"),
    "types_nested_in_a_class": ("#include <string>\n#include <vector>\n"
                                "struct Tok { enum Kind { Word, Num } kind; std::string text; };\n"
                                "struct Sh { enum class K { A, B }; K k; "
                                "struct In { int z; } in; };\n"
                                "int f(const std::vector<Tok>& t, Sh s) { int n = s.in.z; "
                                "for (auto& x : t) n += x.kind == Tok::Word; return n; }", "f"),
    "user_name_collides": ("#include <vector>\nstruct Bench { int x; };\nstruct Fn { double y; };"
                           "\nint f(const std::vector<Bench>& b, Fn g) { return (int)(b.size() + "
                           "g.y); }", "f"),
}


@pytest.mark.parametrize("key", sorted(USER_TYPES))
def test_user_types_generate_compilable_benches(key: str, tmp_path: Path) -> None:
    if shutil.which("g++") is None:
        pytest.skip("g++ not installed")
    unit, name = USER_TYPES[key]
    site = function_by_name(unit, "cpp", name)
    (tmp_path / "unit.cpp").write_text(unit + "\n" + entry_source(site))
    (tmp_path / "bench.cpp").write_text(harness_source(site) +
                                        "\n#include <perfpilot_driver.hpp>\n")
    for file in ("unit.cpp", "bench.cpp"):
        res = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", f"-I{INCLUDE}", file],
                             cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, res.stderr


def test_c_struct_by_value_keeps_the_c_signature() -> None:
    unit = ("struct pt { double x, y; };\ndouble dot(struct pt a, struct pt b) "
            "{ return a.x * b.x + a.y * b.y; }\n")
    source = harness_source(function_by_name(unit, "c", "dot"))
    assert "using perfpilot_fn = double (*)(struct pt, struct pt);" in source


def test_user_names_stay_in_their_own_namespace() -> None:
    unit, name = USER_TYPES["user_name_collides"]
    source = harness_source(function_by_name(unit, "cpp", name))
    assert "namespace user {" in source
    assert "struct Bench { int x; };" in source  # the user's, inside perfpilot_harness::user
    assert "PERFPILOT_BENCH(perfpilot_harness::Bench, perfpilot_harness::Fn)" in source


GEOMETRY = """\
#include <vector>
struct Point { double x, y; };
void translate(std::vector<Point>& pts, Point d) {
  for (auto& p : pts) { p.x += d.x; p.y += d.y; }
}
Point centroid(const std::vector<Point>& pts) {
  Point c{0, 0};
  for (const auto& p : pts) { c.x += p.x; c.y += p.y; }
  if (!pts.empty()) { c.x /= pts.size(); c.y /= pts.size(); }
  return c;
}
"""

MATRIX = """\
#include <vector>
class Matrix {
 public:
  Matrix(int rows, int cols) : rows_(rows), cols_(cols), data_(rows * cols, 0.0) {}
  void scale_row(int r, double f);
  double trace() const {
    double t = 0;
    for (int i = 0; i < rows_ && i < cols_; ++i) t += data_[i * cols_ + i];
    return t;
  }
 private:
  int rows_, cols_;
  std::vector<double> data_;
};
void Matrix::scale_row(int r, double f) {
  if (r < 0 || r >= rows_) return;
  for (int j = 0; j < cols_; ++j) data_[r * cols_ + j] *= f;
}
"""

WORDS = """\
#include <string>
#include <unordered_map>
#include <vector>
std::unordered_map<std::string, int> freq(const std::vector<std::string>& words) {
  std::unordered_map<std::string, int> m;
  for (const auto& w : words) ++m[w];
  return m;
}
"""

SCHEDULE = """\
#include <map>
#include <tuple>
#include <vector>
enum class Prio { Low, Mid, High };
struct Job { int id; Prio prio; long cost; };
std::map<Prio, long> totals(const std::vector<Job>& jobs, std::tuple<int, long> skip) {
  std::map<Prio, long> out;
  for (const Job& j : jobs)
    if (j.id != std::get<0>(skip)) out[j.prio] += j.cost;
  return out;
}
"""

# (unit, function, a correct rewrite, a rewrite wrong in one field of the output)
REWRITES = {
    "mutated_vector_of_structs": (
        GEOMETRY, "translate",
        "void translate(std::vector<Point>& pts, Point d) {\n"
        "  for (std::size_t i = 0; i < pts.size(); ++i) { pts[i].y += d.y; pts[i].x += d.x; }\n}",
        "void translate(std::vector<Point>& pts, Point d) {\n"
        "  for (auto& p : pts) { p.x += d.x; p.y += d.x; }\n}"),
    "returned_struct": (
        GEOMETRY, "centroid",
        "Point centroid(const std::vector<Point>& pts) {\n  double sx = 0, sy = 0;\n"
        "  for (const auto& p : pts) { sx += p.x; sy += p.y; }\n"
        "  if (pts.empty()) return Point{0, 0};\n"
        "  return Point{sx / pts.size(), sy / pts.size()};\n}",
        "Point centroid(const std::vector<Point>& pts) {\n  double sx = 0, sy = 0;\n"
        "  for (const auto& p : pts) { sx += p.x; sy += p.y; }\n"
        "  if (pts.empty()) return Point{0, 0};\n"
        "  return Point{sx / pts.size(), sy / (pts.size() + 1)};\n}"),
    "method_changes_private_state": (
        MATRIX, "Matrix::scale_row",
        "void Matrix::scale_row(int r, double f) {\n  if (r < 0 || r >= rows_) return;\n"
        "  double* row = data_.data() + r * cols_;\n"
        "  for (int j = 0; j < cols_; ++j) row[j] *= f;\n}",
        "void Matrix::scale_row(int r, double f) {\n  if (r < 0 || r >= rows_) return;\n"
        "  for (int j = 1; j < cols_; ++j) data_[r * cols_ + j] *= f;\n}"),
    "const_method": (
        MATRIX, "trace",
        "double trace() const {\n    double t = 0;\n    int n = rows_ < cols_ ? rows_ : cols_;\n"
        "    for (int i = 0; i < n; ++i) t += data_[i * cols_ + i];\n    return t;\n  }",
        "double trace() const {\n    double t = 0;\n    int n = rows_ < cols_ ? rows_ : cols_;\n"
        "    for (int i = 1; i < n; ++i) t += data_[i * cols_ + i];\n    return t;\n  }"),
    "unordered_map_in_another_order": (
        WORDS, "freq",
        "std::unordered_map<std::string, int> freq(const std::vector<std::string>& words) {\n"
        "  std::unordered_map<std::string, int> m;\n  m.reserve(words.size() * 3 + 7);\n"
        "  for (std::size_t i = words.size(); i-- > 0;) ++m[words[i]];\n  return m;\n}",
        "std::unordered_map<std::string, int> freq(const std::vector<std::string>& words) {\n"
        "  std::unordered_map<std::string, int> m;\n"
        "  for (std::size_t i = 1; i < words.size(); ++i) ++m[words[i]];\n  return m;\n}"),
    "enum_keyed_map_and_tuple": (
        SCHEDULE, "totals",
        "std::map<Prio, long> totals(const std::vector<Job>& jobs, std::tuple<int, long> skip) {\n"
        "  long t[3] = {0, 0, 0}; bool seen[3] = {false, false, false};\n"
        "  for (const Job& j : jobs) if (j.id != std::get<0>(skip)) {\n"
        "    t[(int)j.prio] += j.cost; seen[(int)j.prio] = true; }\n"
        "  std::map<Prio, long> out;\n"
        "  for (int k = 0; k < 3; ++k) if (seen[k]) out[(Prio)k] = t[k];\n  return out;\n}",
        "std::map<Prio, long> totals(const std::vector<Job>& jobs, std::tuple<int, long> skip) {\n"
        "  std::map<Prio, long> out;\n"
        "  for (const Job& j : jobs) if (j.id != std::get<0>(skip) && j.prio != Prio::High)\n"
        "    out[j.prio] += j.cost;\n  return out;\n}"),
}


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
@pytest.mark.parametrize("key", sorted(REWRITES))
async def test_user_type_rewrites_are_validated(key: str) -> None:
    unit, name, right, wrong = REWRITES[key]
    site = function_by_name(unit, "cpp", name)
    bad = await verify_and_measure(site, wrong, SETTINGS, JobContext(), tuning=FAST)
    assert bad.verdict == "incorrect", bad.message
    good = await verify_and_measure(site, right, SETTINGS, JobContext(), tuning=FAST)
    assert good.validation_status == "passed", good.message
    assert good.verdict != "incorrect"


def test_draft_spec_is_written_once_with_the_reason(tmp_path: Path) -> None:
    from perfpilot.runner.spec import find_spec
    from perfpilot.runner.spec_draft import write_draft

    source = tmp_path / "list.cpp"
    source.write_text("struct Node { int v; Node* next; };\n"
                      "long sum(const Node* h) { long s = 0; for (; h; h = h->next) s += h->v; "
                      "return s; }\n")
    site = function_by_name(source.read_text(), "cpp", "sum", uri=source.as_uri())
    with pytest.raises(HarnessUnsupported, match=r"perfpilot spec --draft .*list\.cpp"):
        harness_source(site)
    path = write_draft(site, source)
    assert find_spec("sum", source, tmp_path) == path
    text = path.read_text()
    assert "TODO: build 'h'" in text and "struct Node" in text
    assert "using Fn = long (*)(const Node*);" in text
    path.write_text("// edited by the user\n")
    with pytest.raises(FileExistsError):
        write_draft(site, source)
    assert path.read_text() == "// edited by the user\n"


@pytest.mark.parametrize(("body", "square"), [
    ("for (int i = 0; i < n; ++i) for (int k = 0; k < n; ++k) s += a[i * n + k];", True),
    ("for (int i = 0; i < n; ++i) for (int k = 0; k < n; ++k) { int at = i * n + k;"
     " s += a[at]; }", True),
    ("for (int i = 0; i < n; ++i) { long row = (long)i * n; for (int k = 0; k < n; ++k)"
     " { long at = row + k; s += a[at]; } }", True),
    ("for (int i = 0; i < n; ++i) s += a[i] * n;", False),
    ("for (int i = 0; i < n; ++i) { int at = i + n / 2; s += a[at % n]; }", False),
])
def test_row_major_buffers_are_sized_n_by_n_also_through_locals(body: str, square: bool) -> None:
    unit = f"double total(const double* a, int n) {{ double s = 0; {body} return s; }}\n"
    _, plan = classify(function_by_name(unit, "cpp", "total"))
    assert plan.square is square
