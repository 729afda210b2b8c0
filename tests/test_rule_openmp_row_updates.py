"""Inner loops under a carried loop whose iterations each own a row (Gaussian elimination's row
updates, column-oriented substitution, Gram-Schmidt projections): the row-ownership proof
(``code/row_ownership.py`` over ``code/index_algebra.py``), the shapes it must refuse, the work
gate the rewrite puts around them, and generated variants built with ``g++ -fopenmp`` and run
at one and two threads, whose output must equal the original's bit for bit."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from differential_support import Variant, rewrite_all
from perfpilot.code.index_algebra import Poly, header_range, nonnegative, poly_of, within
from perfpilot.code.locate import function_by_name
from perfpilot.code.loops import LoopFacts, all_loops, function_loops
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze_site
from perfpilot.progress import JobContext
from perfpilot.rules.parallel.openmp import ParallelLoop
from perfpilot.runner.measure import verify_and_measure
from perfpilot.runner.values import Tuning
from perfpilot.settings import RunnerSettings
from test_rule_openmp_parallel_patterns import _build_and_run

HEADERS = "#include <cmath>\n#include <utility>\n#include <vector>\n"
OPENMP = frozenset({"openmp-for", "openmp-reduction"})
HAVE_GXX = shutil.which("g++") is not None


def _loops(code: str, name: str) -> list[LoopFacts]:
    return list(all_loops(function_loops(function_by_name(HEADERS + code, "cpp", name))))


def _loop(code: str, name: str, var: str) -> LoopFacts:
    return next(lp for lp in _loops(code, name) if lp.induction == var)


# ---------------------------------------------------------------------------------------------
# the algebra


def test_index_polynomials() -> None:
    assert poly_of("i * n + j") == Poly.of({("i", "n"): 1, ("j",): 1})
    assert poly_of("(long long)k * n + k - 1") == Poly.of({("k", "n"): 1, ("k",): 1, (): -1})
    assert poly_of("static_cast<int>(v.size()) - 1") == Poly.of({("v.size()",): 1, (): -1})
    assert poly_of("n - (k + 1)") == Poly.of({("n",): 1, ("k",): -1, (): -1})
    # no form: subscripts, other calls, division, modulo
    for text in ("p[i]", "f(k)", "n / 2", "i % n", "v.front()", "a ? b : c"):
        assert poly_of(text) is None, text


def test_bounds_substitution() -> None:
    k = header_range("0", "n", "<", 1)
    j = header_range("k", "n", "<", 1)
    down = header_range("n - 1", "0", ">=", -1)
    assert k is not None and j is not None and down is not None
    ranges = {"k": k, "j": j, "i": down}
    assert within(Poly.atom("j"), Poly.atom("n"), ranges)
    assert within(Poly.atom("i"), Poly.atom("n"), ranges)
    p = poly_of("j + 1")
    assert p is not None and not within(p, Poly.atom("n"), ranges)
    assert nonnegative(Poly.atom("k"), ranges)
    assert not nonnegative(Poly.atom("n"), ranges)  # nothing says n >= 0
    # k + 1 > k: the row k lies below every row of a loop from k + 1
    assert nonnegative(Poly.const(0), ranges)
    assert header_range("0", "n", "!=", 1) is None


# ---------------------------------------------------------------------------------------------
# what the proof accepts

POSITIVE: dict[str, tuple[str, str]] = {
    "lu_rows": ("""
void lu_rows(std::vector<std::vector<double>>& a, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n; ++i) {
            double f = a[i][k] / a[k][k];
            for (int j = k; j < n; ++j) a[i][j] -= f * a[k][j];
        }
}""", "i"),
    "lu_flat": ("""
void lu_flat(std::vector<float>& a, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i <= n - 1; ++i) {
            float f = a[i * n + k] / a[k * n + k];
            for (int j = k + 1; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
            a[i * n + k] = f;
        }
}""", "i"),
    "lu_ptr": ("""
void lu_ptr(double* a, long n) {
    for (long k = 0; k < n; k++)
        for (long i = k + 1; i < n; i++)
            for (long j = 0; j < n; j++) a[j + n * i] -= a[i * n + k] / a[k * n + k] * a[n * k + j];
}""", "i"),
    "lu_c_array": ("""
