"""Loader ``medquad-xml``: MedQuAD's XML files, one document per question-answer pair or per question type.

A MedQuAD file is one ``<Document id source url>`` with a ``<Focus>`` (the disease or topic) and
``<QAPairs>`` of ``<QAPair pid>`` holding a ``<Question qid qtype>`` and an ``<Answer>``. The real
files have quirks this loader tolerates and records in ``self.skipped`` instead of failing: three
subsets ship without answers (MedlinePlus copyright), some files carry bare ``&`` characters, a
few lack a focus or pair ids, and some pair ids repeat within a file.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from llama_index.core.schema import Document
from pydantic import BaseModel, ConfigDict, Field
from tqdm import tqdm

from criss_rag.context import ComponentContext
from criss_rag.errors import DataError
from criss_rag.plugin_utils import index_fields_param, make_document, paths_fingerprint

_BARE_AMPERSAND = re.compile(rb"&(?!#\d+;|#x[0-9a-fA-F]+;|[A-Za-z][A-Za-z0-9]*;)")


def _clean(text: str | None) -> str:
    """Spaces collapsed within lines, blank lines kept as paragraph breaks."""
    lines = [" ".join(line.split()) for line in (text or "").splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


class MedQuadXmlLoader:
    """MedQuAD XML (a file or a folder of them): answers as documents with focus, URL and question type."""

    suffixes = (".xml",)

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        path: str = Field(
            description="a MedQuAD XML file or a folder searched recursively for *.xml (relative to the config file)"
        )
        unit: Literal["pair", "qtype"] = Field(
            "pair",
            description="pair: one document per question-answer pair (citations point at one answer); qtype: one per "
            "question type of a file, each answer under a `### question` line (for the `sections` chunker)",
        )
        id_prefix: str = Field(
            "medquad-",
            description="documents are named <prefix><page id>-<pair id> (pair) or <prefix><page id>-<qtype>, the page "
            "id being the file name without .xml (with its subfolders under `path`); "
            "`cgov-` gives the ids of the shared medquad-cancergov JSONL",
        )
        index_fields: list[str] = index_fields_param(
            "metadata indexed with the text; adding `question` indexes MedQuAD's own question, which "
            "inflates retrieval scores on MedQuAD's questions"
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.path = ctx.resolve_path(params.path)
        if not self.path.exists():
            raise DataError(f"stage loader: MedQuAD path not found: {self.path} (check `loader.path`)")
        self.show_progress = ctx.show_progress
        self.skipped: list[tuple[str, str]] = []

    def files(self) -> list[Path]:
        return sorted(self.path.rglob("*.xml")) if self.path.is_dir() else [self.path]

    def page_id(self, file: Path) -> str:
        """The file's name without ``.xml``; under a folder, with its subfolders (``2_GARD_QA/0000004``),
        since MedQuAD's subsets reuse file names."""
        relative = file.relative_to(self.path) if self.path.is_dir() else Path(file.name)
        return relative.with_suffix("").as_posix()

    def fingerprint(self) -> str:
        return paths_fingerprint([self.path], self.params)

    def load(self) -> Iterator[Document]:
        self.skipped = []
        files = self.files()
        if not files:
            raise DataError(f"stage loader: no *.xml files under {self.path} (check `loader.path`)")
        for file in tqdm(files, desc="MedQuAD XML", unit="file", disable=not self.show_progress or len(files) < 50):
            root = self._parse(file)
            if root is None:
                continue
            pairs = list(self._pairs(file, root))
            if self.params.unit == "pair":
                for pid, question, qtype, answer in pairs:
                    yield self._document(file, root, f"{self.page_id(file)}-{pid}", answer,
                                         {"qtype": qtype, "question": question, "pid": pid})
            else:
                by_type: dict[str, list[tuple[str, str]]] = {}
                for _, question, qtype, answer in pairs:
                    by_type.setdefault(qtype, []).append((question, answer))
                for qtype, items in by_type.items():
                    text = "\n".join(f"### {question}\n{answer}" for question, answer in items)
                    yield self._document(file, root, f"{self.page_id(file)}-{qtype.replace(' ', '_')}", text,
                                         {"qtype": qtype, "pairs": len(items)})

    def _parse(self, file: Path) -> ET.Element | None:
        data = file.read_bytes()
        try:
            root = ET.fromstring(data)
        except ET.ParseError:
            try:  # the commonest defect: a bare "&" in text
                root = ET.fromstring(_BARE_AMPERSAND.sub(b"&amp;", data))
            except ET.ParseError as exc:
                self.skipped.append(
                    (str(file), f"not well-formed XML (line {exc.position[0]}, column {exc.position[1]})")
                )
                return None
        if root.tag != "Document":
            self.skipped.append((str(file), f"root element is <{root.tag}>, not a MedQuAD <Document>"))
            return None
        return root

    def _pairs(self, file: Path, root: ET.Element) -> Iterator[tuple[str, str, str, str]]:
        """``(pair id, question, question type, answer)`` of each usable pair."""
        seen: set[str] = set()
        for n, pair in enumerate(root.iter("QAPair"), start=1):
            pid = (pair.get("pid") or str(n)).strip()
            where = f"{file.name}#pair={pid}"
            question_el = pair.find("Question")
            question = _clean("".join(question_el.itertext())) if question_el is not None else ""
            qtype = (question_el.get("qtype") if question_el is not None else None) or "unknown"
            answer_el = pair.find("Answer")
            answer = _clean("".join(answer_el.itertext())) if answer_el is not None else ""
            if pid in seen:
                self.skipped.append((where, "pair id repeated in the file"))
            elif not answer:
                self.skipped.append((where, "empty answer (MedQuAD removed the MedlinePlus subsets' answers)"))
            else:
                seen.add(pid)
                yield pid, question, qtype.strip(), answer

    def _document(self, file: Path, root: ET.Element, name: str, text: str, extra: dict[str, Any]) -> Document:
        focus = _clean(root.findtext("Focus")) or file.stem
        cuis = [_clean(c.text) for c in root.iter("CUI") if c.text]
        metadata = {
            "title": f"{focus}: {extra['qtype']}",
            "focus": focus,
            "url": (root.get("url") or "").strip(),
            "source": (root.get("source") or "").strip(),
            "page_id": self.page_id(file),
            "umls_cuis": ", ".join(cuis),
            **extra,
        }
        return make_document(self.params.id_prefix + name, text, metadata, self.params.index_fields)
