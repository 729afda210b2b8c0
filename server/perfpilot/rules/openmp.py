"""The openmp rule: the outermost loops whose iterations provably do not interfere."""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.parallel import openmp
from perfpilot.rules.rewrite.loop_rules import openmp_rule

RULE = RuleSpec(
    id="openmp",
    detect=openmp,
    finds=frozenset({"openmp-for", "openmp-reduction"}),
    rewrite=openmp_rule,
    rewrites_as=frozenset({"openmp-for", "openmp-reduction"}),
    phase=3,
    order=0,
    examples=(
        Example("cpp", """
void saxpy(float *y, const float *x, float a, int n) {
    for (int i = 0; i < n; ++i) {
        y[i] = a * x[i] + y[i];
    }
}
""", "saxpy"),
        Example("cpp", """
long total(const int *a, int n) {
    long s = 0;
    for (int i = 0; i < n; ++i) {
        s += a[i];
    }
    return s;
}
""", "total"),
    ),
)
