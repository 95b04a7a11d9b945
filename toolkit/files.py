"""Reading a file a user named: a regular file only, and no more bytes than the caller allows.

`pathlib.Path.read_bytes` waits forever on a FIFO (its ``open`` blocks until a writer comes),
reads a link to ``/dev/zero`` until memory runs out, and reads a device as readily as a file.
`read_regular_file` opens with ``O_NONBLOCK`` (an open that cannot block; on a regular file the
flag changes nothing), checks the opened descriptor's mode and size with ``fstat`` (so a link
swapped after a check cannot slip another file in), and reads at most `limit` bytes and one
more, to tell a file at the bound from one that grew past it since.

>>> import os, tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     os.mkfifo(os.path.join(folder, "x.json"))
...     read_regular_file(os.path.join(folder, "x.json"), limit=1000)
Traceback (most recent call last):
...
blindchess.files.UnsafeFileError: .../x.json: not a regular file (a FIFO)
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Union

from blindchess.errors import BlindchessError

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class UnsafeFileError(BlindchessError, OSError):
    """Not a regular file, or longer than the reader allows; the message names the file."""


def read_regular_file(path: Union[str, Path], limit: int) -> bytes:
    """The bytes of the regular file at `path` (links followed), if it holds at most `limit` of them.

    Raises:
        UnsafeFileError: `path` is a FIFO, device, socket or folder, or holds more than `limit` bytes.
        OSError: it cannot be opened or read (missing, no permission).
    """
    too_long = UnsafeFileError(f"{path}: more than {limit} bytes, the most this reader takes")
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a file")
            raise UnsafeFileError(f"{path}: not a regular file ({kind})")
        if info.st_size > limit:
            raise too_long  # refused unread
        with os.fdopen(descriptor, "rb", closefd=False) as file:
            data = file.read(limit + 1)  # one byte more: a file that grew since fstat
    finally:
        os.close(descriptor)
    if len(data) > limit:
        raise too_long
    return data
