"""A question is answered where its words meet: the session that covers the question leads."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from funes.retrieve.coverage import coverage_bonus, words

QUESTION = "When did James leave on his trip to Canada?"


def row(session: str, text: str, block_type: str = "text") -> dict:
    return {"session_id": session, "text": text, "block_type": block_type}


def ranked(pool: list[dict], scores: list[float]) -> list[str]:
    first = np.asarray(scores, dtype=np.float32)
    final = first + coverage_bonus(QUESTION, pool, first)
    return [pool[i]["text"] for i in np.argsort(-final, kind="stable")]


def test_the_session_that_covers_the_question_beats_a_passage_that_repeats_one_word() -> None:
    pool = [
        row("other", "Evan: Canada, Canada! The week in Canada was unreal."),
        row("trip", "James: my trip starts on Monday!"),
        row("trip", "We leave at dawn for Canada."),
    ]
    # Full-text search put the repeated word first; the trip session holds every query word.
    order = ranked(pool, [1.2, 1.0, 0.9])
    assert order[0] == "James: my trip starts on Monday!"


def test_only_the_passages_that_lead_their_session_are_lifted() -> None:
    pool = [
        row("trip", "James: my trip starts on Monday!"),
        row("trip", "We leave at dawn for Canada."),
        row("trip", "Sounds fun, bring a jacket."),
    ]
    lift = coverage_bonus(QUESTION, pool, np.asarray([1.0, 0.9, 0.2], dtype=np.float32))
    assert lift[0] > lift[1] > lift[2]
    assert lift[2] < 0.01 * lift[0]


def test_a_tool_output_does_not_cover_the_question_for_its_session() -> None:
    listing = row("listing", "james_trip.py leave_canada.py", block_type="tool_result")
    pool = [listing, row("listing", "Run ls."), row("talk", "James left for Canada.")]
    lift = coverage_bonus(QUESTION, pool, np.asarray([1.0, 0.5, 1.0], dtype=np.float32))
    assert lift[0] == 0.0
    assert lift[2] > 0.0


def test_a_query_of_only_question_words_lifts_nothing() -> None:
    pool = [row("a", "what when why"), row("b", "how")]
    lift = coverage_bonus("why and how?", pool, np.asarray([1.0, 0.5], dtype=np.float32))
    assert not lift.any()


def test_query_words_drop_question_words_and_meet_across_plural_and_tense() -> None:
    assert words("When was the tournament fixed?") == words("fixes tournaments")
    assert words("Why did we drop the cache") == {"drop", "cache"}


def test_the_fast_word_match_finds_what_stemming_every_word_finds() -> None:
    """Coverage stems only the words that start with an asked word; it must find exactly the
    asked words that stemming every word of the passage finds."""
    import subprocess

    from funes.retrieve.coverage import asked_starts, words_asked

    source = Path(subprocess.__file__).read_text()
    passages = [source[i : i + 600] for i in range(0, len(source), 600)]
    passages += [
        "Fixes, fixed, fixing and prefix_fix; FIX2 _fix fix-ups. Tests testing tested tes.",
        "ÉCOLE école Straße the processes' process processing PROCESSED; bes s es ing",
    ]
    questions = [
        QUESTION,
        "why did the fix for the process tests fail",
        "what does the pipe buffer do with stdout and stderr",
        "école processes returncode timeout signal",
    ]
    for question in questions:
        asked = words(question)
        starts = asked_starts(asked)
        for text in passages:
            assert words_asked(text, asked, starts) == words(text) & asked
