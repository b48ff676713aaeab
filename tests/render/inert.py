"""An HTML inspector for the render tests: what a browser would load or run."""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

URL_ATTRIBUTES = {"src", "href", "srcset", "action", "formaction", "data", "poster", "xlink:href"}
LOADING_TAGS = {"script", "img", "iframe", "object", "embed", "link", "video", "audio", "base"}


@dataclass
class Inspection:
    """Elements, attributes and texts of one page."""

    tags: list[str] = field(default_factory=list)
    handlers: list[tuple[str, str]] = field(default_factory=list)
    urls: list[tuple[str, str, str]] = field(default_factory=list)
    style_attributes: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    styles: list[str] = field(default_factory=list)
    metas: list[dict[str, str]] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    doctype: str = ""

    def count(self, tag: str) -> int:
        """How many ``tag`` elements the page has."""
        return self.tags.count(tag)

    def csp(self) -> str:
        """Content of the Content-Security-Policy meta (empty when absent)."""
        for meta in self.metas:
            if meta.get("http-equiv", "").lower() == "content-security-policy":
                return meta.get("content", "")
        return ""

    def style_hash(self) -> str:
        """``sha256-…`` of the (single) style element's text, as a CSP source."""
        digest = hashlib.sha256(self.styles[0].encode("utf-8")).digest()
        return "sha256-" + base64.b64encode(digest).decode("ascii")


class _Parser(HTMLParser):
    def __init__(self, result: Inspection) -> None:
        super().__init__(convert_charrefs=True)
        self.result = result
        self.in_style = False

    def handle_decl(self, decl: str) -> None:
        self.result.doctype = decl

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.result.tags.append(tag)
        values = {k: v or "" for k, v in attrs}
        for name, value in values.items():
            if name.startswith("on"):
                self.result.handlers.append((tag, name))
            if name in URL_ATTRIBUTES:
                self.result.urls.append((tag, name, value))
            if name == "style":
                self.result.style_attributes.append(tag)
        if tag == "meta":
            self.result.metas.append(values)
        self.in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self.in_style = False

    def handle_comment(self, data: str) -> None:
        self.result.comments.append(data)

    def handle_data(self, data: str) -> None:
        if self.in_style:
            self.result.styles.append(data)
        else:
            self.result.text.append(data)


def inspect(html: bytes) -> Inspection:
    """Parse ``html`` the way the tests need it."""
    result = Inspection()
    parser = _Parser(result)
    parser.feed(html.decode("utf-8"))
    parser.close()
    return result


SCHEME = re.compile(r"^\s*([a-zA-Z][a-zA-Z0-9+.-]*):")


def external(url: str) -> bool:
    """True when ``url`` would leave the page's directory: any scheme, or ``//host``."""
    return bool(SCHEME.match(url)) or url.strip().startswith("//")
