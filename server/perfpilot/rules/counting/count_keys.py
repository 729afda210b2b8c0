"""Which elements ``std::count(first, last, value)`` counts, as a key into a table of counts.

``std::count`` counts the elements ``e`` with ``e == value``. For integers that comparison
first promotes both sides (types narrower than ``int`` become ``int``) and converts them to
their common type, so a value of another type than the elements may match differently from the
same value converted to the element type: an ``int`` element never equals a ``long long`` of
2^40, a ``short`` -1 equals an ``unsigned`` 4294967295. A table keyed by the element type
answers ``count(value)`` with the entry of ``E(value)`` exactly when:

- the types are one (``plain``);
- every value of both types keeps its value in the common type (it is signed, or both are
  unsigned): then ``e == value`` compares mathematical values, so the matching elements are
  those equal to ``value`` when it lies in the element type's range and none otherwise (a
  ``guard`` on ``std::numeric_limits`` of the element type, itself compared in that common
  type, so exactly), or always (``plain``) when every value of the value's type lies in it;
- the common type is the (unsigned) element type itself, so ``value`` is converted to it
  modulo 2^w, exactly as ``E(value)`` converts it (``plain``).

Anything else (a signed element type compared in an unsigned type: -1 would equal the largest
value) is refused. What a type holds depends on the data model (``long`` is 64 bits on Linux
and 32 on Windows, ``char`` is signed on x86 and unsigned on ARM), so each pair is judged in
every model in use, and taken only when they all agree on the form.

``std::string`` elements compare with a ``std::string`` or a string literal (``operator==``
against ``const char*`` reads up to the first NUL, as the ``std::string`` built from it for the
lookup does).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from perfpilot.code.declarations import VarType

STRING = "std::string"
LITERAL = "string literal"

# (signedness, bits) of each integer type in the data models compilers use: LP64 with a
# signed and with an unsigned char (x86-64 and AArch64 Linux), LLP64 (Windows), ILP32.
_MODELS = ("lp64", "lp64u", "llp64", "ilp32")
_Kind = tuple[bool, int]


def _same(kind: _Kind) -> dict[str, _Kind]:
    return dict.fromkeys(_MODELS, kind)


_FIXED: dict[str, dict[str, _Kind]] = {
    "signed char": _same((True, 8)), "unsigned char": _same((False, 8)),
    "short": _same((True, 16)), "unsigned short": _same((False, 16)),
    "int": _same((True, 32)), "unsigned": _same((False, 32)),
    "long": {"lp64": (True, 64), "lp64u": (True, 64), "llp64": (True, 32), "ilp32": (True, 32)},
    "unsigned long": {"lp64": (False, 64), "lp64u": (False, 64), "llp64": (False, 32),
                      "ilp32": (False, 32)},
    "long long": _same((True, 64)), "unsigned long long": _same((False, 64)),
    "char": {"lp64": (True, 8), "lp64u": (False, 8), "llp64": (True, 8), "ilp32": (True, 8)},
    "int8_t": _same((True, 8)), "uint8_t": _same((False, 8)),
    "int16_t": _same((True, 16)), "uint16_t": _same((False, 16)),
    "int32_t": _same((True, 32)), "uint32_t": _same((False, 32)),
    "int64_t": _same((True, 64)), "uint64_t": _same((False, 64)),
    "size_t": {"lp64": (False, 64), "lp64u": (False, 64), "llp64": (False, 64),
               "ilp32": (False, 32)},
    "ptrdiff_t": {"lp64": (True, 64), "lp64u": (True, 64), "llp64": (True, 64),
                  "ilp32": (True, 32)},
}
# other spellings of the same types
_ALIASES = {
    "signed": "int", "signed int": "int", "unsigned int": "unsigned",
    "short int": "short", "signed short": "short", "signed short int": "short",
    "unsigned short int": "unsigned short", "long int": "long", "signed long": "long",
    "signed long int": "long", "unsigned long int": "unsigned long", "long long int": "long long",
    "signed long long": "long long", "signed long long int": "long long",
    "unsigned long long int": "unsigned long long",
}
_ONE_BYTE = frozenset({"char", "signed char", "unsigned char", "int8_t", "uint8_t"})
_CONTAINER = re.compile(r"(?:std::)?(vector|array|deque)<(.*)>")
_STRINGS = frozenset({"std::string", "string"})

Form = Literal["plain", "guard"]


@dataclass(frozen=True)
class Element:
    """The elements of a container: ``spelled`` as its declaration writes them, ``canonical``
    the integer type's one name (``std::uint64_t`` is ``uint64_t``) or ``STRING``."""

    spelled: str
    canonical: str

    @property
    def one_byte(self) -> bool:
        """Elements a 256-entry table can count."""
        return self.canonical in _ONE_BYTE


