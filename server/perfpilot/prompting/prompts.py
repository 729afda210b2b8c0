"""Prompts for the planner, the plan-following optimizer and the direct optimizer.

They follow the shape PerfCoder's models were trained on (an analysis as a ``[SUGG/]`` plan in
the 15 categories, then the code in ``[OPT/]``), in our own words, so a PerfCoder-style
checkpoint and a general instruct model both answer in the format ``plan_format`` parses.
"""

from __future__ import annotations

from perfpilot.code.site import FunctionSite
from perfpilot.llm.base import Message
from perfpilot.strategy.categories import CATEGORIES
from perfpilot.strategy.plan_format import OPT_CLOSE, OPT_OPEN, SUGG_CLOSE, SUGG_OPEN, render_plan
from perfpilot.strategy.values import Plan

SYSTEM = (
    "You are a performance engineer for C and C++. You make functions run faster while "
    "computing exactly the same results for every input."
)


def lang_tag(site: FunctionSite) -> str:
    """The fence tag of the function's language (``c`` or ``cpp``)."""
    return "c" if site.language == "c" else "cpp"


def language_name(site: FunctionSite) -> str:
    """``C`` or ``C++``."""
    return "C" if site.language == "c" else "C++"


def _categories() -> str:
    return "\n".join(f"{c.id}. {c.name}" for c in CATEGORIES)


def context_block(site: FunctionSite, context: str) -> str:
    """The unit's context as a fenced block with its heading ('' when empty)."""
    if not context.strip():
        return ""
    return (f"Context from the same file (already there; do not repeat it):\n"
            f"```{lang_tag(site)}\n{context.rstrip()}\n```\n\n")


def function_block(site: FunctionSite) -> str:
    """The function as a fenced block with its heading."""
    return (f"The function (lines {site.first_line}-{site.last_line} of the file):\n"
            f"```{lang_tag(site)}\n{site.text.rstrip()}\n```\n\n")


def code_rules(site: FunctionSite) -> str:
    """What the answer's code may contain."""
    return (
        f"Rules for the code: write the complete optimized function `{site.name}` with the "
        "same name, parameters and return type. Helper functions, types and constants it "
        "needs may be defined above it, with names the file does not use yet; a function of "
        "the file it calls may be rewritten too (your version is kept beside the file's). No "
        "main, no global variables that change, nothing the file already has. The file's "
        "includes stay; a standard header it lacks may be named in an #include line (it is "
        "added to the file), project headers may not. OpenMP pragmas are allowed when "
        "iterations are independent."
    )


def answer_shape(site: FunctionSite) -> str:
    """The ``[OPT/]`` block the answer's code goes in."""
    return (f"{OPT_OPEN}\n```{lang_tag(site)}\n<the optimized function>\n```\n{OPT_CLOSE}")


def planner_messages(site: FunctionSite, context: str) -> list[Message]:
    """Ask for a strategy plan, then the optimized function."""
    user = (
        f"Analyse the performance of this {language_name(site)} function, list the "
        "optimizations that would make it faster, then write the optimized function.\n\n"
        f"{context_block(site, context)}{function_block(site)}"
        "Answer in exactly this shape:\n"
        f"{SUGG_OPEN}\n"
        "- **<category>**: <what to change in this function and why it is faster> "
        "(lines <first>-<last>)\n"
        f"{SUGG_CLOSE}\n"
        f"{answer_shape(site)}\n\n"
        "Give one to four suggestions, the most important first, each naming one of these "
        f"categories exactly:\n{_categories()}\n\n"
        f"{code_rules(site)}"
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def optimizer_messages(site: FunctionSite, plan: Plan, context: str) -> list[Message]:
    """Ask for the function rewritten following ``plan``."""
    user = (
        f"Optimize this {language_name(site)} function by following the plan below.\n\n"
        f"{context_block(site, context)}{function_block(site)}"
        f"The plan:\n{render_plan(plan).rstrip()}\n\n"
        "Apply the plan's suggestions that keep the results identical, and reply with the "
        f"optimized code only, in this shape:\n{answer_shape(site)}\n\n"
        f"{code_rules(site)}"
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def direct_messages(site: FunctionSite, context: str) -> list[Message]:
    """Ask for a faster version of the function without a plan."""
    user = (
        f"Make this {language_name(site)} function faster.\n\n"
        f"{context_block(site, context)}{function_block(site)}"
        f"Reply with the optimized code only, in this shape:\n{answer_shape(site)}\n\n"
        f"{code_rules(site)}"
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
