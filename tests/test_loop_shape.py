"""How evenly a loop's iterations share its work, read from the ``for`` headers inside it
(``loop_header.read_header``): trip counts that follow the outer counter in the condition grow,
in the start shrink, read from data are irregular."""

from __future__ import annotations

import pytest

from perfpilot.code.parse import parse
from perfpilot.code.syntax import walk
from perfpilot.rules.parallel.loop_shape import Balance, loop_balance


def _balance(inner: str) -> Balance:
    code = f"void f(double* a, const int* len, int n) {{ for (int i = 0; i < n; ++i) {inner} }}"
    root = parse(code, "cpp").root_node
    outer = next(n for n in walk(root) if n.type == "for_statement")
    return loop_balance(outer, "i")


@pytest.mark.parametrize(("inner", "balance"), [
    ("for (int j = 0; j < n; ++j) a[j] += i;", "rectangular"),
    ("for (int j = 0; j < i; ++j) a[j] += 1;", "triangular-growing"),
    ("for (int j = i; j < n; ++j) a[j] += 1;", "triangular"),
    ("{ int j; for (j = i + 1; j < n; ++j) a[j] += 1; }", "triangular"),
    ("for (int j = 0, k = i; j < n; ++j) a[j] += k;", "triangular"),
    ("for (int j = 0; j < len[i]; ++j) a[j] += 1;", "irregular"),
    ("for (int j = 0; ; ++j) if (a[j] > 0) break;", "irregular"),
    ("for (int j = 0; j < i; ++j) for (int k = 0; k < j; ++k) a[k] += 1;",
     "triangular-growing"),
])
def test_balance_follows_the_inner_headers(inner: str, balance: Balance) -> None:
    assert _balance(inner) == balance