void lu_c_array(double a[][32], int n) {
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n; ++i) {
            double f = a[i][k] / a[k][k];
            for (int j = k; j < n; ++j) a[i][j] = a[i][j] - f * a[k][j];
        }
}""", "i"),
    "lu_sizes": ("""
void lu_sizes(std::vector<std::vector<double>>& a) {
    for (std::size_t k = 0; k < a.size(); ++k)
        for (std::size_t i = k + 1; i < a.size(); ++i) {
            double f = a[i][k] / a[k][k];
            for (std::size_t j = k; j < a.size(); ++j) a[i][j] -= f * a[k][j];
        }
}""", "i"),
    # column ownership: iteration j writes column j, reads column k
    "by_columns": ("""
void by_columns(std::vector<std::vector<double>>& a, int n) {
    for (int k = 0; k < n; ++k)
        for (int j = k + 1; j < n; ++j)
            for (int i = k + 1; i < n; ++i) a[i][j] -= a[i][k] * a[k][j];
}""", "j"),
    # substitution, column-oriented: the row read lies above (or below) every row written
    "forward": ("""
void forward(const std::vector<std::vector<double>>& l, std::vector<double>& x, int n) {
    for (int j = 0; j < n; ++j) {
        x[j] /= l[j][j];
        for (int i = j + 1; i < n; ++i) x[i] -= l[i][j] * x[j];
    }
}""", "i"),
    "backward": ("""
void backward(const std::vector<std::vector<double>>& u, std::vector<double>& x, int n) {
    for (int j = n - 1; j >= 0; --j) {
        x[j] /= u[j][j];
        for (int i = 0; i < j; ++i) x[i] -= u[i][j] * x[j];
    }
}""", "i"),
    # reversed rows, owned as n - 1 - i
    "reversed": ("""
void reversed(std::vector<std::vector<double>>& a, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = 0; i < n - 1 - k; ++i)
            for (int j = 0; j < n; ++j) a[n - 1 - i][j] += a[k][j];
}""", "i"),
    # Gram-Schmidt: each j projects its own vector on vector k
    "gram_schmidt": ("""
void gram_schmidt(std::vector<std::vector<double>>& q, int m, int n) {
    for (int k = 0; k < n; ++k) {
        for (int j = k + 1; j < n; ++j) {
            double d = 0;
            for (int r = 0; r < m; ++r) d += q[k][r] * q[j][r];
            for (int r = 0; r < m; ++r) q[j][r] -= d * q[k][r];
        }
    }
}""", "j"),
}


@pytest.mark.parametrize("name", sorted(POSITIVE))
def test_row_owning_loops_are_independent(name: str) -> None:
    code, var = POSITIVE[name]
    lp = _loop(code, name, var)
    assert lp.independent, lp.reason
    assert not lp.reductions
    # the carried loop stays dependent
    assert not _loops(code, name)[0].independent


NEGATIVE: dict[str, str] = {
    # pivoting inside the row loop: row k is written
    "swap_k": """
void swap_k(std::vector<std::vector<double>>& a, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n; ++i)
            for (int j = 0; j < n; ++j) { double t = a[k][j]; a[k][j] = a[i][j]; a[i][j] = t; }
}""",
    # pivoting inside the row loop with a library swap of whole rows
    "std_swap": """
void std_swap(std::vector<std::vector<double>>& a, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n; ++i)
            if (a[i][k] > a[k][k]) std::swap(a[i], a[k]);
}""",
    # a pivot row found in the loop: any row may be written
    "pivot_search": """
void pivot_search(std::vector<std::vector<double>>& a, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n; ++i) {
            int p = k;
            for (int q = k; q < n; ++q) if (a[q][k] > a[p][k]) p = q;
            for (int j = 0; j < n; ++j) { double t = a[p][j]; a[p][j] = a[i][j]; a[i][j] = t; }
        }
}""",
    # row k written inside the row loop
    "writes_k": """
