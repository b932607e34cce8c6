"""XML configuration: Maven's pom.xml, Spring contexts, MSBuild projects, Android manifests, any `.xml`.

One piece per child element of the root; some children are split one level down, those whose
children are the units a question is about (a pom's `dependencies`, `build`, `plugins`, `profiles`,
a manifest's `application`) and any over the size budget (up to three levels). Symbols are element
paths from below the root, dot-joined, an element's identity after its tag:

- the identity is its `id`, `name`, `android:name`, `Include` / `Update` (MSBuild) or `key` attribute,
  else Maven's `groupId:artifactId` (or its `<id>` / `<name>` child): `bean.dataSource`,
  `application.activity.MainActivity`, `profiles.css`;
- under a container of one kind of element the tag is left out: a pom's
  `dependencies.org.postgresql:postgresql`, `build.plugins.org.springframework.boot:spring-boot-maven-plugin`;
- an `ItemGroup` of one kind of item is named by it: `ItemGroup.PackageReference`;
- one-line elements without an identity side by side (`<groupId>`, `<version>`...) are one piece,
  named by the first of them when alone, else by their container (the root's tag at the top).

The text is untrusted: it is parsed by `defusedxml` (expat with entity declarations refused, external
entities and DTDs never fetched, nothing expanded), and only the symbols come from what it parsed:
every chunk's text is the file's own lines. A file it refuses (an entity bomb, an
external entity, a syntax error) is split by its lines instead: the start tags of the outermost
indentation below the root.
"""

from __future__ import annotations

import io
import re
import xml.sax
import xml.sax.handler
from collections.abc import Sequence
from dataclasses import dataclass, field

from defusedxml import DefusedXmlException
from defusedxml.expatreader import DefusedExpatParser

from codelens.ingest.pieces import MAX_PIECE_CHARS, Piece
from codelens.ingest.redaction import PLACEHOLDER_PREFIX

MAX_DEPTH = 3  # how far down an element is split
MAX_LEAF_TEXT = 200
_IDENTITY_ATTRIBUTES = ("id", "name", "android:name", "Include", "Update", "Name", "key")
_ALWAYS_SPLIT = frozenset({"dependencies", "build", "plugins", "profiles", "modules", "application"})
_MASK = re.compile(re.escape(PLACEHOLDER_PREFIX) + r"[\w-]+>")
_START_TAG = re.compile(r"^(?P<indent>[ \t]*)<(?P<tag>[A-Za-z_][\w.:-]*)")


@dataclass
class Element:
    tag: str
    attributes: dict[str, str]
    start_line: int
    end_line: int = 0
    text: str = ""
    children: list[Element] = field(default_factory=list)

    @property
    def is_plain_leaf(self) -> bool:
        """One line, no children, nothing that names it (`<version>1.0</version>`, `<suppress files=.../>`)."""
        return not self.children and self.end_line == self.start_line and element_identity(self) is None


class _TreeBuilder(xml.sax.handler.ContentHandler):
    def __init__(self) -> None:
        super().__init__()
        self.locator: xml.sax.xmlreader.Locator | None = None
        self.stack: list[Element] = []
        self.root: Element | None = None

    def setDocumentLocator(self, locator: xml.sax.xmlreader.Locator) -> None:
        self.locator = locator

    def _line(self) -> int:
        return self.locator.getLineNumber() if self.locator is not None else 1

    def startElement(self, name: str, attrs: xml.sax.xmlreader.AttributesImpl) -> None:
        element = Element(name, dict(attrs.items()), self._line())
        if self.stack:
            if len(self.stack) <= MAX_DEPTH + 1:
                self.stack[-1].children.append(element)
        else:
            self.root = element
        self.stack.append(element)

    def endElement(self, name: str) -> None:
        element = self.stack.pop()
        element.end_line = self._line()
        element.text = element.text.strip()

    def characters(self, content: str) -> None:
        if self.stack and len(self.stack[-1].text) < MAX_LEAF_TEXT:
            self.stack[-1].text += content


def parse_xml(text: str) -> Element | None:
    """The root element (children kept to MAX_DEPTH levels), or None when the text is refused."""
    builder = _TreeBuilder()
    # Entity declarations refused (a bomb, `SYSTEM "file:///etc/passwd"`); a DOCTYPE's external DTD
    # (checkstyle's, old Spring's) allowed but never fetched: external entities are off in the reader.
    parser = DefusedExpatParser(forbid_dtd=False, forbid_entities=True, forbid_external=False)
    parser.setFeature(xml.sax.handler.feature_external_ges, False)
    parser.setFeature(xml.sax.handler.feature_external_pes, False)
    parser.setContentHandler(builder)
    try:
        parser.parse(io.BytesIO(text.encode("utf-8")))
    except (DefusedXmlException, xml.sax.SAXException, ValueError, RecursionError):
        return None
    return builder.root


