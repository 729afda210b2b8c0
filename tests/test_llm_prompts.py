"""File context within a budget, and the three prompts."""

from __future__ import annotations

from perfpilot.code.locate import function_by_name
from perfpilot.prompting.context import estimate_tokens, unit_context
from perfpilot.prompting.prompts import direct_messages, optimizer_messages, planner_messages
from perfpilot.strategy.categories import category_by_id
from perfpilot.strategy.plan_format import render_plan
from perfpilot.strategy.values import Plan, Strategy

UNIT = """#include <vector>
#include <unordered_map>
#define LIMIT 100
using namespace std;

struct Edge { int to; double w; };
struct Unused { int a; };
typedef vector<Edge> Adj;

static int counter = 0;
static int unrelated_global = 5;

double weight(const Edge& e) { return e.w * 2.0; }

double helper_not_called(int x) { return x; }

double heavy(const vector<Adj>& g, int src) {
    double best = 0;
    for (const Edge& e : g[src]) { best += weight(e); counter++; }
    return best < LIMIT ? best : LIMIT;
}
"""


def site():
    return function_by_name(UNIT, "cpp", "heavy")


def test_context_has_includes_used_types_globals_and_called_helpers() -> None:
    ctx = unit_context(site(), 2000)
    for wanted in ("#include <vector>", "#define LIMIT 100", "using namespace std;",
                   "struct Edge", "typedef vector<Edge> Adj;", "static int counter = 0;",
                   "double weight(const Edge& e) { return e.w * 2.0; }"):
        assert wanted in ctx, wanted
    for unwanted in ("Unused", "unrelated_global", "helper_not_called", "double heavy"):
        assert unwanted not in ctx, unwanted


def test_context_respects_the_budget_and_keeps_includes_first() -> None:
    small = unit_context(site(), 12)
    assert estimate_tokens(small) <= 12
    assert small.startswith("#include <vector>")


def test_helper_shrinks_to_its_signature_when_short_of_budget() -> None:
    big_body = "double weight(const Edge& e) {\n" + "    e.w;\n" * 400 + "    return e.w;\n}\n"
    unit = UNIT.replace("double weight(const Edge& e) { return e.w * 2.0; }", big_body)
    ctx = unit_context(function_by_name(unit, "cpp", "heavy"), 200)
    assert "double weight(const Edge& e);" in ctx
    assert "e.w;\n    e.w;" not in ctx


def test_planner_prompt_asks_for_the_plan_format_and_lists_categories() -> None:
    messages = planner_messages(site(), "#include <vector>")
    assert [m["role"] for m in messages] == ["system", "user"]
    user = messages[1]["content"]
    assert "[SUGG/]" in user and "[/SUGG]" in user and "[OPT/]" in user
    assert "15. Efficient Library and API Utilization" in user
    assert "double heavy(const vector<Adj>& g, int src)" in user
    assert "lines 17-21" in user


def test_optimizer_prompt_carries_the_rendered_plan() -> None:
    plan = Plan((Strategy(category_by_id(4), "hoist the call", (19,)),), "builtin")
    user = optimizer_messages(site(), plan, "")[1]["content"]
    assert render_plan(plan).strip() in user
    assert "Context from the same file" not in user  # empty context is left out


def test_direct_prompt_has_no_plan() -> None:
    user = direct_messages(site(), "struct Edge { int to; double w; };")[1]["content"]
    assert "[SUGG/]" not in user and "[OPT/]" in user and "struct Edge" in user


def test_c_function_is_labelled_c() -> None:
    c_site = function_by_name("int f(int x) { return x * 2; }\n", "c", "f")
    assert "this C function" in planner_messages(c_site, "")[1]["content"]
