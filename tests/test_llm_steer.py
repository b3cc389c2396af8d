"""How a sample is kept from words it may not write, whatever tokens would spell them."""

import pytest

from simulacra.llm.batch import _writes_unwritten

NAMES = ("klaus", "isabella", "al")


@pytest.mark.parametrize(
    ("word", "piece", "writes"),
    [
        ("", " Klaus", True),  # the 1.5B's one token
        ("K", "laus", True),  # at the start of a line: "K" and "laus"
        ("", "K", False),  # one letter is many words' start
        ("Is", "abella", True),
        ("", " Is", False),  # "Is it at five?"
        ("Isa", "b", True),
        ("", ", Klaus!", True),
        ("", " Kla", False),  # three letters: "Klara", "klatsch"
        ("", " Al", True),  # a name shorter than four letters, whole
        ("", " also", False),
        ("", " Claus", False),
        ("Klaus", "!", False),  # written before this piece
    ],
)
def test_a_piece_that_writes_an_unwritten_word_is_told(word, piece, writes):
    assert _writes_unwritten(word, piece, NAMES) is writes
