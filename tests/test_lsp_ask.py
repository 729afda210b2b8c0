"""Ask mode's question: its wording, and the perfpilot/confirmRewrite message the VS Code
extension receives (the text before and after, for the diff)."""

from __future__ import annotations

from perfpilot.lsp.jobs import ask_prompt, question_id
from perfpilot.lsp.protocol import (
    MESSAGE_TYPES,
    REQUEST_CONFIRM_REWRITE,
    ConfirmRewriteParams,
    ConfirmRewriteRequest,
    make_converter,
)


def test_the_question_quotes_the_figure_once_with_one_full_stop() -> None:
    assert ask_prompt("ends", "2.31× faster (95% CI 2.20–2.43, serial)") == (
        "PerfPilot: apply the rewrite of ends? Measured: 2.31× faster (95% CI 2.20–2.43, "
        "serial).")
    # A weakly verified result's message ends with its own full stop: never two.
    weak = ask_prompt("ends", "1.80× faster (95% CI 1.70–1.90, serial), but only weakly "
                              "verified: the inputs never reach the empty branch.")
    assert weak.endswith("the empty branch.") and ".." not in weak


def test_the_confirm_request_carries_camel_case_keys_and_a_withdrawable_id() -> None:
    params = ConfirmRewriteParams(job_id="pp-3", uri="file:///w/a.cpp", function="ends",
                                  message=ask_prompt("ends", "2.00× faster"),
                                  measured="2.00× faster", original="a\n", proposed="b\n",
                                  weak=False)
    message = ConfirmRewriteRequest(id=question_id("pp-3"), method=REQUEST_CONFIRM_REWRITE,
                                    params=params, jsonrpc="2.0")
    data = make_converter().unstructure(message)
    assert data["id"] == "confirm-pp-3" and data["method"] == "perfpilot/confirmRewrite"
    assert data["params"] == {"jobId": "pp-3", "uri": "file:///w/a.cpp", "function": "ends",
                              "message": "PerfPilot: apply the rewrite of ends? Measured: "
                                         "2.00× faster.",
                              "measured": "2.00× faster", "original": "a\n",
                              "proposed": "b\n", "weak": False}
    assert MESSAGE_TYPES[REQUEST_CONFIRM_REWRITE] is ConfirmRewriteRequest
