"""The structural output filter: the system prompt never reaches a user, whatever the model says.

A prompt-extraction attack succeeds if the model can be talked into repeating its
instructions. Telling it not to is a request, not a guarantee; this filter is the guarantee.
It watches everything the agent sends out — streamed text, the final answer, tool-call
inputs (which the answer trace shows) — for

* the **canary**, a marker planted in the system prompt that no legitimate answer contains,
  found however it is dressed up: any case, spaced out, split by invisible characters or
  punctuation, in full-width letters (NFKC), or base64/hex encoded — so translation does not
  hide it either, an identifier survives translation;
* **verbatim passages** of the prompt: any run of `SHINGLE_WORDS` consecutive words of it.

Streamed text is held back only as far as it could still grow into a leak (the unfinished
last word or encoded run, or letters that spell the start of the canary), so a leak is
caught before its first character is sent and ordinary text streams almost as it comes. When one is found the
stream stops and the answer is replaced by a fixed reply; the event says which rule fired
(never the leaked text).
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

SHINGLE_WORDS = 10
WINDOW_CHARS = 600  # already-checked text re-read with each delta (a prompt passage is shorter)
LEAK_REPLY = (
    "I can't share how I'm set up. I can answer questions about what this medical record says, "
    "or help find and book an appointment."
)
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]"
)
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_\-]{12,}={0,2}")
_HEX_RUN = re.compile(r"(?:[0-9a-fA-F]{2}[\s:]?){8,}")
_WORD = re.compile(r"\w+", re.UNICODE)
_RUN_CHAR = re.compile(r"[A-Za-z0-9+/=_\-]")
_TRAILING_RUN = re.compile(r"[A-Za-z0-9+/=_\-:]*$")
_TRAILING_HEX = re.compile(r"(?:[0-9a-fA-F]{2}[\s:,]*){2,}$")


def squash(text: str) -> str:
    """Letters and digits only, case-folded, compatibility-normalised, invisibles removed."""
    folded = unicodedata.normalize("NFKC", _INVISIBLE.sub("", text)).casefold()
    return "".join(ch for ch in folded if ch.isalnum())


def words(text: str) -> list[str]:
    return _WORD.findall(unicodedata.normalize("NFKC", _INVISIBLE.sub("", text)).casefold())


def _decodings(text: str) -> Iterable[str]:
    """What base64 or hex runs in the text decode to (as text), for a second look."""
    for match in _BASE64_RUN.finditer(text):
        run = match.group(0)
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                yield decode(run + "=" * (-len(run) % 4)).decode("utf-8", "ignore")
            except (binascii.Error, ValueError):
                continue
    for match in _HEX_RUN.finditer(text):
        try:
            yield bytes.fromhex(re.sub(r"[\s:]", "", match.group(0))).decode("utf-8", "ignore")
        except ValueError:
            continue


@dataclass
class LeakGuard:
    canary: str
    prompt_texts: list[str]
    shingles: set[tuple[str, ...]] = field(init=False)
    released: str = ""
    pending: str = ""
    tripped: str | None = None  # the rule that fired

    def __post_init__(self) -> None:
        self.shingles = set()
        for prompt in self.prompt_texts:
            tokens = words(prompt)
            self.shingles.update(
                tuple(tokens[i : i + SHINGLE_WORDS]) for i in range(len(tokens) - SHINGLE_WORDS + 1)
            )

    # --- detection -----------------------------------------------------------------------

    def leak_in(self, text: str) -> str | None:
        """The rule a text breaks, or None."""
        for candidate, how in ((text, "plain"), *((d, "encoded") for d in _decodings(text))):
            if squash(self.canary) in squash(candidate):
                return f"canary ({how})"
            tokens = words(candidate)
            for i in range(len(tokens) - SHINGLE_WORDS + 1):
                if tuple(tokens[i : i + SHINGLE_WORDS]) in self.shingles:
                    return f"system prompt passage ({how})"
        return None

    # --- streaming -----------------------------------------------------------------------

    def feed(self, delta: str) -> str:
        """Take a streamed delta; return the text that is now safe to send ('' when tripped)."""
        if self.tripped:
            return ""
        self.pending += delta
        reason = self.leak_in(self._window())
        if reason:
            self.tripped = reason
            return ""
        cut = self._safe_prefix_length(self.pending)
        out, self.pending = self.pending[:cut], self.pending[cut:]
        self.released += out
        return out

    def finish(self, answer: str) -> str | None:
        """At the end: the rule the whole answer (or anything streamed) breaks, or None."""
        if not self.tripped:
            self.tripped = self.leak_in(answer) or self.leak_in(self.released + self.pending)
        return self.tripped

    def check(self, text: str) -> str | None:
        """A one-off text going out (a tool call's input)."""
        if not self.tripped:
            self.tripped = self.leak_in(text)
        return self.tripped

    def release_before_error(self) -> str:
        """Held text to send before an error ends the answer: all but a trailing word or encoded
        run (which could be the start of the canary)."""
        if self.tripped:
            return ""
        tail = re.search(r"[A-Za-z0-9+/=_\-:]*$", self.pending)
        cut = tail.start() if tail else len(self.pending)
        out, self.pending = self.pending[:cut], ""
        self.released += out
        return out

    def take_pending(self) -> str:
        out, self.pending = self.pending, ""
        self.released += out
        return out

    def _window(self) -> str:
        """The recent text (what was checked before need not be again), widened to the start of
        an encoded run that crosses its edge, so the run is decoded whole."""
        start = max(0, len(self.released) - WINDOW_CHARS)
        while start > 0 and _RUN_CHAR.match(self.released[start - 1]):
            start -= 1
        return self.released[start:] + self.pending

    def _safe_prefix_length(self, text: str) -> int:
        """How much of the held text can go: everything but a tail that could still grow into a
        leak — an unfinished word or encoded run, a run of hex pairs, or letters that spell the
        beginning of the canary however they are spaced or split."""
        cut = len(text)
        run = _TRAILING_RUN.search(text)
        if run:
            cut = run.start()
        hex_pairs = _TRAILING_HEX.search(text)
        if hex_pairs:
            cut = min(cut, hex_pairs.start())
        target = squash(self.canary)
        collected = ""
        for i in range(len(text) - 1, -1, -1):
            letter = squash(text[i])
            if not letter:
                continue
            collected = letter + collected
            if not target.startswith(collected):
                break
            cut = min(cut, i)
        return cut