void writes_k(std::vector<std::vector<double>>& a, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n; ++i) {
            double f = a[i][k] / a[k][k];
            for (int j = k; j < n; ++j) { a[i][j] -= f * a[k][j]; a[k][j] *= 1.0; }
        }
}""",
    # i ranges over k too: iteration k writes the row the others read
    "from_k": """
void from_k(std::vector<std::vector<double>>& a, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = k; i < n; ++i) {
            double f = a[i][k] / a[k][k];
            for (int j = k; j < n; ++j) a[i][j] -= f * a[k][j];
        }
}""",
    # the same on a flat array
    "flat_from_k": """
void flat_from_k(double* a, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = k; i < n; ++i)
            for (int j = k; j < n; ++j) a[i * n + j] -= a[k * n + j];
}""",
    # rows other iterations own, at computed indices
    "previous_row": """
void previous_row(std::vector<std::vector<double>>& a, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n; ++i)
            for (int j = k; j < n; ++j) a[i][j] -= a[i - 1][j];
}""",
    "permuted_row": """
void permuted_row(std::vector<std::vector<double>>& a, const std::vector<int>& p, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n; ++i)
            for (int j = k; j < n; ++j) a[i][j] -= a[p[i]][j];
}""",
    "computed_row": """
void computed_row(std::vector<std::vector<double>>& a, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n; ++i) {
            int r = (i * 7) % n;
            for (int j = k; j < n; ++j) a[i][j] -= a[r][j];
        }
}""",
    # a row index that does not change but lies inside the rows written
    "next_row": """
void next_row(std::vector<std::vector<double>>& a, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n; ++i)
            for (int j = k; j < n; ++j) a[i][j] -= a[k + 1][j];
}""",
    "last_row": """
void last_row(std::vector<std::vector<double>>& a, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n; ++i)
            for (int j = k; j < n; ++j) a[i][j] -= a[n - 1][j];
}""",
    "unrelated_row": """
void unrelated_row(std::vector<std::vector<double>>& a, int n, int m) {
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n; ++i)
            for (int j = k; j < n; ++j) a[i][j] -= a[m][j];
}""",
    # two rows written per iteration
    "two_rows": """
void two_rows(std::vector<std::vector<double>>& a, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n - 1; ++i)
            for (int j = k; j < n; ++j) { a[i][j] -= a[k][j]; a[i + 1][j] += 1; }
}""",
    # a flat column that runs past the row
    "past_the_row": """
void past_the_row(double* a, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n; ++i)
            for (int j = k; j <= n; ++j) a[i * n + j] -= a[k * n + j];
}""",
    # a flat row width other than the column range
    "other_width": """
void other_width(double* a, int n, int m) {
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n; ++i)
            for (int j = k; j < n; ++j) a[i * m + j] -= a[k * m + j];
}""",
    # a local pointer into a row another iteration writes
    "pointer_row": """
void pointer_row(double* a, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = 0; i < n - 1; ++i) {
            const double* r = a + (i + 1) * n;
            for (int j = 0; j < n; ++j) a[i * n + j] = r[j] + k;
        }
}""",
    # the outer counter changes inside: no range for it
    "k_changes": """
void k_changes(std::vector<std::vector<double>>& a, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n; ++i) {
            for (int j = k; j < n; ++j) a[i][j] -= a[k][j];
            k = k + 0;
        }
}""",
    # a callee may change the bound of k through a reference: k < n no longer holds
    "bound_by_ref": """
void shrink(int& m);
void bound_by_ref(double* a, int n) {
    for (int k = 0; k < n; ++k) {
        shrink(n);
        for (int i = k + 1; i < n; ++i)
            for (int j = k; j < n; ++j) a[i * n + j] -= a[i * n + k] * a[k * n + j];
    }
}""",
    # a local that hides the outer counter
    "hidden_k": """
void hidden_k(std::vector<std::vector<double>>& a, int n, int k0) {
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n; ++i) {
            int k = k0;
            for (int j = 0; j < n; ++j) a[i][j] -= a[k][j];
        }
}""",
    # a local that hides the row loop's own counter
    "hidden_i": """
