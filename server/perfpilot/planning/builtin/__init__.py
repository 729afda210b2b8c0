"""The built-in planner: a static analyser over the tree-sitter syntax tree.

``analyze(site)`` returns ranked ``Finding`` values (also used by the built-in rewriter);
``BuiltinPlanner`` turns them into a ``Plan``.
"""

from perfpilot.planning.builtin.analysis import Analysis, analyze, analyze_site
from perfpilot.planning.builtin.planner import BuiltinPlanner, select
from perfpilot.rules.finding import RULES, Finding, Rule

__all__ = ["RULES", "Analysis", "BuiltinPlanner", "Finding", "Rule", "analyze",
           "analyze_site", "select"]
