"""The scan as SARIF 2.1.0: one result per verified speedup, its rewrite as a SARIF ``fix``.

Code-scanning services (GitHub's among them) show each result at the function's lines. The
fix's replacements are the changed line blocks of the whole-file rewrite (the function, and
any header it adds), as character offsets into the file as it was scanned.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from perfpilot import __version__
from perfpilot.scan.patches import Rewrite

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def rule_id(category: str) -> str:
    """``perfpilot/algorithm-level-optimization`` for a strategy category."""
    return "perfpilot/" + (re.sub(r"[^a-z0-9]+", "-", category.lower()).strip("-") or "rewrite")


def _interval(ci95: tuple[float, float] | None) -> str:
    return f" (95% CI {ci95[0]:.2f}–{ci95[1]:.2f})" if ci95 is not None else ""


def replacements(before: str, after: str) -> list[dict[str, Any]]:
    """The changed line blocks of ``before`` -> ``after`` as SARIF replacements."""
    old = before.splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    starts = [0]
    for line in old:
        starts.append(starts[-1] + len(line))
    out: list[dict[str, Any]] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        out.append({"deletedRegion": {"charOffset": starts[i1],
                                      "charLength": starts[i2] - starts[i1]},
                    "insertedContent": {"text": "".join(new[j1:j2])}})
    return out


def sarif_log(rewrites: list[Rewrite]) -> dict[str, Any]:
    """The SARIF log of the verified rewrites (``Rewrite.result.verified``)."""
    rules: dict[str, dict[str, Any]] = {}
    results: list[dict[str, Any]] = []
    for rw in rewrites:
        r = rw.result
        if not r.verified:
            continue
        category = r.plan[0].category if r.plan else "Rewrite"
        rid = rule_id(category)
        rules.setdefault(rid, {"id": rid, "name": category.replace(" ", ""),
                               "shortDescription": {"text": category}})
        speed = f"{r.speedup:.2f}x faster" if r.speedup is not None else "faster"
        text = (f"{r.target.function} can be made {speed}{_interval(r.ci95)}, verified "
                f"({r.verification or 'inputs compared'}).")
        location = {"physicalLocation": {
            "artifactLocation": {"uri": rw.path, "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": r.target.first_line, "endLine": r.target.last_line}}}
        results.append({
            "ruleId": rid,
            "level": "note",
            "kind": "review",
            "message": {"text": text},
            "locations": [location],
            "partialFingerprints": {"perfpilotFunction/v1": r.target.key},
            "fixes": [{
                "description": {"text": f"Rewrite of {r.target.function}: {speed}"},
                "artifactChanges": [{
                    "artifactLocation": {"uri": rw.path, "uriBaseId": "%SRCROOT%"},
                    "replacements": replacements(rw.before, rw.after)}]}],
            "properties": {"speedup": r.speedup,
                           "ci95": list(r.ci95) if r.ci95 is not None else None,
                           "verification": r.verification,
                           "worker": r.worker.to_json()},
        })
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "PerfPilot", "version": __version__,
                                "rules": list(rules.values())}},
            "originalUriBaseIds": {"%SRCROOT%": {"description": {
                "text": "The workspace root the scan ran in."}}},
            "results": results,
        }],
    }