void hidden_i(std::vector<std::vector<double>>& a, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n; ++i) {
            { int i = 0; for (int j = 0; j < n; ++j) a[i][j] += a[k][j]; }
        }
}""",
}


@pytest.mark.parametrize("name", sorted(NEGATIVE))
def test_rows_that_may_meet_are_refused(name: str) -> None:
    code = NEGATIVE[name]
    row_loop = _loops(code, name)[1]
    assert not row_loop.independent, name
    res = rewrite(function_by_name(HEADERS + code, "cpp", name))
    lines = res.code.splitlines()
    for at, line in enumerate(lines):
        if line.strip().startswith(f"for (int {row_loop.induction} ="):
            before = lines[at - 1].strip() if at else ""
            assert not before.startswith("#pragma omp"), res.code
            assert not before.startswith("if ((long long)"), res.code


def test_pointers_that_may_overlap_stay_serial() -> None:
    code = """
void two_arrays(double* a, const double* b, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n; ++i) {
            double f = a[i * n + k] / b[k * n + k];
            for (int j = k; j < n; ++j) a[i * n + j] -= f * b[k * n + j];
        }
}"""
    res = rewrite(function_by_name(HEADERS + code, "cpp", "two_arrays"))
    assert not res.rules & OPENMP, res.code
    # with restrict the caller promises they do not overlap
    ok = code.replace("double* a", "double* __restrict a").replace(
        "const double* b", "const double* __restrict b")
    res = rewrite(function_by_name(HEADERS + ok, "cpp", "two_arrays"))
    assert "openmp-for" in res.rules, res.notes


# ---------------------------------------------------------------------------------------------
# the rewrite: a gate on the region's work, a static schedule for even rows


def test_row_loop_is_gated_on_rows_times_columns() -> None:
    code, _var = POSITIVE["lu_rows"]
    res = rewrite(function_by_name(HEADERS + code, "cpp", "lu_rows"))
    text = res.code
    # the loop is the k loop's whole body: the branch replaces it as one statement
    gate = next(line.strip() for line in text.splitlines() if line.strip().startswith("if ("))
    rows = "(long long)n - (k + 1)"
    cols = "(long long)n - k"
    assert gate.startswith(f"if ({rows} > 1 && (double)({rows}) * ("), gate
    assert f"(double)({cols}) * " in gate and gate.endswith("> 40000) {"), gate
    # even rows: the default static schedule
    assert "#pragma omp parallel for\n" in text, text
    assert text.count("double f = a[i][k] / a[k][k];") == 2
    assert "} else {" in text
    site = function_by_name(HEADERS + code, "cpp", "lu_rows")
    finding = next(f for f in analyze_site(site).findings if f.rule == "openmp-for")
    assert "trip counts of the loops inside" in finding.explanation
    assert isinstance(finding.proof, ParallelLoop)
    assert "if((long long)n" in finding.proof.pragma


def test_rows_of_growing_length_get_a_dynamic_share() -> None:
    code = """
