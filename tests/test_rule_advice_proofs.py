"""The advice-only rules of the io, arithmetic and codegen families (no rewrite of their own)
carry a typed proof on each finding: the nodes and facts their detection proved, for a
rewrite or a model to act on."""

from __future__ import annotations

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.locate import function_by_name
from perfpilot.code.site import Language
from perfpilot.code.syntax import node_text
from perfpilot.rules.arithmetic import mod_wrap, pow2_divmod
from perfpilot.rules.by_finding import Detector
from perfpilot.rules.codegen import (
    branchless_select,
    call_in_hot_loop,
    restrict_alias,
    std_algorithm,
)
from perfpilot.rules.finding import Proof
from perfpilot.rules.io import stdio_loop
from perfpilot.rules.rewriting import rule_input

CyclicCounter, SignedPow2 = mod_wrap.CyclicCounter, pow2_divmod.SignedPow2
GuardedUpdate, HotCall = branchless_select.GuardedUpdate, call_in_hot_loop.HotCall
MayAlias, HandWrittenLoop = restrict_alias.MayAlias, std_algorithm.HandWrittenLoop
StdioCalls = stdio_loop.StdioCalls
POW2, BRANCHLESS, HOT_CALL = pow2_divmod.RULE, branchless_select.RULE, call_in_hot_loop.RULE
RESTRICT, STD_ALGORITHM, STDIO = restrict_alias.RULE, std_algorithm.RULE, stdio_loop.RULE


def _facts(code: str, name: str, language: Language = "c") -> FunctionFacts:
    site = function_by_name(code, language, name, uri="file:///t.c", check_errors=False)
    inp = rule_input(site, site.text)
    assert inp is not None
    return inp.facts


def _proofs(detect: Detector, code: str, name: str, language: Language = "c") -> list[Proof]:
    found = list(detect(_facts(code, name, language)))
    assert found and all(f.proof is not None for f in found)
    return [f.proof for f in found if f.proof is not None]


def test_mod_wrap_proves_the_counter_and_its_bound() -> None:
    (p,) = _proofs(mod_wrap.mod_wrap, "int f(int n, int m) { int k = 0;\n"
                   "  for (int i = 0; i < m; ++i) k = (k + 1) % n;\n  return k; }", "f")
    assert isinstance(p, CyclicCounter)
    assert (node_text(p.assignment), p.counter, node_text(p.bound), p.replacement) == \
        ("k = (k + 1) % n", "k", "n", "if (++k == n) k = 0;")


def test_pow2_divmod_proves_the_operation_and_its_mask() -> None:
    (p,) = _proofs(POW2.detect, POW2.examples[0].source, POW2.examples[0].function)
    assert isinstance(p, SignedPow2)
    assert (node_text(p.operation), p.name, p.replacement) == ("v % 2", "v", "v & 1")


def test_branchless_select_proves_the_branch_and_its_update() -> None:
    ex = BRANCHLESS.examples[0]
    (p,) = _proofs(BRANCHLESS.detect, ex.source, ex.function)
    assert isinstance(p, GuardedUpdate)
    assert node_text(p.branch).startswith("if (a[i] > t)")
    assert (node_text(p.update), p.target, p.replacement) == \
        ("s += a[i]", "s", "s += (a[i] > t) ? a[i] : 0;")


def test_branchless_select_leaves_a_string_append_alone() -> None:
    # `text += c ? 'y' : 0` would append a NUL where the branch appended nothing; a number
    # (declared, or `auto` from a number) still gets the advice.
    code = ("#include <string>\n#include <vector>\n"
            "std::string f(const std::vector<int>& a, int t) {\n"
            "    std::string out;\n    std::string& text = out;\n    auto hits = 0.0;\n"
            "    for (std::size_t i = 0; i < a.size(); ++i) { if (a[i] > t) text += 'y'; }\n"
            "    for (std::size_t i = 0; i < a.size(); ++i) { if (a[i] > t) hits += a[i]; }\n"
            "    for (auto i = 0u; i < a.size(); ++i) { if (a[i] > t) out += \"ab\"; }\n"
            "    return out + std::to_string(hits);\n}\n")
    proofs = _proofs(BRANCHLESS.detect, code, "f", "cpp")
    assert [p.target for p in proofs if isinstance(p, GuardedUpdate)] == ["hits"]


def test_call_in_hot_loop_proves_the_call_and_the_definition_it_cannot_inline() -> None:
    indirect, interposable = HOT_CALL.examples
    (p,) = _proofs(HOT_CALL.detect, indirect.source, indirect.function, "cpp")
    assert isinstance(p, HotCall) and (node_text(p.call), p.callee, p.kind) == \
        ("f(x)", "f", "indirect") and p.definition is None
    (q,) = _proofs(HOT_CALL.detect, interposable.source, interposable.function, "cpp")
    assert isinstance(q, HotCall) and (q.callee, q.kind) == ("twice", "interposable")
    assert q.definition is not None and node_text(q.definition).startswith("int twice(int x)")


def test_restrict_alias_proves_the_pointers_and_the_store() -> None:
    ex = RESTRICT.examples[0]
    (p,) = _proofs(RESTRICT.detect, ex.source, ex.function)
    assert isinstance(p, MayAlias)
    assert (p.params, node_text(p.store), p.keyword) == \
        (("y", "x"), "y[i] = a * x[i] + y[i]", "restrict")


def test_std_algorithm_proves_the_loop_and_the_call_that_replaces_it() -> None:
    copy, fill = STD_ALGORITHM.examples
    (p,) = _proofs(STD_ALGORITHM.detect, copy.source, copy.function, "cpp")
    assert isinstance(p, HandWrittenLoop)
    assert node_text(p.loop).startswith("for (int i = 0; i < n; ++i)")
    assert (node_text(p.statement), p.kind, p.arrays, p.count, p.call) == \
        ("dst[i] = src[i];", "copy", ("dst", "src"), "n", "std::copy(src, src + n, dst)")
    (q,) = _proofs(STD_ALGORITHM.detect, fill.source, fill.function, "cpp")
    assert isinstance(q, HandWrittenLoop)
    assert (q.kind, q.call) == ("fill", "std::fill(v.begin(), v.end(), 1.5)")


def test_stdio_loop_proves_each_call_of_one_direction() -> None:
    code = ("#include <stdio.h>\nvoid f(int n) { int x;\n  for (int i = 0; i < n; i++) {\n"
            "    scanf(\"%d\", &x); printf(\"%d\", x); getchar(); }\n}\n")
    proofs = _proofs(STDIO.detect, code, "f")
    assert all(isinstance(p, StdioCalls) for p in proofs)
    shown = [(p.direction, [node_text(c).split("(")[0] for c in p.calls])
             for p in proofs if isinstance(p, StdioCalls)]
    assert shown == [("read", ["scanf", "getchar"]), ("write", ["printf"])]
