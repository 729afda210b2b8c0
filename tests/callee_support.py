"""Fixtures shared by the callee tests (plans that look into the functions a planned function
calls, and rewrites in a renamed copy of them): the units they plan, and the site helper."""

from __future__ import annotations

import pytest

from differential_support import HAVE_GXX
from perfpilot.code.locate import function_by_name
from perfpilot.code.site import FunctionSite, Language

needs_gxx = pytest.mark.skipif(not HAVE_GXX, reason="needs g++")

# A wrapper around an exponential recursion that memoisation fixes.
MEMO = """\
#include <string>

static int steps(const std::string& s, int i, const std::string& t, int j) {
    if (i == (int)s.size()) return (int)t.size() - j;
    if (j == (int)t.size()) return (int)s.size() - i;
    if (s[i] == t[j]) return steps(s, i + 1, t, j + 1);
    int a = steps(s, i + 1, t, j);
    int b = steps(s, i, t, j + 1);
    return 1 + (a < b ? a : b);
}

int edits(const std::string& s, const std::string& t) {
    return steps(s, 0, t, 0);
}
"""

# The same unit with the copy's first-choice name already written in it (in a comment).
MEMO_FAST_TAKEN = MEMO.replace(
    "static int steps(", "// steps_fast is taken: the copy needs another name.\n"
    "static int steps(", 1)

# The body of a naive Fibonacci function called ``{name}``.
FIB = """\
    if (n < 2) return n;
    return {name}(n - 1) + {name}(n - 2);
"""

# A callee declared before its caller but defined after it: no copy may stand for it.
DEFINED_AFTER = """\
long fib(int n);
long wrap(int n) { return fib(n); }
long fib(int n) {
""" + FIB.format(name="fib") + "}\n"


def callee_site(src: str, name: str, language: Language = "cpp") -> FunctionSite:
    """The function ``name`` of the unit ``src``, as a site of a file."""
    return function_by_name(src, language, name, uri="file:///t.cc")