void lower(std::vector<std::vector<double>>& a, int n) {
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n; ++i)
            for (int j = k; j < i; ++j) a[i][j] -= a[k][j];
}"""
    res = rewrite(function_by_name(HEADERS + code, "cpp", "lower"))
    assert "#pragma omp parallel for schedule(guided)" in res.code, res.code
    # the inner count follows i: the gate takes it at the middle row
    assert "(((long long)(k + 1) + (long long)(n)) / 2)" in res.code, res.code


def test_substitution_column_is_gated_on_its_length() -> None:
    code, _var = POSITIVE["backward"]
    res = rewrite(function_by_name(HEADERS + code, "cpp", "backward"))
    assert "if (j > " in res.code, res.code
    # 'x' may be a row of 'u' (a caller may pass 'backward(m, m[0], n)'): a run-time test that
    # it is not one of u's elements decides
    assert "#pragma omp parallel for if(apart)\n" in res.code
    assert "(long long)(&x) < " in res.code


# ---------------------------------------------------------------------------------------------
# differential: bit-identical at one and two threads


def _variants(count: int, seed: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    for v in range(count):
        name = f"elim{v}"
        t = ("double", "float")[v % 2]
        store = ("rows", "flat", "pointer")[v % 3]
        factor = rnd.random() < 0.6
        i_cond = rnd.choice(("i < n", "i <= n - 1", "n > i"))
        j_from = rnd.choice(("k", "k + 1", "0"))
        step = rnd.choice(("++{v}", "{v}++", "{v} += 1"))
        ct = rnd.choice(("int", "long", "int")) if store != "rows" else "int"
        keep = factor and j_from == "k + 1" and rnd.random() < 0.5

        flat_form = rnd.randrange(3)

        def at(r: str, c: str, store: str = store, flat_form: int = flat_form) -> str:
            if store == "rows":
                return f"a[{r}][{c}]"
            form = (f"{r} * n + {c}", f"n * {r} + {c}", f"{c} + {r} * n")[flat_form]
            return f"a[{form}]"

        param = {"rows": f"std::vector<std::vector<{t}>>& a",
                 "flat": f"std::vector<{t}>& a", "pointer": f"{t}* a"}[store]
        mult = f"f{v}" if factor else f"{at('i', 'k')} / {at('k', 'k')}"
        body = (f"            {t} f{v} = {at('i', 'k')} / {at('k', 'k')};\n" if factor else "")
        body += (f"            for ({ct} j = {j_from}; j < n; {step.format(v='j')}) "
                 f"{at('i', 'j')} -= {mult} * {at('k', 'j')};\n")
        if keep:
            body += f"            {at('i', 'k')} = f{v};\n"
        code = (f"void {name}({param}, {ct} n) {{\n"
                f"    for ({ct} k = 0; k < n; {step.format(v='k')})\n"
                f"        for ({ct} i = k + 1; {i_cond}; {step.format(v='i')}) {{\n"
                f"{body}        }}\n}}\n")
        fill = ("for (int r = 0; r < n; ++r) for (int c = 0; c < n; ++c) "
                f"m[r * n + c] = ({t})(((r * 37 + c * 11 + {v}) % 23) - 11) / ({t})8 "
                f"+ (r == c ? ({t})(3 * n + 5) : ({t})0);")
        call = {"rows": (f"std::vector<std::vector<{t}>> g(n, std::vector<{t}>(n)); "
                         "for (int r = 0; r < n; ++r) for (int c = 0; c < n; ++c) "
                         f"g[r][c] = m[r * n + c]; {name}(g, n); "
                         "for (int r = 0; r < n; ++r) for (int c = 0; c < n; ++c) "
                         "m[r * n + c] = g[r][c];"),
                "flat": f"{name}(m, n);",
                "pointer": f"{name}(m.data(), n);"}[store]
        driver = ("for (int n : {0, 1, 2, 3, 17, 90, 160}) { "
                  f"std::vector<{t}> m((std::size_t)n * n); {fill} {call} "
                  "unsigned long long h = 1469598103934665603ull; "
                  f"for ({t} x : m) {{ unsigned long long b = 0; "
                  "__builtin_memcpy(&b, &x, sizeof x); h = (h ^ b) * 1099511628211ull; } "
                  "std::printf(\"n=%d %llx\\n\", n, h); }")
        out.append(Variant(name, code, driver))
    return out


def _others() -> list[Variant]:
    """The shapes that fall out of the same proof: substitution and Gram-Schmidt."""
    code = """
