"""The tree-sitter locator on a tricky C++ unit and a C unit."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfpilot.code.locate import (
    AmbiguousFunctionError,
    NoFunctionError,
    SyntaxErrorNearFunction,
    function_at,
    function_by_name,
    list_functions,
)
from perfpilot.code.parse import language_for
from perfpilot.code.splice import splice

DATA = Path(__file__).parent / "data"
CPP = (DATA / "tricky.cpp").read_text(encoding="utf-8")
C = (DATA / "sample.c").read_text(encoding="utf-8")


def line_of(text: str, needle: str) -> int:
    """0-based line of the first line containing ``needle``."""
    return next(i for i, line in enumerate(text.splitlines()) if needle in line)


def test_lists_every_kind_of_definition() -> None:
    names = [s.qualified_name for s in list_functions(CPP, "cpp")]
    assert names == [
        "geo::detail::Point::norm2",
        "geo::detail::Point::origin",
        "geo::detail::Point::operator+=",
        "geo::total",
        "geo::clamp01",
        "dot",
        "overloaded",
        "overloaded",
        "count_words",
    ]


def test_in_class_method_and_out_of_class_operator() -> None:
    norm = function_by_name(CPP, "cpp", "norm2")
    assert norm.is_method and norm.params == ()
    op = function_by_name(CPP, "cpp", "Point::operator+=")
    assert op.name == "operator+="
    assert op.return_type == "Point&"
    assert op.params[0].name == "o" and op.params[0].const and op.params[0].reference == "&"
    assert op.text.startswith("Point& Point::operator+=") and op.text.endswith("}")


def test_template_range_includes_template_header() -> None:
    site = function_by_name(CPP, "cpp", "total")
    assert site.is_template
    assert site.text.startswith("template <typename T>")
    assert site.first_line == line_of(CPP, "template <typename T>") + 1
    assert site.params[0].base == "std::vector<T>" and site.params[0].const


def test_static_inline_and_openmp() -> None:
    assert function_by_name(CPP, "cpp", "clamp01").is_static
    dot = function_by_name(CPP, "cpp", "dot")
    assert dot.has_openmp
    assert [(p.name, p.pointer, p.const) for p in dot.params] == [
        ("a", 1, True), ("b", 1, True), ("n", 0, False)]


def test_function_at_position_inside_body_and_outside() -> None:
    line = line_of(CPP, "for (auto& w : words)")
    site = function_at(CPP, "cpp", line, 8)
    assert site.name == "count_words"
    assert site.params[0].base == "std::vector<std::string>" and site.params[0].reference == ""
    with pytest.raises(NoFunctionError, match=r"no function definition at line 1"):
        function_at(CPP, "cpp", 0, 0)


def test_ambiguous_name_lists_choices() -> None:
    with pytest.raises(AmbiguousFunctionError) as info:
        function_by_name(CPP, "cpp", "overloaded")
    assert len(info.value.choices) == 2
    assert "give a line or a qualified name" in str(info.value)


def test_unknown_name_lists_known_functions() -> None:
    with pytest.raises(NoFunctionError, match=r"no function named 'nope'.*count_words"):
        function_by_name(CPP, "cpp", "nope")


def test_c_unit() -> None:
    sites = list_functions(C, "c")
    assert [s.name for s in sites] == ["count_upper", "scale", "main"]
    scale = sites[1]
    assert [p.name for p in scale.params] == ["out", "in", "n", "k"]
    assert scale.params[0].pointer == 1
    assert sites[2].params == ()  # (void) is no parameter


def test_syntax_error_inside_function_is_reported() -> None:
    broken = ("int f(int n) {\n  int s = 0;\n  for (int i = 0; i < n; i++ { s += i; }\n"
              "  return s;\n}\n")
    with pytest.raises(SyntaxErrorNearFunction, match="syntax error near line"):
        function_at(broken, "cpp", 1, 2)


def test_splice_replaces_exactly_the_function_and_keeps_non_ascii() -> None:
    site = function_by_name(CPP, "cpp", "count_words")
    new = "std::map<std::string, int> count_words(std::vector<std::string> words, " \
          "unsigned long long limit) { return {}; }"
    out = splice(site, new)
    assert out.count("count_words") == 1
    assert out.startswith(CPP[: CPP.index("std::map<std::string, int> count_words")])
    assert "return {}; }" in out
    # Splicing a method keeps the rest byte-identical.
    norm = function_by_name(CPP, "cpp", "norm2")
    out2 = splice(norm, "double norm2() const { return x*x + y*y; }")
    assert out2.replace("double norm2() const { return x*x + y*y; }",
                        norm.text) == CPP


def test_positions_use_characters_after_non_ascii() -> None:
    text = "// ü ü ü\nint f(int a) { return a; } int g() { return 1; }\n"
    site = function_at(text, "cpp", 1, 30)
    assert site.name == "g"
    assert site.start_col == text.splitlines()[1].index("int g")


@pytest.mark.parametrize(("name", "lang_id", "expected"), [
    ("a.c", None, "c"), ("a.cpp", None, "cpp"), ("a.h", None, "cpp"), ("a.py", None, None),
    ("x", "c", "c"), ("x.c", "cpp", "cpp"), ("x.cpp", "python", None),
])
def test_language_for(name: str, lang_id: str | None, expected: str | None) -> None:
    assert language_for(name, lang_id) == expected
