"""New standard headers travel with a rewrite: into the unit, into the editor's edit, and out
again on Revert."""

from __future__ import annotations

from lsprotocol import types as lsp
from pygls.workspace import TextDocument

from perfpilot.code.locate import function_by_name
from perfpilot.code.splice import include_point, missing_includes, splice
from perfpilot.lsp.convert import function_edit

UNIT = """// counts
#include <vector>
#include "local.h"

int helper();

long count(const std::vector<int>& v) {
  long c = 0;
  for (int x : v) c += x > 0;
  return c;
}
"""

NEW = """long count(const std::vector<int>& v) {
  std::unordered_set<int> seen(v.begin(), v.end());
  return (long)std::count_if(v.begin(), v.end(), [](int x) { return x > 0; });
}
"""


def test_splice_adds_missing_headers_after_the_last_include_above_the_function() -> None:
    site = function_by_name(UNIT, "cpp", "count")
    out = splice(site, NEW, ("<algorithm>", "< vector >", "<unordered_set>", "<algorithm>"))
    assert out.startswith('// counts\n#include <vector>\n#include "local.h"\n'
                          "#include <algorithm>\n#include <unordered_set>\n\nint helper();")
    assert out.endswith(NEW)
    assert splice(site, NEW) == UNIT.replace(site.text, NEW.rstrip("\n"))


def test_headers_go_to_the_top_of_a_unit_without_includes_and_keep_crlf() -> None:
    unit = "int f(int x) {\r\n  return x;\r\n}\r\n"
    site = function_by_name(unit, "cpp", "f")
    assert include_point(unit, site.start_byte) == (0, 0)
    out = splice(site, "int f(int x) {\r\n  return std::max(x, 0);\r\n}", ("<algorithm>",))
    assert out.startswith("#include <algorithm>\r\nint f(int x) {")
    assert missing_includes(UNIT, ("<vector>", '"local.h"', "<map>")) == ("<map>",)


def _apply(text: str, edit: lsp.WorkspaceEdit) -> str:
    """Apply a WorkspaceEdit's text edits the way an editor does (all against the old text)."""
    assert edit.document_changes is not None
    change = edit.document_changes[0]
    assert isinstance(change, lsp.TextDocumentEdit)
    lines = text.splitlines(keepends=True)

    def offset(pos: lsp.Position) -> int:
        return sum(len(line) for line in lines[:pos.line]) + pos.character

    out = text
    for e in sorted(change.edits, key=lambda e: offset(e.range.start), reverse=True):
        out = out[:offset(e.range.start)] + e.new_text + out[offset(e.range.end):]
    return out


def test_the_edit_adds_the_headers_and_revert_takes_them_out() -> None:
    uri = "file:///w/count.cpp"
    site = function_by_name(UNIT, "cpp", "count", uri=uri)
    doc = TextDocument(uri, UNIT, version=3)
    edit = function_edit(doc, site, NEW, "Optimize count", version=3, confirm=False,
                         includes=("<unordered_set>", "<vector>"))
    applied = _apply(UNIT, edit)
    assert applied == splice(site, NEW, ("<unordered_set>",))
    # Revert, on the text as it is now: the function comes back and the header goes.
    now = function_by_name(applied, "cpp", "count", uri=uri)
    doc2 = TextDocument(uri, applied, version=4)
    back = function_edit(doc2, now, site.text, "Revert count", version=4, confirm=False,
                         drop_includes=("<unordered_set>",))
    assert _apply(applied, back) == UNIT


def test_headers_right_above_the_function_go_into_its_replacement() -> None:
    unit = "#include <vector>\nint f(int x) {\n  return x;\n}\n"
    site = function_by_name(unit, "cpp", "f", uri="file:///f.cpp")
    doc = TextDocument("file:///f.cpp", unit, version=1)
    edit = function_edit(doc, site, "int f(int x) {\n  return std::abs(x);\n}\n", "Optimize f",
                         version=1, confirm=False, includes=("<cstdlib>",))
    assert _apply(unit, edit) == ("#include <vector>\n#include <cstdlib>\n"
                                  "int f(int x) {\n  return std::abs(x);\n}\n")


CRLF_UNIT = UNIT.replace("\n", "\r\n")


def _bare_lf(text: str) -> int:
    return text.count("\n") - text.count("\r\n")


def test_a_crlf_file_gets_crlf_lines_in_the_edit_and_back_on_revert() -> None:
    uri = "file:///w/count.cpp"
    site = function_by_name(CRLF_UNIT, "cpp", "count", uri=uri)
    doc = TextDocument(uri, CRLF_UNIT, version=3)
    edit = function_edit(doc, site, NEW, "Optimize count", version=3, confirm=False,
                         includes=("<unordered_set>",))
    assert edit.document_changes is not None
    change = edit.document_changes[0]
    assert isinstance(change, lsp.TextDocumentEdit)
    assert all(_bare_lf(e.new_text) == 0 for e in change.edits)  # function and include line
    applied = _apply(CRLF_UNIT, edit)
    assert _bare_lf(applied) == 0 and "#include <unordered_set>\r\n" in applied
    assert applied == splice(site, NEW, ("<unordered_set>",))
    now = function_by_name(applied, "cpp", "count", uri=uri)
    back = function_edit(TextDocument(uri, applied, version=4), now, site.text, "Revert count",
                         version=4, confirm=False, drop_includes=("<unordered_set>",))
    assert _apply(applied, back) == CRLF_UNIT


def test_splice_keeps_each_files_line_endings() -> None:
    crlf = function_by_name(CRLF_UNIT, "cpp", "count")
    out = splice(crlf, NEW, ("<unordered_set>",))
    assert _bare_lf(out) == 0 and "#include <unordered_set>\r\n" in out
    assert "return (long)std::count_if" in out
    lf = function_by_name(UNIT, "cpp", "count")
    assert "\r" not in splice(lf, NEW, ("<unordered_set>",))
    # A function of CRLF lines in a mostly-LF file keeps its own endings, and a text that
    # already has CRLF endings (an original put back) is the same bytes.
    mixed = UNIT.replace(lf.text, lf.text.replace("\n", "\r\n"))
    site = function_by_name(mixed, "cpp", "count")
    assert _bare_lf(site.text) == 0
    assert splice(site, NEW) == mixed.replace(site.text, NEW.rstrip("\n").replace("\n", "\r\n"))
    assert splice(site, site.text) == mixed
