"""Pasted text into clean, numbered lines, and shell prompts into the command they ran.

A paste comes from a terminal, a forum, an issue or a mail: CRLF or old-Mac CR endings,
ANSI colours, non-breaking spaces, zero-width characters, "> " mail quoting, leading
indentation. Each line keeps its number in the file as the user sees it in an editor, so an
unread line can be pointed at. Prompts: `$ `, `# `, `root@host:~# `, `[user@host ~]$ `,
`host% `, `❯ `, `(venv) user@host$ `, or a bare `sudo zpool status -v` line, or the title line
of `watch` ("Every 2.0s: zpool iostat -v ...").
"""

from __future__ import annotations

import html
import re
import shlex
from typing import TypeGuard

from zdash.paste.unwrap import unwrap

# CSI (colours, cursor) and OSC (terminal title) escape sequences.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]")
_SPACES = re.compile("[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")
_INVISIBLE = re.compile("[\u200b-\u200d\u2060\ufeff]")
# What str.splitlines() would split on inside a line (the parsers use it) and other controls.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f\x85\u2028\u2029]")

_VENV = r"(?:\([^()\s]{1,40}\)\s?)?"  # (venv) / (base)
_BRACKETED = r"\[[^\]\n]{1,80}\]"  # [user@host ~]
_USER_AT_HOST = r"[\w.-]{1,64}@[\w.-]{1,64}(?::\S{0,120})?"  # user@host:~/x
_PROMPT = re.compile(
    _VENV + r"(?:" + _BRACKETED + r"\s?[#$%>]"  # [user@host ~]$
    r"|" + _USER_AT_HOST + r"\s?[#$%>]"  # user@host:~/x$  root@host #
    r"|[\w.-]{1,64}:\S{0,120}\s?[#$%>]"  # host:~ #
    r"|[\w.-]{1,64}[#$%>]"  # host#  host%
    r"|[~/]\S{0,120}\s?[#$%>\u276f]"  # ~ ❯   /root #
    r"|(?:[\u2570\u2514]\u2500{1,4}\s?)?[#$%>\u276f\u279c\u03bb])"  # bare $ # % > ❯ ➜ λ, zsh's ╰─#
    r"\s+(?P<cmd>\S.*)"
)
# A prompt with nothing after it (the shell waiting at the end of a transcript: `root@vulcan:~ # `),
# only in the forms that cannot be output: user@host, or [user@host dir] (corpus 243: it was
# read as a damaged file under "Permanent errors").
_BARE_PROMPT = re.compile(_VENV + r"(?:" + _BRACKETED + r"|" + _USER_AT_HOST + r")\s?[#$%>]")
_WATCH = re.compile(r"Every\s+[\d.]+s:\s+(?P<cmd>.+?)(?:\s{2,}\S.*)?")
_CHAINED = re.compile(r".*?(?:;|&&|\|\|)\s*(?P<cmd>(?:sudo\s+)?(?:\S*/)?(?:zpool|zfs)\s+[a-z].*)")
# Lines of Markdown / HTML around a paste: code fences, <pre>, rules.
MARKUP = re.compile(
    r"```.*|~~~.*|(?:</?(?:pre|code|details|summary)>)+|<summary>.*</summary>|-{3,5}|\*{3,5}|_{3,5}"
)
# The tag glued to a line's start comes off, the line's own indentation stays (`<pre>  pool: x`).
_TAGS = re.compile(r"^\s*<(?:pre|code)>(?=\s*\S)|</(?:pre|code)>\s*$")
# A terminal's colours saved as HTML (`<font color=...><b>root@host</b></font>:~#`, as issue
# templates and aha/ansi2html give them): inline formatting tags only, so `<metadata>:<0x0>` in
# an error list and `<pre>` lines (MARKUP) are left alone.
_INLINE_TAGS = re.compile(r"</?(?:font|b|i|u|em|strong|span|a|br|tt|kbd|samp)(?:\s[^<>]{0,200})?/?>", re.I)
# HTML entities a web page left in (`&apos;zpool upgrade&apos;`, `&nbsp;`, `&lt;0x0&gt;`).
_ENTITY = re.compile(r"&(?:[a-zA-Z]{2,8}|#[0-9]{1,6}|#[xX][0-9a-fA-F]{1,5});")
_WRAPPERS = frozenset({"sudo", "doas", "time", "env", "command", "nice", "ionice", "exec"})
ZFS_PROGRAMS = frozenset({"zpool", "zfs"})
# Their subcommands (OpenZFS 0.6-2.4, Solaris): a bare line (no prompt) is a command only with one
# of these. "zpool properties" above a `zpool get all` paste is a heading (corpus 257), and took
# the rows under it as another command's output.
SUBCOMMANDS = {
    "zpool": frozenset(
        str.split(
            "add attach checkpoint clear create ddtprune destroy detach events export get help history "
            "import initialize iostat labelclear list offline online prefetch reguid reopen remove "
            "replace resilver scrub set split status sync trim upgrade version wait"
        )
    ),
    "zfs": frozenset(
        str.split(
            "allow bookmark change-key clone create destroy diff get groupspace help hold holds inherit "
            "jail list load-key mount program project projectspace promote receive recv redact release "
            "rename rewrite rollback send set share snap snapshot unallow unjail unload-key unmount "
            "umount unshare upgrade userspace version wait"
        )
    ),
}
# Commands whose output an import can use; the rest are known but not imported.
IMPORTED = frozenset(
    {("zpool", "status"), ("zpool", "list"), ("zpool", "iostat"), ("zfs", "list"), ("zpool", "get")}
)


