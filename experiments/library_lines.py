"""How many lines of library code two commits hold, read from git (no checkout): per folder, in total, the difference.

*Library* is what the wheel installs as the package's own code: the Python files of every folder that
pyproject's ``package-dir`` maps, but ``tests/``, ``experiments/`` and ``fixtures/`` (the test data
that issue 38 moved out of the library). A file that leaves the library between the two commits
for one of those folders (``beliefs/recorded_games.py`` -> ``fixtures/``) is counted on neither
side, so a move is not a fall. The viewer's pages and scripts, models and data are not Python and
not counted.

A *code line* holds a token other than a comment (blank and comment-only lines never count). A
*docstring* is any statement that is a string alone: the docstring of a module, class or function
and the attribute docstring under a field. Every figure is given both ways: ``code`` without the
docstrings' lines, ``+docs`` with them.

Three comparisons of OLD and NEW (renames read from ``git diff -M``):
- ``everything``: all library files;
- ``touched``: the files that the commits given by ``--touched-by`` changed (a commit: against its
  first parent; ``A..B``: ``git diff A B``), each at its name in either commit;
- ``own``: the sum over those commits (and ranges) of library(commit) - library(first parent), which is
  what they changed themselves, whatever other merges did to the same files; less the own change of
  each ``--except`` commit (another issue's work that came in with one of the merges).

    python3 experiments/library_lines.py 147f598 HEAD --touched-by 94ddf3d 6a8648a 2e4e614 --except 2a458b6
"""

from __future__ import annotations

import argparse
import ast
import io
import subprocess
import tokenize
from collections import Counter
from typing import Optional

from blindchess.tournament.config import tomllib

NOT_LIBRARY = ("tests", "experiments", "fixtures")
SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING, tokenize.ENDMARKER}


def git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout


def library_folders(rev: str) -> set[str]:
    """The folders pyproject's ``package-dir`` maps at `rev`, but tests, experiments and fixtures."""
    mapped = tomllib.loads(git("show", f"{rev}:pyproject.toml"))["tool"]["setuptools"]["package-dir"].values()
    return set(mapped) - set(NOT_LIBRARY)


def line_counts(source: str) -> tuple[int, int]:
    """``(code, +docs)``: the lines holding code without the docstrings' lines, and with them."""
    lines = {
        number
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type not in SKIPPED
        for number in range(token.start[0], token.end[0] + 1)
    }
    docs = {
        number
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        for number in range(node.lineno, (node.end_lineno or node.lineno) + 1)
    }
    return len(lines - docs), len(lines)


class Library:
    """The library's Python files at one commit and their counts (read with one ``git cat-file`` process)."""

    def __init__(self, rev: str) -> None:
        folders = library_folders(rev)
        blobs = {}
        for row in git("ls-tree", "-r", rev).splitlines():
            meta, path = row.split("\t", 1)
            if path.endswith(".py") and path.split("/")[0] in folders:
                blobs[path] = meta.split()[2]
        wanted = ("\n".join(blobs.values()) + "\n").encode()
        out, at = subprocess.run(["git", "cat-file", "--batch"], input=wanted, capture_output=True, check=True).stdout, 0
        self.counts: dict[str, tuple[int, int]] = {}
        for path in blobs:
            header_end = out.index(b"\n", at)
            size = int(out[at:header_end].split()[2])
            self.counts[path] = line_counts(out[header_end + 1 : header_end + 1 + size].decode())
            at = header_end + 1 + size + 1

    def by_folder(self, paths: Optional[set[str]] = None) -> dict[str, Counter[str]]:
        """Per top-level folder: ``code`` and ``+docs`` over `paths` (None: every file), and ``files``."""
        folders: dict[str, Counter[str]] = {}
        for path, (code, docs) in self.counts.items():
            if paths is None or path in paths:
                folders.setdefault(path.split("/")[0], Counter()).update({"code": code, "+docs": docs, "files": 1})
        return folders


