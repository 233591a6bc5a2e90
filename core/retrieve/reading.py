"""Focused reading: what `funes get` prints of the turns it fetched, so an agent reads what it
asked for and not every pasted file, whole diff and tool output of a turn.

By default the blocks share a budget (DEFAULT_MAX_CHARS): a block that fits is whole, a longer
one is cut to its share (its start; a tool output's start and end, where errors and summaries
are), and a `… lines A-B of bN not shown:` line gives the exact command that prints them.
`grep` keeps the lines that hold given words (with `context` lines each side): the lines that hold
them together, as given, where any line does, else those holding any one; `block` and `lines`
pick one block and a line range of it, `max_chars=None` (`--full`) prints everything.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from funes.retrieve.budget import around, clip_words, query_terms
from funes.retrieve.formats import QUOTE, short_time, turn_command

# What a plain `funes get` prints at most, in characters of quoted text (≈ 500 tokens).
DEFAULT_MAX_CHARS = 2000
# A cut block still shows at least this much of itself.
MIN_SHARE = 240
# Lines of context around a line that holds a `grep` word: by default one, at most MAX_CONTEXT
# (a field a few lines under the matched key cost agents a call per question without it).
CONTEXT_LINES = 1
MAX_CONTEXT = 20
# The part of a cut tool output's share that goes to its end.
TAIL_SHARE = 0.35
# A line `--grep` matched that is longer than this (a minified file, a JSON blob, a paragraph
# on one line) is shown as this many characters around what matched: cut from its start, the
# words asked for were past the cut (an agent spent two calls on one such line).
GREP_LINE_CHARS = 400


@dataclass(frozen=True, slots=True)
class Reading:
    """What to print of the fetched turns."""

    max_chars: int | None = DEFAULT_MAX_CHARS  # None: everything (`--full`)
    grep: str = ""  # words: only the lines holding them together, else one (and context)
    context: int = CONTEXT_LINES  # lines kept each side of a `grep` line
    block: int | None = None  # only this block (numbered from 1 across the turns shown)
    lines: tuple[int, int] | None = None  # only these lines (1-based, inclusive) of each block
    handle: str = ""  # how the commands in cut notes name the session
    window: int = 0  # the `--window` the commands in cut notes repeat
    memory: str = ""  # the memory the commands must name ("" for the default one)


@dataclass(slots=True)
class Shown:
    """One block's lines as printed: runs of (first line number, lines), and what was left."""

    number: int
    kind: str
    total_lines: int
    runs: list[tuple[int, list[str]]]
    matched: bool = True
    # With `grep`: the numbers of the lines that hold it, and every line of the block as shown
    # (a cut first drops the context around them, then lines that hold it).
    hits: list[int] = field(default_factory=list)
    source: list[str] = field(default_factory=list)


def parse_lines(spec: str) -> tuple[int, int]:
    """`A-B`, `A-` or `A` (1-based) → (A, B); ValueError with a one-line reason."""
    text = spec.strip()
    head, dash, tail = text.partition("-")
    try:
        first = int(head)
        last = int(tail) if tail else (10**9 if dash else first)
    except ValueError:
        raise ValueError(f"--lines {spec!r}: expected A-B, A- or A (line numbers)") from None
    if first < 1 or last < first:
        raise ValueError(f"--lines {spec!r}: lines count from 1 and A ≤ B")
    return first, last


def read_blocks(blocks: list[tuple[str, str]], reading: Reading) -> list[Shown]:
    """Each (kind, text) block as `reading` shows it, numbered from 1."""
    picked = [
        (number, kind, text)
        for number, (kind, text) in enumerate(blocks, 1)
        if reading.block is None or number == reading.block
    ]
    # Words a line holds together, as they were given ("assert result"), mean those lines
    # wherever one does: an agent spent two more calls on a test's every `assert` and `result`.
    # So does one word a line holds as given: `fetchLmstudioModels` is that name, not every line
    # holding `fetch` (its stem), which pushed the call itself out of the budget.
    # `a|b`, as agents write for grep (and as a whole, where a line holds it so): the lines
    # holding either, each as given. `--grep "diff --git|94%"` printed every line with `git`,
    # and `94%` (two characters, no word) not at all.
    held = [_collapsed(line) for _, _, text in picked for line in text.splitlines()]
    whole = _collapsed(reading.grep)
    asked = [whole] if any(whole in line for line in held) else whole.split("|")
    phrases = [p.strip() for p in asked if p.strip() and any(p.strip() in line for line in held)]
    shown = [_select(number, kind, text, reading, phrases) for number, kind, text in picked]
    if reading.max_chars is not None:
        _fit(shown, reading.max_chars)
    return shown


