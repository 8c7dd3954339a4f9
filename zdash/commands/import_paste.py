"""`zdash import FILE -o SESSION`: a paste into a one-tick session file, for `zdash replay`.

Exit 0 when something was imported, 1 when nothing could be read (or the file cannot be read
or written, or SESSION exists: never overwritten without --force). Every line that could not be read goes to stderr as `line N: <text> (<why>)`.
"""

from __future__ import annotations

import sys
from argparse import Namespace

from zdash.paste.front import describe, import_file, paste_tick
from zdash.visible import visible


def run(args: Namespace) -> int:
    return run_import(args.file, args.output, args.description, args.force)


def run_import(path: str, output: str, description: str | None = None, force: bool = False) -> int:
    from zdash.sources.session import SessionWriter

    loaded = import_file(path)
    if loaded is None:
        return 1
    imported, mtime = loaded
    if not imported.ok:
        print(
            f"zdash: nothing in {path} could be read as zpool status, zpool list, "
            "zpool iostat or zfs list output; no session written",
            file=sys.stderr,
        )
        return 1
    note = describe(path, imported)
    try:
        text = (description + "\n\n" + note) if description else note
        with SessionWriter(output, None, 1.0, text, force=force) as w:
            w.write(paste_tick(imported, mtime))
    except FileExistsError as e:
        print(f"zdash: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"zdash: cannot write {output}: {e.strerror or e}", file=sys.stderr)
        return 1
    for n in imported.notes:
        print(f"zdash: {visible(n)}", file=sys.stderr)
    kinds = sorted({s.key for s in imported.samples})
    print(
        f"zdash: wrote {output}: one tick with {', '.join(kinds)}"
        + (f"; {len(imported.unread)} line(s) not read" if imported.unread else ""),
        file=sys.stderr,
    )
    return 0