def plain(type_text: str) -> str:
    """A type's words without ``const``/``volatile``, single-spaced, ``<``/``>`` tight."""
    words = " ".join(re.sub(r"\b(const|volatile)\b", " ", type_text).split())
    return words.replace(" <", "<").replace("< ", "<").replace(" >", ">")


def integer_type(type_text: str) -> str | None:
    """The one name of the standard integer type ``type_text`` spells (``bool`` and the wide
    character types are not counted here), or None."""
    name = plain(type_text).removeprefix("std::")
    name = _ALIASES.get(name, name)
    return name if name in _FIXED else None


def scalar_type(type_text: str) -> str | None:
    """An integer type's one name, or ``STRING`` for ``std::string``, or None."""
    return STRING if plain(type_text) in _STRINGS else integer_type(type_text)


def container_element(v: VarType | None) -> Element | None:
    """The elements of a ``std::vector``, ``std::array`` or ``std::deque`` of integers or
    ``std::string`` held by ``v`` (by value or reference), or of a ``std::string``."""
    if v is None or v.pointer or v.array:
        return None
    base = plain(v.base)
    if base in _STRINGS:
        return Element("char", "char")
    m = _CONTAINER.fullmatch(base)
    if m is None:
        return None
    args = [a.strip() for a in m.group(2).split(",")]
    if len(args) != (2 if m.group(1) == "array" else 1):
        return None
    canonical = scalar_type(args[0])
    return Element(args[0], canonical) if canonical is not None else None


def _promoted(k: _Kind) -> _Kind:
    return (True, 32) if k[1] < 32 else k


def _common(a: _Kind, b: _Kind) -> _Kind:
    if a[0] == b[0]:
        return a[0], max(a[1], b[1])
    signed, unsigned = (a, b) if a[0] else (b, a)
    return signed if signed[1] > unsigned[1] else (False, max(a[1], b[1]))


def _fits(inner: _Kind, outer: _Kind) -> bool:
    """Every value of ``inner`` is one of ``outer``."""
    if inner[0] == outer[0]:
        return inner[1] <= outer[1]
    return not inner[0] and inner[1] < outer[1]


def _form_in(element: _Kind, value: _Kind) -> str:
    common = _common(_promoted(element), _promoted(value))
    keeps_element = common[0] or not element[0]
    keeps_value = common[0] or not value[0]
    if keeps_element and keeps_value:
        return "plain" if _fits(value, element) else "guard"
    if keeps_element and common == element:
        return "modular"  # the value converted to the unsigned element type, as E(value) is
    return "refused"


def match_form(value: str, element: str) -> Form | None:
    """How ``std::count`` over elements of ``element`` compares a value of ``value`` (the
    names ``scalar_type`` gives, or ``LITERAL``): ``plain`` when the elements counted are
    those equal to ``E(value)``, ``guard`` when so only for a value in the element type's
    range (none match otherwise), None when neither holds in every data model."""
    if value == element:
        return "plain"
    if element == STRING or value in (STRING, LITERAL):
        return "plain" if element == STRING and value == LITERAL else None
    if element not in _FIXED or value not in _FIXED:
        return None
    forms = {_form_in(_FIXED[element][m], _FIXED[value][m]) for m in _MODELS}
    if forms in ({"plain"}, {"modular"}):
        return "plain"
    if forms in ({"guard"}, {"plain", "guard"}):
        return "guard"  # always right where all values fit: the test then always holds
    return None


def range_guard(element_spelled: str, expr: str) -> str:
    """The test that ``expr`` lies in the range of the element type."""
    limits = f"std::numeric_limits<{element_spelled}>"
    return f"{limits}::min() <= ({expr}) && ({expr}) <= {limits}::max()"
