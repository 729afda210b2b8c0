"""PerfPilot's own protocol: command names, command arguments and custom messages as typed
values, declared once for the server (the extension mirrors them in ``src/protocol.ts``).

The values are attrs classes, so lsprotocol's converter structures and unstructures them with
camelCase keys, as it does LSP's own types. Command arguments are parsed strictly (a JSON
string is not an integer): an ill-formed argument is answered with -32602 and a message that
says which field is wrong, never coerced into something the user did not send.
"""

from __future__ import annotations

import types
import typing
from typing import Any, TypeVar, cast

import attrs
import cattrs
from pygls.protocol import default_converter

from perfpilot.lsp.transport import GuardedProtocol

KIND_FASTER = "refactor.rewrite.perfpilot"
KIND_EXPLAIN = "refactor.rewrite.perfpilot.explain"
KIND_DRAFT_SPEC = "quickfix.perfpilot.spec"
KIND_BUILD_FLAGS = "quickfix.perfpilot.buildFlags"
CMD_FASTER = "perfpilot.makeFaster"
CMD_EXPLAIN = "perfpilot.explain"
CMD_RERUN = "perfpilot.rerun"
CMD_REVERT = "perfpilot.revert"
CMD_CANCEL = "perfpilot.cancel"
CMD_REPORT = "perfpilot.showReport"
CMD_TEST = "perfpilot.testConnection"
CMD_STATUS = "perfpilot.status"
CMD_PROFILE = "perfpilot.profile"
CMD_SHOW_PROFILE = "perfpilot.showProfile"
CMD_CONFIRM = "perfpilot.confirmInProgram"
CMD_CANCEL_PROFILE = "perfpilot.cancelProfile"
CMD_DRAFT_SPEC = "perfpilot.draftBenchSpec"
CMD_SHOW_FLAG_PLACE = "perfpilot.showFlagPlace"
NOTIFY_SECRET = "perfpilot/setSecret"
# The one secret name the editor sends (``SetSecretParams.name``), as protocol.ts declares it.
SECRET_API_KEY = "apiKey"
NOTIFY_JOB = "perfpilot/jobStatus"
NOTIFY_RESULT = "perfpilot/result"
# Server → client request, to a client that passed ``confirmsRewrites``: show the rewrite as
# a diff and ask whether to apply it (apply mode ``ask``).
REQUEST_CONFIRM_REWRITE = "perfpilot/confirmRewrite"

MAX_UINTEGER = 2**31 - 1  # LSP positions are uintegers

T = TypeVar("T")


