"""The builtin rules optimizer: mechanical rewrites proven safe by the loop analysis."""

from perfpilot.optimizing.builtin.optimizer import BuiltinOptimizer
from perfpilot.rules.rewriting import (
    ALL_RULES,
    OPENMP_RULES,
    Applied,
    RewriteResult,
    rewrite,
)

__all__ = ["ALL_RULES", "OPENMP_RULES", "Applied", "BuiltinOptimizer", "RewriteResult",
           "rewrite"]
