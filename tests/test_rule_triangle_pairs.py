"""The linear-search-in-loop rule's rewrite of loops over the pairs ``i < j`` of one sequence that
return a constant at the first equal pair or pair of a given sum: the forms, the code it must
leave alone (each refusal checked to matter by weakening its proof), and generated variants
built with g++ before and after."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare_rewritten, rewrite_function
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze_site
from perfpilot.rules.search import triangle_pairs as tp
from perfpilot.rules.search.linear_search_in_loop import PairSite

RULES = frozenset({"linear-search-in-loop"})
_HEAD = "#include <vector>\n"


def _rewritten(code: str) -> tuple[str, tuple[str, ...]]:
    res = rewrite_function(_HEAD + code, RULES)
    return res.code, res.notes


def _pairs(test: str, params: str = "const std::vector<int>& a, long long t",
           ret: str = "return true;", bound: str = "a.size()", inner_start: str = "i + 1",
           extra: str = "", idx: str = "std::size_t") -> str:
    return (f"bool f({params}) {{ for ({idx} i = 0; i < {bound}; ++i) "
            f"for ({idx} j = {inner_start}; j < {bound}; ++j) {{ if ({test}) {ret} "
            f"{extra}}} return false; }}")


@pytest.mark.parametrize(("code", "want"), [
    (_pairs("a[i] == a[j]"), "{ std::unordered_set<int> a_seen; for (const auto& v : a) "
     "if (!a_seen.insert(v).second) return true; }"),
    (_pairs("a[j] == a[i]", "const long* a, int n", ret="return 1;", bound="n", idx="int"),
     "for (auto v = a; v < a + (n > 0 ? n : 0); ++v) if (!a_seen.insert(*v).second) "
     "return 1;"),
    (_pairs("a[i] + a[j] == t"), "long long sum = (long long)a_sorted[lo] + a_sorted[hi - 1];"),
    (_pairs("t == a[j] + a[i]", "const short* a, int n, int t", bound="n"),
     "std::vector<short> a_sorted(a, a + (n > 0 ? n : 0));"),
    (_pairs("a[i] + a[j] == 10", "const std::vector<unsigned char>& a"), "if (sum == 10)"),
])
def test_rewritten_forms(code: str, want: str) -> None:
    out, notes = _rewritten(code)
    assert want in out, (out, notes)
    assert "j <" not in out and out.rstrip().endswith("return false; }")


def test_fresh_names_do_not_hide_the_target() -> None:
    out, _ = _rewritten(_pairs("a[i] + a[j] == lo", "const std::vector<int>& a, int lo"))
    assert "if (sum == lo)" in out and "std::size_t lo = 0" not in out, out


def test_c_is_left_alone() -> None:
    code = ("int f(const int* a, int n) { for (int i = 0; i < n; ++i) for (int j = i + 1; "
            "j < n; ++j) if (a[i] + a[j] == 0) return 1; return 0; }")
    site = function_by_name(code, "c", "f")
    assert "sorted" not in rewrite(site, RULES).code
    assert not [f for f in analyze_site(site).findings if f.rule == "linear-search-in-loop"]


def test_the_pair_sum_is_reported() -> None:
    code = _HEAD + _pairs("a[i] + a[j] == t")
    found = [f.proof for f in analyze_site(function_by_name(code, "cpp", "f")).findings
             if f.rule == "linear-search-in-loop"]
    assert len(found) == 1 and isinstance(found[0], PairSite) and found[0].found.target == "t"


_NEGATIVE: list[tuple[str, str, str]] = [
    (_pairs("a[i] == a[j]", ret="return i;"), "constant", "returns-index"),
    (_pairs("a[i] + a[j] == t", "const std::vector<long>& a, long t"), "overflow", "long"),
    (_pairs("a[i] + a[j] == t", "const std::vector<unsigned>& a, long long t"), "overflow",
     "unsigned"),
    (_pairs("a[i] + a[j] == t", "const std::vector<int>& a, unsigned t"), "not a signed",
     "unsigned-target"),
    (_pairs("a[i] == a[j]", "const std::vector<double>& a"), "not a sequence of integers",
     "float"),
    (_pairs("a[i] == a[j]", inner_start="0"), "", "not-triangle"),
    (_pairs("a[i] == a[j]", inner_start="i"), "", "not-triangle"),
    (_pairs("a[i] == a[j]", extra="t++; "), "", "extra"),
    (_pairs("a[i] + a[j] == i", "const int* a, int n", bound="n", idx="int"), "",
     "index-target"),
]


def _weaken(step: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if step == "returns-index":
        monkeypatch.setattr(tp, "_RETURN", re.compile(r"return (.+?) ?;"))
    elif step in ("long", "unsigned"):
        monkeypatch.setattr(tp, "SUM_ELEMENTS", tp.SUM_ELEMENTS | {"long", "unsigned"})
    elif step == "unsigned-target":
        monkeypatch.setattr(tp, "SUM_TARGETS", tp.SUM_TARGETS | {"unsigned"})
    elif step == "float":
        monkeypatch.setattr(tp, "sequence_element", lambda vt, pointer_ok: "double")
    elif step == "not-triangle":
        monkeypatch.setattr(tp, "_is_triangle", lambda *a: True)
    elif step == "extra":
        monkeypatch.setattr(tp, "single_statement", lambda body: body.named_children[0]
                            if body is not None and body.type == "compound_statement"
                            else body)
    elif step == "index-target":
        monkeypatch.setattr(tp, "_target_ok", lambda *a: True)


@pytest.mark.parametrize(("code", "words", "_step"), _NEGATIVE)
def test_left_alone(code: str, words: str, _step: str) -> None:
    out, notes = _rewritten(code)
    assert "_sorted" not in out and "_seen" not in out, out
    assert words in " ".join(notes), notes


@pytest.mark.parametrize(("code", "words", "step"), _NEGATIVE)
def test_a_weakened_proof_rewrites_the_negative_cases(
        code: str, words: str, step: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _weaken(step, monkeypatch)
    out, notes = _rewritten(code)
    assert "_sorted" in out or "_seen" in out, (out, notes)


# --- differential ------------------------------------------------------------------------------

_DUP_TYPES = ("int", "long", "long long", "short", "char", "unsigned", "unsigned long")
_SUM_TYPES = ("int", "short", "char", "unsigned char", "signed char", "unsigned short")
_TARGETS = ("int", "long long", "long", "literal")


def _variant(rnd: random.Random, n: int) -> Variant:
    sums = n % 2 == 1
    t = (_SUM_TYPES if sums else _DUP_TYPES)[(n // 2) % (6 if sums else 7)]
    pointer = rnd.random() < 0.4
    name = f"tp_{n}"
    target = _TARGETS[(n // 3) % 4] if sums else ""
    hit, miss = rnd.choice((("true", "false"), ("1", "0"), ("7", "-3"), ("false", "true")))
    if sums:
        x, y = rnd.choice((("a[i]", "a[j]"), ("a[j]", "a[i]")))
        lit = str(rnd.choice((0, 5, -4, 17)))
        rhs = lit if target == "literal" else "t"
        test = f"{x} + {y} == {rhs}" if rnd.random() < 0.5 else f"{rhs} == {x} + {y}"
    else:
        test = rnd.choice(("a[i] == a[j]", "a[j] == a[i]"))
    bound = "n" if pointer else "a.size()"
    idx = rnd.choice(("int", "std::size_t")) if pointer else "std::size_t"
    params = f"const {t}* a, int n" if pointer else f"const std::vector<{t}>& a"
    if sums and target != "literal":
        params += f", {target} t"
    code = (f"int {name}({params}) {{\n    for ({idx} i = 0; i < {bound}; ++i) {{\n"
            f"        for ({idx} j = i + 1; j < {bound}; ++j)\n"
            f"            if ({test}) return {hit};\n    }}\n    return {miss};\n}}\n")
    args = "a.data(), (int)a.size()" if pointer else "a"
    tvals = (-7, 0, 3, 40, 1000, -200) if sums and target != "literal" else (None,)
    drivers = []
    for m, size in ((7, 5), (1000003, 60), (97, 20), (3, 0), (11, 1), (250, 40)):
        calls = " ".join(
            f"std::printf(\"%d\\n\", {name}({args}{'' if tv is None else f', {tv}'}));"
            for tv in tvals)
        drivers.append(f"{{ const long M = {m}; std::vector<{t}> a; for (long k = 0; k < {size};"
                       f" ++k) a.push_back(({t})((k * 7919 + {n}) % M - M / 2)); {calls} }}")
    if n == 0:
        code = "#include <unordered_set>\n" + code
    return Variant(name, code, " ".join(drivers))


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    rnd = random.Random(11)
    results = compare_rewritten([_variant(rnd, n) for n in range(56)], RULES, tmp_path)
    for res in results.values():
        assert "j <" not in res.code, res.code