def _uinteger(_instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if not 0 <= value <= MAX_UINTEGER:
        raise ValueError(f"{attribute.name} must be a uinteger, got {value}")


# -- command arguments --------------------------------------------------------------------
@attrs.frozen
class PositionArgument:
    """A position inside a function: makeFaster, explain, rerun, revert, showReport and
    confirmInProgram. ``version``: the document version the action was offered for;
    ``open``: showReport also writes the report to a file and opens it."""

    uri: str
    line: int = attrs.field(default=0, validator=_uinteger)
    character: int = attrs.field(default=0, validator=_uinteger)
    version: int | None = None
    open: bool = False


@attrs.frozen
class DraftSpecArgument:
    """draftBenchSpec: the function by qualified name (``function``, as the code action sends
    it) or the function at a position (``line``, ``character``: a palette command)."""

    uri: str
    function: str | None = None
    line: int = attrs.field(default=0, validator=_uinteger)
    character: int = attrs.field(default=0, validator=_uinteger)


@attrs.frozen
class CancelArgument:
    """A job by id, or the jobs of the function at a position."""

    job_id: str | None = None
    uri: str | None = None
    line: int = attrs.field(default=0, validator=_uinteger)
    character: int = attrs.field(default=0, validator=_uinteger)


@attrs.frozen
class TestConnectionArgument:
    """Which role's endpoint to test."""

    role: str = "optimizer"


@attrs.frozen
class ProfileArgument:
    """Profile the workspace's program (nothing set), or import a recorded profile."""

    import_: str | None = None
    binary: str | None = None


# -- custom notifications -----------------------------------------------------------------
@attrs.frozen
class JobStatus:
    """Params of ``perfpilot/jobStatus`` (server → client): one job's stage."""

    job_id: str
    uri: str
    function: str
    kind: str
    stage: str
    done: bool
    message: str


@attrs.frozen
class ResultMessage:
    """Params of ``perfpilot/result`` (server → client): a job's result, sent instead of
    ``window/showMessage`` to a client that shows results itself (``showsResults``), so that
    a new result can replace the previous one."""

    job_id: str
    uri: str
    function: str
    message: str


@attrs.frozen
class ConfirmRewriteParams:
    """Params of ``perfpilot/confirmRewrite`` (server → client request): the document's text
    now (``original``) and with the rewrite (``proposed``), for a diff, and the question to
    ask (``message``, quoting the latest measured figure, which ``measured`` gives alone).
    ``weak``: the rewrite was only weakly verified. The client answers
    ``{"choice": "Apply" | "Discard" | ""}``."""

    job_id: str
    uri: str
    function: str
    message: str
    measured: str
    original: str
    proposed: str
    weak: bool


@attrs.frozen
class SetSecretParams:
    """Params of ``perfpilot/setSecret`` (client → server); an empty value clears the key."""

    name: str = SECRET_API_KEY
    value: str = ""
    role: str | None = None


@attrs.define
class JobStatusNotification:
    """The ``perfpilot/jobStatus`` message."""

    method: str
    params: JobStatus
    jsonrpc: str  # no defaults: the converter would leave default values out of the JSON


@attrs.define
class ResultNotification:
    """The ``perfpilot/result`` message."""

    method: str
    params: ResultMessage
    jsonrpc: str


@attrs.define
class ConfirmRewriteRequest:
    """The ``perfpilot/confirmRewrite`` request."""

    id: int | str
    method: str
    params: ConfirmRewriteParams
    jsonrpc: str


@attrs.define
class SetSecretNotification:
    """The ``perfpilot/setSecret`` message."""

    method: str
    params: SetSecretParams
    jsonrpc: str


MESSAGE_TYPES: dict[str, type[Any]] = {NOTIFY_JOB: JobStatusNotification,
                                       NOTIFY_RESULT: ResultNotification,
                                       REQUEST_CONFIRM_REWRITE: ConfirmRewriteRequest,
                                       NOTIFY_SECRET: SetSecretNotification}


class PerfPilotProtocol(GuardedProtocol):
    """The guarded protocol, structuring PerfPilot's custom messages as their types."""

    def get_message_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        """PerfPilot's message types first, then LSP's."""
        custom = MESSAGE_TYPES.get(method)
        return custom if custom is not None else super().get_message_type(method)


def make_converter() -> cattrs.Converter:
    """lsprotocol's converter with pygls's message hooks (what the server uses)."""
    converter: cattrs.Converter = default_converter()  # type: ignore[no-untyped-call]
    return converter


# -- strict parsing -----------------------------------------------------------------------
class InvalidArgument(ValueError):
    """A command argument or message that does not fit its type; the text says why."""


def json_key(name: str) -> str:
    """The JSON key of a field, as lsprotocol's converter spells it (camelCase)."""
    parts = name.removesuffix("_").split("_")
    return parts[0] + "".join(p.title() for p in parts[1:])


def _json_type_ok(value: object, hint: Any) -> bool:
    """Whether a decoded JSON value has the field's type exactly (no coercion)."""
    if hint is Any:
        return True
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        return any(_json_type_ok(value, h) for h in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    return True  # nested values are the converter's to check


def _type_name(hint: Any) -> str:
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        return " | ".join(_type_name(h) for h in typing.get_args(hint))
    names = {int: "integer", str: "string", bool: "boolean", type(None): "null"}
    return names.get(hint, getattr(hint, "__name__", str(hint)))


def shape(cls: type[Any]) -> str:
    """The JSON shape of a value, for error messages: ``{uri: string, line?: integer}``."""
    hints = typing.get_type_hints(cls)
    fields = [f"{json_key(f.name)}{'' if f.default is attrs.NOTHING else '?'}: "
              f"{_type_name(hints[f.name])}" for f in attrs.fields(cls)]
    return "{" + ", ".join(fields) + "}"


def parse(converter: cattrs.Converter, data: object, cls: type[T]) -> T:
    """Structure a decoded JSON value as ``cls``; raises InvalidArgument saying what is wrong.

    Unknown keys are ignored, as they were before the values were typed."""
    if not isinstance(data, dict):
        raise InvalidArgument(f"expected an object {shape(cls)}, got {_json_name(data)}")
    hints = typing.get_type_hints(cls)
    for f in attrs.fields(cast(Any, cls)):
        key = json_key(f.name)
        if key not in data:
            if f.default is attrs.NOTHING:
                raise InvalidArgument(f"{key} is missing; expected {shape(cls)}")
            continue
        if not _json_type_ok(data[key], hints[f.name]):
            raise InvalidArgument(f"{key} must be of type {_type_name(hints[f.name])}, got "
                                  f"{_json_name(data[key])}; expected {shape(cls)}")
    try:
        return converter.structure(data, cls)
    except Exception as exc:
        problems = _problems(exc)
        raise InvalidArgument(f"{'; '.join(problems)}; expected {shape(cls)}") from exc


def _problems(exc: BaseException) -> list[str]:
    """The messages of the errors under a converter's (grouped) validation error."""
    if isinstance(exc, cattrs.BaseValidationError):
        return [p for e in exc.exceptions for p in _problems(e)]
    return [str(exc) or type(exc).__name__]


def _json_name(value: object) -> str:
    if value is None:
        return "null"
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
             list: "an array", dict: "an object"}
    name = names.get(type(value), type(value).__name__)
    shown = repr(value) if isinstance(value, int | float | bool) else ""
    return f"{name} {shown}".strip()


def command_argument(converter: cattrs.Converter, args: tuple[Any, ...], cls: type[T]) -> T:
    """The first argument of a command as ``cls``. The older ``(uri, line, character)`` form
    of position commands is accepted too."""
    first: object = args[0] if args else {}
    if len(args) >= 3 and isinstance(args[0], str) and "uri" in attrs.fields_dict(cast(Any, cls)):
        first = {"uri": args[0], "line": args[1], "character": args[2]}
    return parse(converter, first, cls)


def to_json(converter: cattrs.Converter, value: object) -> dict[str, Any]:
    """A typed value as the JSON object the client sees."""
    out: dict[str, Any] = converter.unstructure(value)
    return out