void subst_back(std::vector<double>& u, std::vector<double>& x, int n) {
    for (int j = n - 1; j >= 0; --j) {
        x[j] /= u[j * n + j];
        for (int i = 0; i < j; ++i) x[i] -= u[i * n + j] * x[j];
    }
}
void projections(std::vector<std::vector<double>>& q, int m, int n) {
    for (int k = 0; k < n; ++k) {
        double nrm = 0;
        for (int r = 0; r < m; ++r) nrm += q[k][r] * q[k][r];
        nrm = std::sqrt(nrm) + 1.0;
        for (int r = 0; r < m; ++r) q[k][r] /= nrm;
        for (int j = k + 1; j < n; ++j) {
            double d = 0;
            for (int r = 0; r < m; ++r) d += q[k][r] * q[j][r];
            for (int r = 0; r < m; ++r) q[j][r] -= d * q[k][r];
        }
    }
}
"""
    hash_ = ("unsigned long long h = 1469598103934665603ull; "
             "for (double x : {out}) {{ unsigned long long b = 0; "
             "__builtin_memcpy(&b, &x, sizeof x); h = (h ^ b) * 1099511628211ull; }} "
             "std::printf(\"%llx\\n\", h);")
    subst = ("for (int n : {0, 1, 5, 2300}) { std::vector<double> u((std::size_t)n * n), x(n); "
             "for (int r = 0; r < n; ++r) { x[r] = (r % 7) - 3; for (int c = 0; c < n; ++c) "
             "u[(std::size_t)r * n + c] = ((r * 5 + c * 3) % 11) / 16.0 + (r == c ? 4.0 : 0.0); } "
             "subst_back(u, x, n); " + hash_.format(out="x") + " }")
    proj = ("for (int n : {0, 1, 4, 70}) { std::vector<std::vector<double>> q(n, "
            "std::vector<double>(60)); for (int r = 0; r < n; ++r) for (int c = 0; c < 60; ++c) "
            "q[r][c] = ((r * 13 + c * 7) % 19) - 9 + (r == c ? 20.0 : 0.0); "
            "projections(q, 60, n); std::vector<double> all; "
            "for (auto& row : q) all.insert(all.end(), row.begin(), row.end()); "
            + hash_.format(out="all") + " }")
    first, second = code.split("void projections")
    return [Variant("subst_back", first, subst),
            Variant("projections", "void projections" + second, proj)]


def _differential(variants: list[Variant], tmp_path: Path) -> None:
    unit, new_unit, results = rewrite_all(variants, OPENMP)
    missed = [k for k, r in results.items() if "openmp-for" not in r.rules]
    assert not missed, (missed, results[missed[0]].notes if missed else None)
    drivers = "\n".join(f"    {{ std::printf(\"== {v.name}\\n\"); {v.driver} }}"
                        for v in variants)
    before = _build_and_run(unit, drivers, tmp_path, "orig", openmp=False)
    for threads in (1, 2):
        after = _build_and_run(new_unit, drivers, tmp_path, f"omp{threads}", threads=threads)
        bad = [(x, y) for x, y in zip(before.splitlines(), after.splitlines(), strict=True)
               if x != y]
        assert not bad and len(before) == len(after), (threads, bad[:5])


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_eliminations_agree_bit_for_bit(tmp_path: Path) -> None:
    variants = _variants(36, seed=14)
    _unit, new_unit, _results = rewrite_all(variants, OPENMP)
    # every variant's row loop (not only its column loop) runs in parallel, behind the gate
    assert new_unit.count("#pragma omp parallel for") == len(variants), new_unit
    assert new_unit.count(" > 1 && (double)(") == len(variants)
    _differential(variants, tmp_path)


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_substitution_and_projections_agree_bit_for_bit(tmp_path: Path) -> None:
    _differential(_others(), tmp_path)


# ---------------------------------------------------------------------------------------------
# the runner, end to end

UNIT = """#include <cmath>
#include <vector>

void eliminate(std::vector<double>& a) {
    const int n = (int)std::sqrt((double)a.size());
    for (int k = 0; k < n; ++k) {
        const double p = a[k * n + k] != 0.0 ? a[k * n + k] : 1.0;
        for (int i = k + 1; i < n; ++i) {
            const double f = a[i * n + k] / p;
            for (int j = k; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
        }
    }
}
"""


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
async def test_runner_validates_the_parallel_elimination() -> None:
    site = function_by_name(UNIT, "cpp", "eliminate")
    res = rewrite(site)
    assert "openmp-for" in res.rules, res.notes
    tuning = Tuning(target_sample_s=0.002, edge_sizes=(0, 1, 2, 7), budget_s=10.0,
                    noisy_retries=1, max_pairs_factor=4, profiles=(0, 1), seeds_per_profile=1,
                    mutants=False, coverage=False)
    settings = RunnerSettings(pairs=8, callgrind=False, threads=2, run_timeout_s=30.0)
    v = await verify_and_measure(site, res.code, settings, JobContext(), tuning=tuning)
    assert v.validation_status == "passed", v.validation_detail
    assert v.threads == 2 and "-fopenmp" in v.flags
