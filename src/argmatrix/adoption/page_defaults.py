"""What a hand-written page's default cell says, and whether the registry agrees.

One rule for every row, so that the same mistake is always found and the same correct text is
always accepted:

1. The cell is read as the value it denotes. Markup does not count: code spans (backticks) and
   one pair of surrounding quotes are removed, and whitespace is folded.

   * quoted text (`'auto'`, `"8"`, `""`) is always a string, and so is an empty code span
     written as two backticks (the empty string);
   * `None`, `null`, `N/A`, `-`, `—` and an empty cell denote None;
   * `True` and `False` (any case) denote a bool;
   * an integer or a decimal number (`8`, `-1`, `0.9`, `1e6`) denotes a number;
   * a Python literal list, tuple or dict (`[]`, `['a', 'b']`, `{}`) denotes that container;
   * any other text is the string it spells (`auto`, `gemm_config.csv`).

2. The denoted value agrees with the registry's default when both are of the same class and
   equal. The classes are None, bool, number (`1` and `1.0` are one number), string, sequence
   (list or tuple) and mapping; containers are compared item by item with the same rule. So
   `None` or an empty cell matches only None (not `False`, `0` or `""`), `False` matches only
   False (not `0`, not None), and `0` matches only a number.

3. Two ways of writing a value that a reader types on the command line are accepted as well:
   the bare text of a string default (`8` for the string `"8"`, `{}` for the string `"{}"`), and
   the items of a list default separated by commas (`a, b` for `['a', 'b']`, each item in a
   code span or the whole list in one). `nan` matches a NaN default.

4. A registry default computed at run time (an unevaluated expression, an object) is not
   compared; a required argument without a default may read `required`.

5. A default the configuration marks as computed at run time (`computed_defaults:`, e.g.
   `--mem-fraction-static: chosen from GPU memory at start-up`) is said right by the registry's
   value (rules 1-3), by the configured text (markup, quotes and case aside), and by any text
   saying the value is decided when the server runs ("computed at start-up", "auto",
   "determined by the GPU"): see `RUN_TIME_WORDS`.

6. A string default with control characters (`"</think>\\n\\n"`) is said by its escapes, as
   argmatrix's own pages write it (`model.values.value_text`: `</think>\\n\\n`).

7. A default read from an environment variable (`os.environ.get("PORT", "8000")`) is said by a
   cell that names the variable, or by its value when the variable is unset (rules 1-3).
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, replace
from typing import Any

from argmatrix.model.registry import Argument, FromEnvironment
from argmatrix.model.values import value_text

NONE_TEXTS = frozenset(("", "none", "null", "n/a", "-", "—"))
_BOOLS = {"true": True, "false": False}
_LITERAL_LIMIT = 2000  # characters: a longer cell is not read as a Python literal
_NUMBER_LIMIT = 100  # characters: a longer cell is not read as a number
_SPAN = re.compile(r"`([^`]*)`")
_SPAN_LIST = re.compile(r"`[^`]*`(?: ?, ?`[^`]*`)+")


@dataclass(frozen=True)
class PageValue:
    """What a default cell denotes (`value`), and its text without markup."""

    value: Any
    text: str
    quoted: bool
    items: tuple[str, ...] | None = None  # `a`, `b`: the items, each written in a code span


def unquoted(text: str) -> str:
    """A cell's text without backticks and one pair of surrounding quotes, whitespace folded."""
    text = " ".join(text.split()).strip().strip("`").strip()
    if _is_quoted(text):
        return text[1:-1]
    return text


def _is_quoted(text: str) -> bool:
    return len(text) >= 2 and text[0] == text[-1] and text[0] in "'\""


def page_value(text: str) -> PageValue:
    """The value a page's default cell denotes (rule 1 of the module docstring)."""
    folded = " ".join(text.split()).strip()
    if folded and not folded.strip("`"):
        return PageValue("", "", True)  # `` : an empty code span, the empty string
    if _SPAN_LIST.fullmatch(folded):  # `a`, `b`: items each in a code span (rule 3)
        items = tuple(unquoted(f"`{item}`") for item in _SPAN.findall(folded))
        return PageValue(", ".join(items), ", ".join(items), False, items)
    shown = folded.strip("`").strip()
    if _is_quoted(shown):
        return PageValue(shown[1:-1], shown[1:-1], True)
    lowered = shown.lower()
    if lowered in NONE_TEXTS:
        return PageValue(None, shown, False)
    if lowered in _BOOLS:
        return PageValue(_BOOLS[lowered], shown, False)
    number = _number(shown)
    if number is not None:
        return PageValue(number, shown, False)
    if shown[:1] in ("[", "(", "{") and len(shown) <= _LITERAL_LIMIT:
        literal = _literal(shown)
        if isinstance(literal, (list, tuple, dict)):
            return PageValue(literal, shown, False)
    return PageValue(shown, shown, False)


