"""Finding the code in a model's answer to "make ``f`` faster".

Answers come in many shapes: code between ``[OPT/]`` and ``[/OPT]``, one fenced block, the
original quoted first and the rewrite after it, a helper in one block and the function in the
next, a usage example with ``main`` at the end, or bare code with no fence. The block taken is
the last one that defines ``f`` and is not the original itself; blocks that define only names
it uses (helpers) go with it; other blocks are left out. When no block defines ``f``, the
reason says what the answer had, so the report can tell a model's wrong shape from a wrong
function.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfpilot.code.locate import definition_name, iter_function_nodes
from perfpilot.code.parse import parse
from perfpilot.code.site import FunctionSite
from perfpilot.prompting.answer_items import split_items
from perfpilot.strategy.plan_format import (
    FENCE,
    OPT_CLOSE,
    OPT_OPEN,
    SUGG_CLOSE,
    SUGG_OPEN,
    between,
    strip_think,
)

_C_FENCES = frozenset({"", "c", "cpp", "c++", "cc", "cxx", "h", "hpp", "hxx", "cplusplus"})
_WORD = re.compile(r"[A-Za-z_]\w*")
_COUNTS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}


@dataclass(frozen=True)
class Extracted:
    """The code taken from an answer (None when there is none), why not, and notes."""

    code: str | None
    reason: str = ""
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Block:
    index: int  # 1-based among the answer's fenced blocks
    language: str
    text: str
    defines: tuple[str, ...]  # names of the functions it defines, unqualified, in order
    names: frozenset[str]  # every name its top-level items define


def _count(n: int, word: str) -> str:
    return f"{_COUNTS.get(n, str(n))} {word}{'' if n == 1 else 's'}"


def _quote(names: list[str] | tuple[str, ...]) -> str:
    shown = [f"`{n}`" for n in dict.fromkeys(names)]
    return ", ".join(shown[:6]) + (", …" if len(shown) > 6 else "")


def _block(site: FunctionSite, index: int, language: str, text: str) -> _Block:
    root = parse(text, site.language).root_node
    defines = tuple(definition_name(fn).split("::")[-1].strip()
                    for fn in iter_function_nodes(root))
    items, _root = split_items(text, site.language)
    return _Block(index, language.lower(), text, defines,
                  frozenset(n for it in items for n in it.names))


def _is_original(site: FunctionSite, block: _Block) -> bool:
    squash = "".join(site.text.split())
    return squash in "".join(block.text.split())


def _region(clean: str) -> str:
    """Where the code is: inside ``[OPT/]``, else after the plan, else the whole answer."""
    opt = between(clean, OPT_OPEN, OPT_CLOSE)
    if opt is not None:
        return opt
    close = clean.find(SUGG_CLOSE)
    return clean[close + len(SUGG_CLOSE):] if close >= 0 else clean


def extract_code(site: FunctionSite, text: str) -> Extracted:
    """The code of ``text`` that answers for ``site`` (see the module's docstring)."""
    clean = strip_think(text)
    region = _region(clean)
    fences = [(m.group(1), m.group(2)) for m in FENCE.finditer(region)]
    if not fences:
        bare = region.strip()
        if OPT_OPEN in clean and bare:
            fences = [("", bare)]
        elif "{" in bare and "}" in bare and SUGG_OPEN not in bare:
            # A model that skipped the markers and the fence may still have answered with
            # code; it is used when it defines the function.
            block = _block(site, 1, "", bare + "\n")
            if site.name in block.defines:
                return Extracted(bare + "\n")
            return Extracted(None, f"no fenced block and no definition of `{site.name}`")
        else:
            what = "no code at all" if not clean.strip() else "prose only"
            return Extracted(None, f"no fenced block and no definition of `{site.name}` "
                                   f"({what})")
    blocks = [_block(site, i, lang, body) for i, (lang, body) in enumerate(fences, start=1)]
    code_blocks = [b for b in blocks if b.language in _C_FENCES]
    if not code_blocks:
        kinds = _quote([b.language for b in blocks])
        return Extracted(None, f"{_count(len(blocks), 'fenced block')} ({kinds}), none of "
                               "them C or C++")
    defining = [b for b in code_blocks if site.name in b.defines]
    if not defining:
        defined = [n for b in code_blocks for n in b.defines]
        have = f"; {'it defines' if len(code_blocks) == 1 else 'they define'} " \
               f"{_quote(defined)}" if defined else "; it has no function definition" \
            if len(code_blocks) == 1 else "; they have no function definition"
        if len(code_blocks) == 1:
            lead = f"one fenced block, which does not define `{site.name}`"
        elif len(code_blocks) == 2:
            lead = f"two fenced blocks, neither defines `{site.name}`"
        else:
            lead = f"{_count(len(code_blocks), 'fenced block')}, none defines `{site.name}`"
        return Extracted(None, lead + have)
    rewrites = [b for b in defining if not _is_original(site, b)]
    chosen = (rewrites or defining)[-1]
    notes: list[str] = []
    if len(code_blocks) > 1:
        why = f"the last that defines `{site.name}`" if len(defining) > 1 or not rewrites \
            else f"the one that defines `{site.name}`"
        if rewrites and len(rewrites) < len(defining):
            why += " other than the original"
        notes.append(f"used fenced block {chosen.index} of {len(blocks)} ({why})")
    used = set(_WORD.findall(chosen.text))
    helpers = [b for b in code_blocks if b is not chosen and site.name not in b.defines
               and "main" not in b.defines and b.names and not b.names <= set(chosen.names)
               and (b.names - chosen.names) & used]
    if helpers:
        notes.append(f"took the helpers of fenced block{'s' if len(helpers) > 1 else ''} "
                     + ", ".join(str(b.index) for b in helpers))
    code = "\n".join(b.text.strip("\n") for b in (*helpers, chosen)) + "\n"
    return Extracted(code, "", tuple(notes))
