"""The retriever `{{ cookiecutter.component_name }}`: scores a chunk by the share of the question's
words it contains. No model, no network; its index is one JSON file.

Replace the bodies with your own index; keep the contract: ``build`` writes only inside its
directory, ``load`` reads it back (chunks come from the shared docstore), ``retrieve`` returns at
most ``top_k`` candidates, best first, without zero scores.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from llama_index.core.schema import BaseNode, NodeWithScore
from llama_index.core.storage.docstore import BaseDocumentStore
from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.types import Query

_WORD = re.compile(r"\w+")
INDEX_FILE = "terms.json"


class {{ cookiecutter.__class_name }}:
    """Scores chunks by the share of the question's words they contain."""  # first line: the summary

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")  # unknown YAML keys are errors
        min_word_length: int = Field(3, ge=1, description="shorter words are ignored, in chunks and questions")

    def __init__(self, params: Params, ctx: ComponentContext | None) -> None:
        self.min_word_length = params.min_word_length
        self.terms: dict[str, set[str]] = {}
        self.docstore: BaseDocumentStore | None = None

    def _words(self, text: str) -> set[str]:
        return {w for w in _WORD.findall(text.lower()) if len(w) >= self.min_word_length}

    def build(self, nodes: Sequence[BaseNode], directory: Path) -> None:
        terms = {node.node_id: sorted(self._words(node.get_content())) for node in nodes}
        (directory / INDEX_FILE).write_text(json.dumps(terms, ensure_ascii=False), encoding="utf-8")

    def load(self, directory: Path, docstore: BaseDocumentStore) -> None:
        stored = json.loads((directory / INDEX_FILE).read_text(encoding="utf-8"))
        self.terms = {node_id: set(words) for node_id, words in stored.items()}
        self.docstore = docstore

    def retrieve(self, query: Query, top_k: int) -> list[NodeWithScore]:
        wanted = self._words(query.search_text)  # search_text: what query transforms made of it
        if not wanted or self.docstore is None:
            return []
        scored = [(len(wanted & words) / len(wanted), node_id) for node_id, words in self.terms.items()]
        scored = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))[:top_k]
        return [NodeWithScore(node=self.docstore.get_node(node_id), score=score) for score, node_id in scored]
