"""Safe tar/zip extraction for get_file: every member is checked before anything is written, so a hostile archive
is refused whole (no member outside the target directory, no links leading out of it, no device files) and its
member count and declared sizes are bounded."""
import gzip
import lzma
import os
import tarfile
import zipfile
import zlib

# Real datasets stay far below these (aclImdb: 100k files, 0.5 GB); tests lower them.
MAX_MEMBERS = 1_000_000
MAX_TOTAL_BYTES = 32 << 30

# zipfile raises NotImplementedError for an unknown version or compression method, RuntimeError for encryption
_CORRUPT = (tarfile.TarError, zipfile.BadZipFile, zipfile.LargeZipFile, gzip.BadGzipFile, EOFError, zlib.error,
            lzma.LZMAError, NotImplementedError, RuntimeError, UnicodeDecodeError)


def _inside(root, path):
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _check_name(archive, name, root):
    """`name` is a member path as stored; `root` the real path of the target directory."""
    parts = name.replace("\\", "/").split("/")
    if not name or name.startswith(("/", "\\")) or os.path.isabs(name) or (len(name) > 1 and name[1] == ":"):
        raise ValueError(f"Refusing to extract {archive}: member {name!r} has an absolute path.")
    if ".." in parts:
        raise ValueError(f"Refusing to extract {archive}: member {name!r} points outside the target directory.")
    if "\x00" in name:
        raise ValueError(f"Refusing to extract {archive}: member {name!r} has a NUL byte in its name.")
    if not _inside(root, os.path.realpath(os.path.join(root, name))):
        raise ValueError(f"Refusing to extract {archive}: member {name!r} would be written outside {root} "
                         "(through a symbolic link).")


def _check_budget(archive, count, total):
    if count > MAX_MEMBERS:
        raise ValueError(f"Refusing to extract {archive}: it has more than {MAX_MEMBERS} members.")
    if total > MAX_TOTAL_BYTES:
        raise ValueError(f"Refusing to extract {archive}: its members hold more than {MAX_TOTAL_BYTES} bytes.")


def _tar_members(archive, tar, root):
    members, total = [], 0
    while True:
        m = tar.next()
        if m is None:
            break
        members.append(m)
        total += max(m.size, 0)
        _check_budget(archive, len(members), total)
        _check_name(archive, m.name, root)
        if not (m.isreg() or m.isdir() or m.issym() or m.islnk()):
            raise ValueError(f"Refusing to extract {archive}: member {m.name!r} is a device, FIFO or other special "
                             "file.")
    _check_links(archive, members, root)
    return members


def _check_links(archive, members, root):
    """Every link resolves inside `root`, as written and on disk. A link's target may not pass through another
    symbolic link of the archive (through one, '..' leaves where that link points, which no path check can follow
    before the link exists) and links may not form a loop. A hard link names an earlier file of the archive."""
    # tarfile creates each member at its normalised path ('d//' is 'd')
    symlinks = {os.path.normpath(m.name) for m in members if m.issym()}
    files, targets = set(), {}
    for m in members:
        name = os.path.normpath(m.name)
        if m.isreg():
            files.add(name)
        if not (m.issym() or m.islnk()):
            continue
        link = m.linkname
        if not link:
            raise ValueError(f"Refusing to extract {archive}: link {m.name!r} has no target.")
        if os.path.isabs(link) or link.startswith(("/", "\\")):
            raise ValueError(f"Refusing to extract {archive}: link {m.name!r} points to the absolute path {link!r}.")
        # symbolic links resolve from their own directory, hard links from the archive's root
        base = os.path.dirname(name) if m.issym() else ""
        parts = [p for p in link.replace("\\", "/").split("/") if p not in ("", ".")]
        walked = base
        for i, part in enumerate(parts):
            walked = os.path.normpath(os.path.join(walked, part))
            if walked == ".." or walked.startswith("../") or os.path.isabs(walked):
                raise ValueError(f"Refusing to extract {archive}: link {m.name!r} -> {link!r} points outside the "
                                 "target directory.")
            if walked in symlinks and i < len(parts) - 1:
                raise ValueError(f"Refusing to extract {archive}: link {m.name!r} -> {link!r} passes through the "
                                 f"archive's symbolic link {walked!r}.")
        target = os.path.join(root, walked)
        if not _inside(root, os.path.realpath(target)):
            raise ValueError(f"Refusing to extract {archive}: link {m.name!r} -> {link!r} leads outside the target "
                             "directory (through a symbolic link already there).")
        if m.islnk() and walked not in files:
            raise ValueError(f"Refusing to extract {archive}: hard link {m.name!r} -> {link!r} names no earlier "
                             "file of the archive.")
        if m.issym():
            targets[name] = walked
    for start in targets:  # a chain of links ends somewhere
        seen, at = {start}, targets[start]
        while at in targets:
            if at in seen:
                raise ValueError(f"Refusing to extract {archive}: the symbolic links from {start!r} form a loop.")
            seen.add(at)
            at = targets[at]