def clean_lines(text: str) -> list[str]:
    """Line i (0-based) is the paste's line i+1, cleaned; tabs and spaces are kept as they are."""
    if "\n" not in text and "\r" in text:
        text = text.replace("\r", "\n")  # old Mac line endings
    lines = []
    for raw in text.split("\n"):
        line = _ANSI.sub("", raw.rstrip("\r"))
        if "&" in line:
            line = _ENTITY.sub(lambda m: html.unescape(m.group()), line)
        line = _INVISIBLE.sub("", _SPACES.sub(" ", line))
        line = _CONTROLS.sub(" ", line).rstrip()
        if not MARKUP.fullmatch(line.strip()):
            line = _INLINE_TAGS.sub("", _TAGS.sub("", line))
        lines.append(line)
    if lines and lines[-1] == "":
        lines.pop()  # the final newline ends a line
    body = [ln for ln in lines if ln.strip()]
    if body and all(re.match(r"\s{0,3}>", ln) for ln in body):
        lines = [re.sub(r"^\s{0,3}> ?", "", ln) for ln in lines]  # "> " mail / markdown quoting
    return unwrap(lines)


def _words(cmd: str) -> list[str]:
    try:
        return shlex.split(cmd, comments=False)
    except ValueError:
        return cmd.split()


def command_argv(cmd: str) -> tuple[str, ...] | None:
    """('zpool', 'status', '-v', ...) when cmd runs zpool or zfs (after sudo, env VAR=x, a
    path), else None. A pipeline keeps only its first command."""
    cmd = cmd.split("|", 1)[0]
    head = cmd.split(None, 16)  # cheap test before shlex
    k = 0
    while k < len(head) and (
        head[k] in _WRAPPERS or "=" in head[k] or (head[k].startswith("-") and head[k] != "-")
    ):
        k += 1
    if k + 1 >= len(head) or head[k].rsplit("/", 1)[-1] not in ZFS_PROGRAMS or len(cmd) > 2000:
        return None
    words = _words(cmd)
    while words and (
        words[0] in _WRAPPERS or "=" in words[0] or (words[0].startswith("-") and words[0] != "-")
    ):
        words = words[1:]
    if len(words) < 2 or words[0].rsplit("/", 1)[-1] not in ZFS_PROGRAMS:
        return None
    if not re.fullmatch(r"[a-z][a-z-]{1,20}", words[1]):
        return None  # "zpool  1.88G ...": a pool named zpool
    return (words[0].rsplit("/", 1)[-1], *words[1:])


def _chained(text: str) -> tuple[str, ...] | None:
    """The zpool/zfs command chained after another (`cd /x; zpool status`, `a && zfs list`)."""
    m = _CHAINED.fullmatch(text) if len(text) < 300 and ("zpool" in text or "zfs" in text) else None
    return command_argv(m.group("cmd")) if m is not None else None


def prompt_command(line: str) -> tuple[bool, tuple[str, ...] | None]:
    """(is a command line, argv if it runs zpool/zfs). A bare `zpool status -v` line counts;
    a bare other command does not (it could be anything)."""
    text = line.strip()
    m = _WATCH.fullmatch(text)
    if m is not None:
        return True, command_argv(m.group("cmd"))
    argv = command_argv(text)
    # not "zpool iostat -v shows:", not a "zpool properties" heading
    if argv is not None and not text.endswith((":", ".")) and argv[1] in SUBCOMMANDS[argv[0]]:
        return True, argv
    m = _PROMPT.fullmatch(text)
    if m is not None:
        # `# touch f && zfs snapshot a@s` (corpus 260): the zpool/zfs command after the first
        return True, command_argv(m.group("cmd")) or _chained(m.group("cmd"))
    argv = _chained(text)
    if argv is not None:
        return True, argv
    return False, None


def is_bare_prompt(line: str) -> bool:
    """A shell prompt with no command after it (the transcript's end)."""
    return _BARE_PROMPT.fullmatch(line.strip()) is not None


def is_imported(argv: tuple[str, ...] | None) -> TypeGuard[tuple[str, ...]]:
    return argv is not None and tuple(argv[:2]) in IMPORTED


_VALUED = {"zpool": "oTc", "zfs": "osStd"}  # short options that take a value


def flags(argv: tuple[str, ...] | None) -> set[str]:
    """Single-letter flags of a zpool/zfs argv (-vHp -> v, H, p); an option's value is skipped."""
    out: set[str] = set()
    valued = _VALUED.get(argv[0], "") if argv else ""
    skip = False
    for word in (argv or ())[2:]:
        if skip:
            skip = False
        elif word.startswith("--"):
            out.add(word)
        elif word.startswith("-") and len(word) > 1:
            for i, letter in enumerate(word[1:], 1):
                out.add(letter)
                if letter in valued:
                    skip = i == len(word) - 1  # "-o name,used" vs "-oname,used"
                    break
    return out


def width(line: str) -> int:
    """Leading whitespace width with tabs at 8 columns, as a terminal shows it."""
    expanded = line.expandtabs(8)
    return len(expanded) - len(expanded.lstrip(" "))
