"""The page's files (`static/`) as the host serves them: from memory, each also under a name
carrying its content's digest (`/static/play.js` → `/static/play.1f2e3d4c5b6a.js`). The pages
name only those: a browser keeps them a year and never asks again (`immutable`), since a
changed file is a new name. A plain name still answers, asked again each time (`no-cache`, its
digest as the ETag: 304 when unchanged). Text and fonts go gzip-compressed to browsers that
accept it, compressed once, when the host starts. Style sheets name their fonts by digest too.

The play page's scripts and style sheets are each also joined into one file (`BUNDLES`), which is
all the page names beside its font: one request for every script instead of five, one for the
styles instead of two (the scripts' parts run in the order listed, as the five deferred scripts
did). xterm.js and its addon are minified as vendored; our own parts are small and kept readable.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import mimetypes
import re
from pathlib import Path

import attrs

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
COMPRESSED_SUFFIXES = (".js", ".css", ".html", ".ttf", ".svg", ".txt")
_STATIC_NAME = re.compile(r"/static/[A-Za-z0-9_./-]+")
# The play page's bundles: each is its parts joined in this order (`static/play.html` names them).
BUNDLES = {
    "/static/play-bundle.js": ("/static/early.js", "/static/terminal.js", "/static/vendor/xterm/xterm.js",
                               "/static/vendor/xterm/addon-fit.js", "/static/play.js"),
    "/static/play-bundle.css": ("/static/vendor/xterm/xterm.css", "/static/horizon.css"),
}
_SOURCE_MAP = re.compile(rb"^//# sourceMappingURL=\S*\s*$", re.M)  # the vendored files' maps aren't shipped
_CONTENT_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html", ".ttf": "font/ttf"}


@attrs.define
class Asset:
    """One file: its bytes, type and names."""

    body: bytes
    content_type: str
    name: str       # /static/…, as in the repository
    digest: str     # of its content
    gzipped: bytes | None = None  # when compressible

    @property
    def url(self) -> str:
        """/static/… with the digest: what the pages name."""
        stem, dot, suffix = self.name.rpartition(".")
        return f"{stem}.{self.digest}.{suffix}" if dot and "/" not in suffix else f"{self.name}.{self.digest}"

    @property
    def etag(self) -> str:
        return f'W/"{self.digest}"'  # weak: the same for its gzipped bytes


class Assets:
    """Every file under `root` (but its .html pages, which `page` gives), by either name."""

    def __init__(self, root: Path):
        self.root = root
        self._by_name: dict[str, Asset] = {}
        self._by_url: dict[str, Asset] = {}
        files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix != ".html")
        for path in sorted(files, key=lambda p: p.suffix == ".css"):  # style sheets last: they name fonts
            body = path.read_bytes()
            if path.suffix == ".css":
                body = self.rename(body.decode()).encode()
            self._add("/static/" + path.relative_to(root).as_posix(), body)
        for name, parts in BUNDLES.items():
            # a script's parts each end their last statement; a stray ";" would void a style rule
            joint = b"\n;\n" if name.endswith(".js") else b"\n"
            self._add(name, joint.join(_SOURCE_MAP.sub(b"", self._by_name[part].body).rstrip()
                                       for part in parts) + b"\n")

    def _add(self, name: str, body: bytes) -> None:
        suffix = Path(name).suffix
        content_type = _CONTENT_TYPES.get(suffix) or mimetypes.guess_type(name)[0] or "application/octet-stream"
        asset = Asset(body=body, content_type=content_type, name=name,
                      digest=hashlib.sha256(body).hexdigest()[:12],
                      gzipped=gzip.compress(body, compresslevel=9, mtime=0)
                      if name.endswith(COMPRESSED_SUFFIXES) else None)
        self._by_name[name] = asset
        self._by_url[asset.url] = asset

    def url(self, name: str) -> str:
        """The digest name of `/static/…` (KeyError for a file that isn't there)."""
        return self._by_name[name].url

    def rename(self, text: str) -> str:
        """`text` with every `/static/…` name of a file here replaced by its digest name."""
        return _STATIC_NAME.sub(lambda m: self._by_name[m.group(0)].url if m.group(0) in self._by_name
                                else m.group(0), text)

    @functools.cache  # noqa: B019 (one Assets per static folder, for the process's life)
    def page(self, name: str) -> str:
        """The page `name` (e.g. "play.html") naming the files by digest."""
        return self.rename((self.root / name).read_text())

    def find(self, path: str) -> tuple[Asset | None, bool]:
        """The file at this request path, and whether it was asked for by its digest name."""
        asset = self._by_url.get(path)
        if asset is not None:
            return asset, True
        return self._by_name.get(path), False


@functools.cache
def assets_of(root: Path) -> Assets:
    """The files of a static folder, read and compressed once per process."""
    return Assets(root)