def renames(old: str, new: str) -> dict[str, str]:
    """New path -> old path of every file `git diff -M` calls renamed from `old` to `new`."""
    rows = (row.split("\t") for row in git("diff", "-M", "--name-status", old, new).splitlines())
    return {row[2]: row[1] for row in rows if row[0].startswith("R")}


def left_library(old: str, new: str, before: Library) -> set[str]:
    """Library files at `old` renamed by `new` into a folder that is not library (test data into fixtures/)."""
    return {path for moved, path in renames(old, new).items() if path in before.counts and moved.split("/")[0] in NOT_LIBRARY}


def own_change(start: str, end: str) -> Counter[str]:
    """Library lines at `end` less those at `start` (files that left for test data counted on neither side)."""
    before, after = Library(start), Library(end)
    change = total(after.by_folder())
    change.subtract(total(before.by_folder(set(before.counts) - left_library(start, end, before))))
    return change


def total(folders: dict[str, Counter[str]]) -> Counter[str]:
    return sum(folders.values(), Counter())


def table(title: str, before: dict[str, Counter[str]], after: dict[str, Counter[str]]) -> None:
    """Print one comparison per folder and in total."""
    print(f"\n{title}\n{'folder':<12} {'code':>15} {'change':>7} {'+docs':>15} {'change':>7} {'files':>9}")
    rows = [*sorted(set(before) | set(after)), "total"]
    for name in rows:
        one, two = (total(before), total(after)) if name == "total" else (before.get(name, Counter()), after.get(name, Counter()))
        print(
            f"{name:<12} {one['code']:>7,} {two['code']:>7,} {two['code'] - one['code']:>+7,} "
            f"{one['+docs']:>7,} {two['+docs']:>7,} {two['+docs'] - one['+docs']:>+7,} {one['files']:>4} {two['files']:>4}"
        )


def touched(spec: str) -> tuple[str, str]:
    """``(from, to)`` of one ``--touched-by`` entry: a range as written, a commit against its first parent."""
    start, _, end = spec.partition("..")
    return (start, end or "HEAD") if _ else (f"{spec}^1", spec)


def main(argv: Optional[list[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", help="the earlier commit")
    parser.add_argument("new", nargs="?", default="HEAD", help="the later commit (default HEAD)")
    parser.add_argument("--touched-by", nargs="*", default=[], metavar="COMMIT", help="commits (or A..B ranges): the 'touched' scope")
    parser.add_argument("--except", nargs="*", default=[], dest="excepted", metavar="COMMIT", help="commits not counted in own")
    args = parser.parse_args(argv)
    old, new = Library(args.old), Library(args.new)
    gone = left_library(args.old, args.new, old)
    kept = set(old.counts) - gone
    print(f"library lines, {args.old} -> {args.new}; left for test data, counted on neither side: {', '.join(sorted(gone)) or 'none'}")
    table("everything", old.by_folder(kept), new.by_folder())
    if not args.touched_by:
        return
    paths = {path for spec in args.touched_by for path in git("diff", "--name-only", *touched(spec)).splitlines()}
    back = renames(args.old, args.new)
    new_side = paths & set(new.counts) | {path for path in new.counts if back.get(path) in paths}
    old_side = (paths | {back[path] for path in new_side if path in back}) & kept
    table(f"touched by {' '.join(args.touched_by)}", old.by_folder(old_side), new.by_folder(new_side))
    own: Counter[str] = Counter()
    for sign, spec in [(1, spec) for spec in args.touched_by] + [(-1, spec) for spec in args.excepted]:
        change = own_change(*touched(spec))
        print(f"own change of {spec}: code {change['code']:+,}, +docs {change['+docs']:+,}{'' if sign > 0 else ' (not counted)'}")
        own.update({key: sign * change[key] for key in ("code", "+docs")})
    print(f"own change of them all: code {own['code']:+,}, +docs {own['+docs']:+,}")

if __name__ == "__main__":
    main()
