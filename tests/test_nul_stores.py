"""The proof that a loop over a C string stores no NUL into it (so strlen may be hoisted)."""

from __future__ import annotations

import pytest

from perfpilot.code.nul_stores import stores_no_nul
from perfpilot.code.parse import parse
from perfpilot.code.syntax import (
    walk,
)


def _body_of_loop(body: str) -> bool:
    unit = f"void f(char* s, char* t, int k) {{ for (int i = 0; i < strlen(s); ++i) {body} }}"
    tree = parse(unit, "cpp")
    loop = next(n for n in walk(tree.root_node) if n.type == "for_statement")
    node = loop.child_by_field_name("body")
    assert node is not None
    return stores_no_nul(node, "s", "i")


@pytest.mark.parametrize("body", [
    "s[i] = 'x';",
    "if (s[i] >= 'a' && s[i] <= 'z') s[i] = (char)(s[i] - 'a' + 'A');",
    "if ('A' <= s[i] && s[i] <= 'Z') { s[i] += 32; }",
    "if (std::islower(s[i])) s[i] -= 32;",
    "s[i] = toupper(s[i]);",
    "s[i] = (char)std::tolower((unsigned char)s[i]);",
    "s[i] |= 0x20;",
    "s[i] = s[i] == ',' ? ';' : 'x';",
    "if (s[i] == ' ') s[i] = '_';",
    "t[i] = s[i];",  # writes elsewhere are the caller's concern (aliasing is checked there)
])
def test_stores_that_cannot_be_nul(body: str) -> None:
    assert _body_of_loop(body)


@pytest.mark.parametrize("body", [
    "s[i] = 0;",
    "s[i] = '\\0';",
    "s[i] = '\\x00';",
    "s[i] = 256;",  # wraps to NUL in a char
    "s[i] = s[i] - 32;",  # ' ' becomes NUL
    "if (s[i] >= ' ') s[i] -= 32;",
    "if (s[i] == ',') s[i] = 'x'; else s[i] = 0;",
    "s[i] = s[i] ^ 32;",
    "s[i] = k;",
    "s[i + 1] = 'x';",
    "s[i]++;",
    "*s = 'x';",
    "char* p = &s[i]; *p = 0;",
    "s[i] = toupper(t[i]);",
    # the guard no longer describes s[i] once another store ran, or a loop repeats the store
    "if (s[i] >= 'a' && s[i] <= 'z') { s[i] = ' '; s[i] = s[i] - 32; }",
    "if (s[i] > 'a') for (int k2 = 0; k2 < 200; ++k2) s[i] = s[i] - 1;",
])
def test_stores_that_may_be_nul(body: str) -> None:
    assert not _body_of_loop(body)
