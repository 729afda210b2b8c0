"""FunctionSite: one function definition located in one version of a translation unit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Language = Literal["c", "cpp"]


@dataclass(frozen=True)
class Param:
    """A function parameter: its declared type text, its name, and the type split into parts.

    ``type_text`` is the full declared type as written with the name removed, e.g.
    ``const std::vector<int> &`` or ``double *``. ``base`` is the type without cv-qualifiers,
    references or pointers (``std::vector<int>``); ``pointer`` counts ``*``; ``reference`` is
    ``&``, ``&&`` or empty; ``const`` is true when the pointee/referee is const.
    """

    name: str
    type_text: str
    base: str
    pointer: int = 0
    reference: str = ""
    const: bool = False
    array: bool = False


@dataclass(frozen=True)
class FunctionSite:
    """A located function definition.

    Lines are 0-based (LSP convention) in ``start_line``/``end_line``; columns are UTF-16-free
    character columns in ``start_col``/``end_col`` (Python str indices into the line). Byte
    offsets index the UTF-8 encoding of ``unit_text``.
    """

    uri: str
    version: int | None
    language: Language
    name: str
    qualified_name: str
    signature: str
    return_type: str
    params: tuple[Param, ...]
    start_byte: int
    end_byte: int
    start_line: int
    start_col: int
    end_line: int
    end_col: int
    text: str
    unit_text: str
    body_start_line: int = 0
    is_method: bool = False
    is_template: bool = False
    is_static: bool = False
    has_openmp: bool = False
    has_errors: bool = False

    @property
    def first_line(self) -> int:
        """1-based first line of the definition."""
        return self.start_line + 1

    @property
    def last_line(self) -> int:
        """1-based last line of the definition."""
        return self.end_line + 1
