"""The 15 optimization categories, strategy plans, and the plan text format."""

from perfpilot.strategy.categories import CATEGORIES, Category, category_by_id, match_category
from perfpilot.strategy.values import Candidate, Plan, Strategy

__all__ = [
    "CATEGORIES",
    "Candidate",
    "Category",
    "Plan",
    "Strategy",
    "category_by_id",
    "match_category",
]