def _number(text: str) -> int | float | None:
    if len(text) > _NUMBER_LIMIT:
        return None  # int() of a long digit string is quadratic where Python does not cap it
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return None


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def comparable(value: Any) -> bool:
    """Whether a registry default is a plain value (not computed at run time or unreadable)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, (list, tuple)):
        return all(comparable(v) for v in value)
    if isinstance(value, dict):
        return all(comparable(k) and comparable(v) for k, v in value.items())
    return False


def same_value(page: Any, registry: Any) -> bool:
    """Equal and of the same class (rule 2): None, bool, number, string, sequence, mapping."""
    if registry is None or isinstance(registry, bool):
        return page is registry
    if isinstance(registry, (int, float)):
        if not isinstance(page, (int, float)) or isinstance(page, bool):
            return False
        return page == registry or (math.isnan(page) and math.isnan(registry))
    if isinstance(registry, str):
        return isinstance(page, str) and page == registry
    if isinstance(registry, (list, tuple)):
        return (
            isinstance(page, (list, tuple))
            and len(page) == len(registry)
            and all(same_value(p, r) for p, r in zip(page, registry, strict=True))
        )
    if isinstance(registry, dict):
        return (
            isinstance(page, dict)
            and len(page) == len(registry)
            and all(k in page and same_value(page[k], v) for k, v in registry.items())
        )
    return False


# Words that say a default is decided when the server runs (rule 5).
RUN_TIME_WORDS = frozenset(
    {
        "auto",
        "automatic",
        "automatically",
        "computed",
        "calculated",
        "chosen",
        "derived",
        "determined",
        "depends",
        "dynamic",
        "inferred",
        "runtime",
        "start-up",
        "startup",
    }
)
_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")


def says_computed(text: str, computed: str) -> bool:
    """Whether a page's default cell says a run-time default (rule 5): the configured text, or
    words saying the value is decided when the server runs."""
    said = _plain_words(text)
    return said == _plain_words(computed) or not RUN_TIME_WORDS.isdisjoint(said.split())


def _plain_words(text: str) -> str:
    """A text's words, lower case, without markup (`code`, *emphasis*, quotes)."""
    return " ".join(_WORD.findall(text.lower()))


def default_agrees(text: str, argument: Argument, computed: str | None = None) -> bool | None:
    """Whether the page's default text says the registry default; None if not comparable.
    `computed`: the configuration's text for a default computed at run time (rule 5)."""
    if computed is not None and says_computed(text, computed):
        return True
    value = argument.default
    if isinstance(value, FromEnvironment):  # the variable named, or the value when it is unset
        if value.variable in text:
            return True
        if value.required:
            return None
        return default_agrees(text, replace(argument, default=value.otherwise))
    if not comparable(value):
        return None
    shown = page_value(text)
    if argument.required and value is None and shown.text.lower().strip("()") == "required":
        return True
    if isinstance(value, str) and shown.text == value_text(value) != value:
        return True  # control characters written as the page writers show them (rule 6)
    return same_value(shown.value, value) or _written_as_typed(shown, value)


def _written_as_typed(shown: PageValue, value: Any) -> bool:
    """Rule 3: a string default's bare text, a list default's items separated by commas."""
    if shown.items is not None:  # each item in its own code span: item by item
        return isinstance(value, (list, tuple)) and list(shown.items) == [
            "" if v == "" else value_text(v) for v in value
        ]
    if shown.quoted or not shown.text:
        return False
    if isinstance(value, str):
        return shown.text == value
    if isinstance(value, (list, tuple)) and value:
        return shown.text == ", ".join(value_text(v) for v in value)
    return False


def page_text(value: Any) -> str:
    """How to write a registry default in a page's default cell so that it reads back as that
    value: as `value_text` shows it, with the empty string quoted."""
    return '""' if value == "" else value_text(value)


def value_class(value: Any) -> str:
    """The class of a value in rule 2, as a reader names it."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "a bool"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, dict):
        return "a mapping"
    return "a list"