def _collapsed(line: str) -> str:
    return " ".join(line.lower().split())


def _select(number: int, kind: str, text: str, reading: Reading, phrases: list[str]) -> Shown:
    """One block as `reading` shows it; `phrases`: the grep words (or each of its `|`
    alternatives) as some line holds them together (none: a line holding any one word)."""
    lines = text.splitlines() or [""]
    first, last = reading.lines or (1, len(lines))
    window = list(range(first - 1, min(last, len(lines))))
    if reading.grep:
        terms = phrases or query_terms(reading.grep) or [reading.grep.lower()]
        if phrases:
            hits = [i for i in window if any(p in _collapsed(lines[i]) for p in phrases)]
        else:
            hits = [i for i in window if any(t in lines[i].lower() for t in terms)]
        width = max(0, min(reading.context, MAX_CONTEXT))
        keep = sorted({j for i in hits for j in range(i - width, i + width + 1)} & set(window))
        shown = list(lines)
        for i in hits:
            if len(shown[i]) > GREP_LINE_CHARS:
                lowered = _collapsed(shown[i])
                needle = next((t for t in terms if t in lowered), terms[0])
                shown[i] = around(shown[i], needle, GREP_LINE_CHARS)
        return Shown(
            number,
            kind,
            len(lines),
            _runs(keep, shown),
            matched=bool(hits),
            hits=[i + 1 for i in hits],
            source=shown,
        )
    return Shown(number, kind, len(lines), _runs(window, lines))


def _runs(indexes: list[int], lines: list[str]) -> list[tuple[int, list[str]]]:
    return _grouped([(i + 1, lines[i]) for i in indexes])


def _grouped(numbered: list[tuple[int, str]]) -> list[tuple[int, list[str]]]:
    """(line number, line) pairs in order → runs of consecutive lines (first number, lines)."""
    runs: list[tuple[int, list[str]]] = []
    for number, line in numbered:
        if runs and runs[-1][0] + len(runs[-1][1]) == number:
            runs[-1][1].append(line)
        else:
            runs.append((number, [line]))
    return runs


def _size(block: Shown) -> int:
    return sum(len(line) + 3 for _, run in block.runs for line in run)


