"""The ordered-map-unneeded rule: a local ``std::map``/``std::set`` used only for lookup and
insertion.
"""

from __future__ import annotations

from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.containers import ordered_map_unneeded

RULE = RuleSpec(
    id="ordered-map-unneeded",
    detect=ordered_map_unneeded,
    examples=(
        Example("cpp", """
#include <map>
#include <vector>
int most_frequent(const std::vector<int> &v) {
    std::map<int, int> counts;
    for (int x : v) counts[x]++;
    int best = -1, best_count = 0;
    for (const auto &kv : counts) {
        if (kv.second > best_count) { best = kv.first; best_count = kv.second; }
    }
    return best;
}
""", "most_frequent"),
        Example("cpp", """
#include <map>
int freq(const int *a, int n) {
    std::map<int, int> cnt;
    for (int i = 0; i < n; ++i) cnt[a[i]]++;
    return cnt.count(7) ? cnt[7] : 0;
}
""", "freq"),
    ),
)
