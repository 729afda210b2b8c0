"""Views of results: hover, code lenses, inlay hints and diagnostics.

Read only: they show the session's jobs and records and never change them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from perfpilot.engine.present import (
    draft_spec_hint,
    escape_md,
    hover_markdown,
    lens_title,
    needs_spec_verdict,
    plain_text,
    plan_brief,
    speedup_phrase,
)
from perfpilot.lsp.convert import client_position, header_range, server_position
from perfpilot.lsp.profile_view import profile_hover, profile_lenses
from perfpilot.lsp.protocol import (
    CMD_CANCEL,
    CMD_DRAFT_SPEC,
    CMD_REPORT,
    CMD_RERUN,
    CMD_REVERT,
    CMD_STATUS,
)

if TYPE_CHECKING:
    from perfpilot.lsp.language_server import PerfPilotServer

_PROBLEM_VERDICTS = {"incorrect": lsp.DiagnosticSeverity.Warning,
                     "suspicious": lsp.DiagnosticSeverity.Warning,
                     "build-failed": lsp.DiagnosticSeverity.Warning,
                     # Not the rewrite's fault: a hint, with the quick fix that drafts a spec.
                     "needs-spec": lsp.DiagnosticSeverity.Information,
                     "slower": lsp.DiagnosticSeverity.Information}


def publish_diagnostics(ls: PerfPilotServer, uri: str) -> None:
    """Diagnostics only for outcomes the user must act on."""
    doc = ls.document(uri)
    diags: list[lsp.Diagnostic] = []
    for name, rec in ls.session.records.get(uri, {}).items():
        site = ls.site_named(doc, name)
        if site is None or rec.outcome.chosen is not None:
            continue  # a candidate was applied: the others ask nothing of the user
        for t in rec.outcome.trials:
            v = t.verdict
            if v is None or v.verdict not in _PROBLEM_VERDICTS:
                continue
            rng = header_range(doc, site)
            if v.verdict == "needs-spec":
                # About the function, not a candidate: what it needs, and the quick fix.
                message = f"{v.message} {draft_spec_hint(site.name)}"
                evidence = ""
            else:
                # A measured verdict's phrase has its figures; the runner's message would
                # repeat them in another format. A failure's message says what failed.
                said = "" if v.verdict == "slower" else v.message
                message = f"PerfPilot candidate for {site.name}: {speedup_phrase(v)}. " \
                          f"{said}".strip()
                # Related information only for evidence the message does not already say.
                evidence = (v.validation_detail or v.build_log[-300:]).strip()
            related = [lsp.DiagnosticRelatedInformation(lsp.Location(uri, rng), evidence)] \
                if evidence and evidence not in message else None
            diags.append(lsp.Diagnostic(
                range=rng, severity=_PROBLEM_VERDICTS[v.verdict], source="perfpilot",
                code=v.verdict, message=message, related_information=related,
                data={"uri": uri, "function": name, "needsSpec": v.needs_spec}))
            break
    ls.text_document_publish_diagnostics(
        lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diags, version=doc.version))


def register(server: PerfPilotServer) -> None:
    """Register hover, code lenses and inlay hints."""

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def hover(ls: PerfPilotServer, params: lsp.HoverParams) -> lsp.Hover | None:
        doc = await ls.document_async(params.text_document.uri)
        site = ls.site_at(doc, params.position)
        if site is None:
            return None
        line = server_position(doc, params.position).line
        if not site.start_line <= line <= site.body_start_line:
            return None  # only on the name and signature, not inside the body
        running = ls.session.running(doc.uri, site.qualified_name)
        rec = ls.session.record(doc.uri, site.qualified_name)
        parts: list[str] = []
        if running:
            j = running[0]
            parts.append(f"**PerfPilot** is working on `{site.name}`: {escape_md(j.stage)} "
                         f"{escape_md(j.message)}")
        if rec is not None:
            parts.append(hover_markdown(rec.outcome) if rec.outcome.trials
                         else plan_brief(rec.outcome.plan, site.name))
            if rec.stale:
                parts.append("_The function changed since it was measured; Re-run to update._")
        parts.extend(profile_hover(ls, doc, site))
        if not parts:
            return None
        markdown = "\n\n".join(parts)
        if ls.hover_is_plain():
            return lsp.Hover(contents=lsp.MarkupContent(lsp.MarkupKind.PlainText,
                                                        plain_text(markdown)))
        return lsp.Hover(contents=lsp.MarkupContent(lsp.MarkupKind.Markdown, markdown))

    @server.feature(lsp.TEXT_DOCUMENT_CODE_LENS)
    def code_lens(ls: PerfPilotServer, params: lsp.CodeLensParams) -> list[lsp.CodeLens]:
        doc = ls.document(params.text_document.uri)
        lenses: list[lsp.CodeLens] = []
        shown: set[str] = set()
        for job in ls.session.running(doc.uri):
            site = ls.site_named(doc, job.function)
            if site is None:
                continue
            rng = header_range(doc, site)
            arg = {"uri": doc.uri, "line": rng.start.line, "character": rng.start.character}
            shown.add(job.function)
            lenses.append(lsp.CodeLens(rng, lsp.Command(
                f"$(sync~spin) PerfPilot: {job.stage}…", CMD_STATUS, arguments=[{}])))
            lenses.append(lsp.CodeLens(rng, lsp.Command(
                "Cancel", CMD_CANCEL, arguments=[{"jobId": job.id, **arg}])))
        # A result's line: its actions first (so a narrow editor clips figures, never an
        # action), then the result; the checks and variant race are in the hover and Details.
        tagged: list[tuple[bool, lsp.CodeLens]] = []
        for name, rec in ls.session.records.get(doc.uri, {}).items():
            site = ls.site_named(doc, name)
            if site is None or name in shown:
                continue
            rng = header_range(doc, site)
            arg = {"uri": doc.uri, "line": rng.start.line, "character": rng.start.character}
            report = [{**arg, "open": True}]
            tagged.append((False, lsp.CodeLens(rng, lsp.Command("Details", CMD_REPORT,
                                                                arguments=report))))
            if needs_spec_verdict(rec.outcome) is not None:
                tagged.append((False, lsp.CodeLens(rng, lsp.Command(
                    "Draft a bench spec", CMD_DRAFT_SPEC,
                    arguments=[{"uri": doc.uri, "function": name}]))))
            if rec.outcome.trials:
                tagged.append((False, lsp.CodeLens(rng, lsp.Command("Re-run", CMD_RERUN,
                                                                    arguments=[arg]))))
            if rec.applied:
                tagged.append((False, lsp.CodeLens(rng, lsp.Command("Revert", CMD_REVERT,
                                                                    arguments=[arg]))))
            tagged.append((True, lsp.CodeLens(rng, lsp.Command(
                lens_title(rec.outcome, rec.declined), CMD_REPORT, arguments=report))))
        tagged.extend(profile_lenses(ls, doc, header_range))
        # Stable: per line, actions in the order given, then figures.
        tagged.sort(key=lambda t: (t[1].range.start.line, t[0]))
        lenses.extend(lens for _figure, lens in tagged)
        return lenses

    @server.feature(lsp.TEXT_DOCUMENT_INLAY_HINT,
                    lsp.InlayHintOptions(resolve_provider=False))
    def inlay_hint(ls: PerfPilotServer, params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
        if not ls.engine.settings.inlay_hints:
            return []
        doc = ls.document(params.text_document.uri)
        hints: list[lsp.InlayHint] = []
        for name, rec in ls.session.records.get(doc.uri, {}).items():
            chosen = rec.outcome.chosen
            site = ls.site_named(doc, name)
            if site is None or chosen is None or chosen.verdict is None \
                    or not ls.session.claims_result(doc.uri, name):
                continue  # no figure on code the rewrite is not in
            v = chosen.verdict
            if v.speedup is None:
                continue
            line = doc.lines[site.start_line].rstrip("\r\n") if site.start_line < len(
                doc.lines) else ""
            if not (params.range.start.line <= site.start_line <= params.range.end.line):
                continue
            hints.append(lsp.InlayHint(
                position=client_position(doc, site.start_line, len(line)),
                label=f"⚡ {v.speedup:.2f}×", padding_left=True,
                tooltip=lsp.MarkupContent(lsp.MarkupKind.Markdown,
                                          escape_md(speedup_phrase(v)))))
        return hints