def _fit(shown: list[Shown], budget: int) -> None:
    """Cut the blocks to share `budget` characters: the smallest first, each whole when it
    fits its share; what a block does not use is left to the others."""
    order = sorted(range(len(shown)), key=lambda i: _size(shown[i]))
    left = budget
    for position, i in enumerate(order):
        share = max(MIN_SHARE, left // (len(order) - position))
        if _size(shown[i]) > share and shown[i].hits:
            _narrow(shown[i], share)
        if _size(shown[i]) > share:
            is_output = shown[i].kind.startswith("tool_result") and not shown[i].hits
            shown[i].runs = _cut(shown[i].runs, share, is_output)
        left -= min(_size(shown[i]), left)


def _narrow(block: Shown, share: int) -> None:
    """A grep block over its share: less context around the lines that hold the words, down to
    none, before any of those lines is cut (a MultiEdit's 40 matched lines with their context
    cut the `assert` the agent was after, and nothing said so)."""
    shown_numbers = sorted(start + k for start, run in block.runs for k in range(len(run)))
    distance = _distances(shown_numbers, block.hits)
    width = max(distance.values(), default=0)
    while width > 0 and _size(block) > share:
        width -= 1
        keep = [n - 1 for n in shown_numbers if distance[n] <= width]
        block.runs = _runs(keep, block.source)


def _distances(numbers: list[int], hits: list[int]) -> dict[int, int]:
    """Each of `numbers`' distance to the nearest of `hits` (sorted line numbers), in one pass
    over each (a long output can hold thousands of matched lines)."""
    from bisect import bisect_left

    found: dict[int, int] = {}
    for number in numbers:
        at = bisect_left(hits, number)
        near = [abs(hits[i] - number) for i in (at - 1, at) if 0 <= i < len(hits)]
        found[number] = min(near, default=0)
    return found


def _cut(
    runs: list[tuple[int, list[str]]], share: int, keep_end: bool
) -> list[tuple[int, list[str]]]:
    """The runs' lines cut to about `share` characters: the start (and, with `keep_end`, the
    end), a single over-long line clipped at a word."""
    flat = [(start + k, line) for start, run in runs for k, line in enumerate(run)]
    head_room = int(share * (1 - TAIL_SHARE)) if keep_end else share
    head = _take(flat, head_room)
    tail: list[tuple[int, str]] = []
    if keep_end and len(head) < len(flat):
        tail = list(reversed(_take(list(reversed(flat[len(head) :])), share - head_room)))
    return _grouped(head + tail)


def _take(lines: list[tuple[int, str]], room: int) -> list[tuple[int, str]]:
    taken: list[tuple[int, str]] = []
    for number, line in lines:
        cost = len(line) + 3
        if cost > room:
            if not taken and room >= 40:
                taken.append((number, clip_words(line, room - 3)))
            break
        taken.append((number, line))
        room -= cost
    return taken


def block_lines(block: Shown, reading: Reading, turn: str) -> list[str]:
    """A block as printed: its `bN kind (L lines)` line, its quoted runs, and a note for each
    stretch left out, with the command that prints it."""
    head = f"b{block.number} {block.kind}"
    if block.total_lines > 1:
        head += f" ({block.total_lines} lines)"
    if not block.matched:
        return [head + f": no line holds {reading.grep!r}"]
    lines = [head]
    position = reading.lines[0] if reading.lines else 1
    last = min(reading.lines[1], block.total_lines) if reading.lines else block.total_lines
    for start, run in block.runs:
        if reading.grep:
            lines.append(f"  @ line {start}")
        elif start > position:
            lines.append(_gap(block, position, start - 1, reading, turn))
        lines += [(QUOTE + line).rstrip() if line.strip() else QUOTE.rstrip() for line in run]
        position = start + len(run)
    if position <= last and not reading.grep:
        lines.append(_gap(block, position, last, reading, turn))
    if reading.grep:
        lines += _hits_left_out(block, reading, turn)
    return lines


def _hits_left_out(block: Shown, reading: Reading, turn: str) -> list[str]:
    """The lines holding the words that the budget left out, and the command that shows them."""
    printed = {start + k for start, run in block.runs for k in range(len(run))}
    left = [n for n in block.hits if n not in printed]
    if not left:
        return []
    named = ", ".join(str(n) for n in left[:8]) + (", …" if len(left) > 8 else "")
    command = turn_command("get", reading.handle, turn, reading.memory)
    if reading.window:
        command += f" --window {reading.window}"
    return [
        f"  … {len(left)} more line(s) of b{block.number} hold it, not shown (lines {named}): "
        f"{command} --block {block.number} --lines {left[0]}-{left[-1]}"
    ]


def _gap(block: Shown, first: int, last: int, reading: Reading, turn: str) -> str:
    command = turn_command("get", reading.handle, turn, reading.memory)
    if reading.window:
        command += f" --window {reading.window}"
    return (
        f"  … lines {first}-{last} of b{block.number} not shown: "
        f"{command} --block {block.number} --lines {first}-{last}"
    )


def turn_header(ts: str, role: str, seq: int, asked: bool) -> str:
    """A turn's line: its time, role and seq (its turn id is in `--json`)."""
    mark = "  ← asked" if asked else ""
    return f"[{short_time(ts)}] {role or '-'} seq{seq}{mark}"
