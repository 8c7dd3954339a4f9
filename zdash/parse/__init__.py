"""Pure parsers, one module per command. Input: the raw text a command printed. Output:
model objects or small frozen records. They never run anything and never format for display.

Contract every parser keeps (and the hypothesis tests enforce): on any input, return a result
or raise ParseError with a one-line message an admin can read. No other exception escapes.
"""


class ParseError(ValueError):
    """Output we could not make sense of; str(e) is a one-line message for the status bar."""
