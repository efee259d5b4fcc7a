"""Reading a wheel and writing it back reproducibly, with a fresh ``RECORD``.

The written zip depends on nothing but the files' names, bytes and executable bits: entries are
sorted (the ``.dist-info`` directory last, ``RECORD`` the very last entry, as PEP 427
recommends), every timestamp is ``SOURCE_DATE_EPOCH`` (default 1980-01-01, the zip epoch; values
before it, such as 0, are clamped to it), modes are 0644 or 0755, and the compression level is
fixed. ``RECORD`` lists every other entry with its urlsafe-base64 sha256 (no padding) and size.
"""

from __future__ import annotations

import base64
import csv
import io
import os
import stat
import time
import zipfile
from dataclasses import dataclass

from .. import _core
from .errors import BuildError

ZIP_EPOCH = 315532800  # 1980-01-01T00:00:00Z, the earliest time a zip entry can hold
ZIP_LATEST = 4354819199  # 2107-12-31T23:59:59Z, the latest


@dataclass
class Entry:
    data: bytes
    executable: bool = False


def read(path: str) -> dict[str, Entry]:
    """Every file entry of the wheel at `path` (directories and signatures dropped)."""
    entries: dict[str, Entry] = {}
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            if info.is_dir():
                continue
            mode = info.external_attr >> 16
            entries[info.filename] = Entry(zf.read(info), executable=bool(mode & 0o111))
    dist_info = dist_info_dir(entries)
    for name in ("RECORD", "RECORD.jws", "RECORD.p7s"):  # rewritten; a signature would be stale
        entries.pop(f"{dist_info}/{name}", None)
    return entries


def dist_info_dir(entries) -> str:
    dirs = sorted({name.split("/", 1)[0] for name in entries if name.split("/", 1)[0].endswith(".dist-info")})
    if len(dirs) != 1:
        raise BuildError(f"the wrapped backend produced a wheel with {len(dirs)} .dist-info directories; expected one")
    return dirs[0]


def source_date_epoch() -> int:
    """SOURCE_DATE_EPOCH as a zip-representable time, or the zip epoch if unset."""
    raw = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not raw:
        return ZIP_EPOCH
    try:
        value = int(raw)
    except ValueError:
        raise BuildError(f"SOURCE_DATE_EPOCH must be an integer number of seconds, got {raw!r}") from None
    return min(max(value, ZIP_EPOCH), ZIP_LATEST)


def record_hash(data: bytes) -> str:
    digest = bytes.fromhex(_core.sha256_hex(data))
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def file_mode(path: str) -> int:
    """The permission bits of the file at `path` (the wrapped backend's wheel)."""
    return stat.S_IMODE(os.stat(path).st_mode)


def write(path: str, entries: dict[str, Entry], mode: int = 0o644) -> None:
    """Writes `entries` and their RECORD to `path` atomically, reproducibly, as a file with
    permission bits `mode` (the wrapped backend's: the atomic write's temporary file is 0600)."""
    dist_info = dist_info_dir(entries)
    record_name = f"{dist_info}/RECORD"
    names = sorted(entries, key=lambda n: (n.startswith(dist_info + "/"), n))
    rows = io.StringIO()
    writer = csv.writer(rows, lineterminator="\n")
    for name in names:
        writer.writerow((name, record_hash(entries[name].data), len(entries[name].data)))
    writer.writerow((record_name, "", ""))
    all_entries = [(n, entries[n]) for n in names] + [(record_name, Entry(rows.getvalue().encode("utf-8")))]

    date_time = time.gmtime(source_date_epoch())[:6]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, entry in all_entries:
            info = zipfile.ZipInfo(name, date_time=date_time)
            info.create_system = 3  # Unix, so that the mode bits below are read
            info.external_attr = (0o100755 if entry.executable else 0o100644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, entry.data, compresslevel=6)
    _core.write_atomic(path, buf.getvalue())
    os.chmod(path, mode)