def xml_pieces(text: str, lines: Sequence[str]) -> list[Piece]:
    # masked secrets (`<secret:password>`) are markup to a parser: read as text, on the same lines
    root = parse_xml(_MASK.sub(lambda match: f"[{match.group()[1:-1]}]", text))
    if root is None:
        return _line_pieces(lines)
    if not root.children:
        return [Piece("<document>", 1, len(lines))]
    return _children_pieces(root, lines, "", root.tag, 0)


def _children_pieces(parent: Element, lines: Sequence[str], prefix: str, run_label: str, depth: int) -> list[Piece]:
    pieces: list[Piece] = []
    one_kind = len({child.tag for child in parent.children}) == 1
    start = run_start = parent.start_line + 1
    run: list[Element] = []
    for number, child in enumerate(parent.children):
        if child.is_plain_leaf:
            if not run:
                run_start = start
            run.append(child)
        else:
            if run:
                pieces.append(_run_piece(run, run_start, start - 1, prefix, run_label))
                run = []
            symbol = prefix + _element_name(child, omit_tag=one_kind)
            if depth < MAX_DEPTH and child.children and _splits(child, lines):
                pieces.extend(_children_pieces(child, lines, f"{symbol}.", symbol, depth + 1))
            else:
                pieces.append(Piece(symbol, start, child.end_line))
        start = child.end_line + 1
        if number + 1 == len(parent.children) and run:
            pieces.append(_run_piece(run, run_start, child.end_line, prefix, run_label))
    return pieces


def _run_piece(run: Sequence[Element], start: int, end: int, prefix: str, label: str) -> Piece:
    return Piece(prefix + run[0].tag if len(run) == 1 else label, start, end)


def _splits(element: Element, lines: Sequence[str]) -> bool:
    """A container of the units questions are about, or a long list of one kind of element. Not a list of
    one-line settings (an Eclipse formatter profile's 390 `<setting id=... value=.../>`, a checkstyle
    `TreeWalker`'s modules: a chunk of a line each, a fifth of joda-money's index): read in parts."""
    if element.tag in _ALWAYS_SPLIT:
        return True
    if len(element.children) < 2 or len({child.tag for child in element.children}) > 1:
        return False
    if all(not child.children and child.start_line == child.end_line for child in element.children):
        return False
    size = sum(len(lines[n - 1]) + 1 for n in range(element.start_line, min(element.end_line, len(lines)) + 1))
    return size > MAX_PIECE_CHARS


def _element_name(element: Element, omit_tag: bool) -> str:
    identity = element_identity(element)
    if identity is None:
        if element.tag == "ItemGroup" and len({c.tag for c in element.children}) == 1:
            return f"ItemGroup.{element.children[0].tag}"
        return element.tag
    return identity if omit_tag else f"{element.tag}.{identity}"


def element_identity(element: Element) -> str | None:
    """What tells this element from its siblings: an identifying attribute, Maven's coordinates."""
    for name in _IDENTITY_ATTRIBUTES:
        value = element.attributes.get(name, "").strip().lstrip(".")
        if value:
            return value[:80]
    texts = {child.tag: child.text for child in element.children if not child.children and child.text}
    if "artifactId" in texts:
        group = texts.get("groupId")
        return f"{group}:{texts['artifactId']}" if group else texts["artifactId"]
    for tag in ("id", "name"):
        if tag in texts:
            return texts[tag][:80]
    return None


_COMMENT = re.compile(r"<!--|-->")
_END_TAG = re.compile(r"</[^<>]*>")
_ATTRIBUTE = re.compile(r"""(?<=\s)(?P<name>[\w:.-]+)\s*=\s*(?P<quote>["'])(?P<value>.*?)(?P=quote)""")
_BRACKETS = re.compile(r"/>|<\??|\??>")


def xml_as_text(code: str) -> str:
    """An XML piece as words for its embedding: `<groupId>org.postgresql</groupId>` -> `groupId org.postgresql`
    (closing tags, brackets, an attribute's quotes and `=` dropped; comments' words kept)."""
    text = _ATTRIBUTE.sub(r"\g<name> \g<value>", _END_TAG.sub(" ", _COMMENT.sub(" ", code)))
    lines = (" ".join(_BRACKETS.sub(" ", line).split()) for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def _line_pieces(lines: Sequence[str]) -> list[Piece]:
    """A refused file: the start tags at the outermost indentation below the root's, by their lines."""
    tags = [(number, match) for number, line in enumerate(lines, 1)
            if (match := _START_TAG.match(line)) and not line.lstrip().startswith(("<?", "<!"))]
    if len(tags) < 2:
        return [Piece("<document>", 1, len(lines))]
    root_indent = len(tags[0][1]["indent"])
    below = [(number, match) for number, match in tags[1:] if len(match["indent"]) > root_indent]
    if not below:
        return [Piece("<document>", 1, len(lines))]
    indent = min(len(match["indent"]) for _, match in below)
    heads = [(number, match["tag"]) for number, match in below if len(match["indent"]) == indent]
    pieces = []
    for index, (number, tag) in enumerate(heads):
        end = heads[index + 1][0] - 1 if index + 1 < len(heads) else len(lines)
        pieces.append(Piece(tag, 1 if index == 0 else number, end))
    return pieces