def _extract_tar(archive, path, root):
    with tarfile.open(archive) as tar:
        members = _tar_members(archive, tar, root)
        kwargs = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # a second, independent check
        try:
            tar.extractall(path, members=members, **kwargs)
        except tarfile.FilterError as e:
            raise ValueError(f"Refusing to extract {archive}: {e}") from None


def _extract_zip(archive, path, root):
    with zipfile.ZipFile(archive) as zf:
        infos = zf.infolist()
        _check_budget(archive, len(infos), sum(i.file_size for i in infos))
        size = os.path.getsize(archive)
        for info in infos:
            _check_name(archive, info.filename, root)
            if not 0 <= info.header_offset < size:
                raise zipfile.BadZipFile(f"member {info.filename!r} starts at offset {info.header_offset}, "
                                         f"outside the file's {size} bytes")
        zf.extractall(path, members=infos)  # zipfile stops each member at its declared size (then checks its CRC)


def _is_tar(archive):
    try:
        return tarfile.is_tarfile(archive)
    except _CORRUPT + (OSError,):
        return False


def _is_zip(archive):
    try:
        return zipfile.is_zipfile(archive)
    except _CORRUPT + (OSError,):
        return False


_FORMATS = {"tar": (_is_tar, _extract_tar), "zip": (_is_zip, _extract_zip)}


def extract_archive(file_path, path=".", archive_format="auto", required=False):
    """Extracts a tar (plain, gz, bz2, xz) or zip archive into `path`. Returns False when the file is none of
    `archive_format` (tf_keras's behaviour), or raises ValueError when `required`."""
    if archive_format is None:
        return False
    formats = ["tar", "zip"] if archive_format == "auto" else (
        [archive_format] if isinstance(archive_format, str) else list(archive_format))
    for fmt in formats:
        if fmt not in _FORMATS:
            raise ValueError(f"Unknown archive format {fmt!r}: expected 'tar', 'zip' or 'auto'.")
    file_path, path = os.fspath(file_path), os.fspath(path)
    for fmt in formats:
        is_match, extract = _FORMATS[fmt]
        if is_match(file_path):
            os.makedirs(path, exist_ok=True)
            try:
                extract(file_path, path, os.path.realpath(path))
            except _CORRUPT as e:
                raise ValueError(f"Cannot extract {file_path}: the {fmt} archive is corrupt ({e}).") from None
            except OSError as e:
                if e.errno is not None:  # the file system's own errors (a full disk, permissions) stay OSError
                    raise
                # bz2's decompressor reports damaged data as an OSError without errno
                raise ValueError(f"Cannot extract {file_path}: the {fmt} archive is corrupt ({e}).") from None
            return True
    if required:
        raise ValueError(f"Cannot extract {file_path}: it is not a {' or '.join(formats)} archive.")
    return False
