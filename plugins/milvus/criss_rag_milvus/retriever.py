"""Dense retrieval on Milvus: a Milvus Lite file (embedded, one machine) or a Milvus server or
cluster (same client API), with request filters evaluated inside the database (see
:mod:`criss_rag_milvus.pushdown`)."""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from llama_index.core.schema import BaseNode, MetadataMode, NodeWithScore
from llama_index.core.storage.docstore import BaseDocumentStore
from pydantic import BaseModel, ConfigDict, Field, SecretStr
from tqdm import tqdm

from criss_rag.context import ComponentContext
from criss_rag.errors import ConfigError, IndexStoreError
from criss_rag.plugin_utils import NOT_IN_INDEX_KEY
from criss_rag.types import Query
from criss_rag_milvus.pushdown import PushDown, columns_for, combined_expression

LITE_FILE = "milvus.db"  # inside the retriever's index folder when `uri` is null
META = "milvus.json"
ID_FIELD, VECTOR_FIELD = "id", "vector"
MAX_ID_CHARS = 1024
_COLLECTION = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,200}$")
_SERVER = re.compile(r"^(https?|tcp|grpc)://", re.IGNORECASE)
log = logging.getLogger("criss_rag.milvus")


class MilvusDense:
    """Dense search in a Milvus collection; request filters (cancer type, diagnosis year, version) run in Milvus."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        uri: str | None = Field(
            None,
            description="where the vectors live: null = a Milvus Lite file inside the index folder; a path ending "
            "in .db = a Milvus Lite file there (relative to the config); http://host:19530 = a Milvus server or "
            "cluster",
        )
        token: SecretStr | None = Field(
            None, description="server credentials (`user:password` or an API key), written `{env: MILVUS_TOKEN}`; "
            "null for Milvus Lite or an open server", json_schema_extra=NOT_IN_INDEX_KEY,
        )
        collection: str = Field(
            "criss_rag", description="collection name (a server gets `<collection>_<content hash>`, so several "
            "indexes share one server)",
        )
        index_type: Literal["AUTOINDEX", "FLAT", "HNSW", "IVF_FLAT"] = Field(
            "AUTOINDEX", description="Milvus vector index; Milvus Lite serves every type as FLAT (exact)",
        )
        metric: Literal["COSINE", "IP", "L2"] = Field(
            "COSINE",
            description="COSINE (scores are cosine similarities, like faiss), IP or L2 (a distance: lower is nearer)",
        )
        index_params: dict[str, int | float | str] = Field(
            default_factory=dict, description="build params of the index, e.g. {M: 16, efConstruction: 200} (HNSW) "
            "or {nlist: 1024} (IVF_FLAT)",
        )
        search_params: dict[str, int | float | str] = Field(
            default_factory=dict, description="search params, e.g. {ef: 128} (HNSW) or {nprobe: 16} (IVF_FLAT)",
            json_schema_extra=NOT_IN_INDEX_KEY,
        )
        filters: list[PushDown] = Field(
            default_factory=list, description="request filters evaluated in Milvus: "
            "[{request_key, field, match: year_range|any_of|equals, separator, missing: keep|drop}]",
        )
        timeout: float = Field(30.0, gt=0, description="seconds to wait for the server per call",
                               json_schema_extra=NOT_IN_INDEX_KEY)
        insert_batch: int = Field(
            1000, ge=1, description="rows per insert call at ingest", json_schema_extra=NOT_IN_INDEX_KEY
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        if not _COLLECTION.match(params.collection):
            raise ConfigError(
                f"stage {ctx.stage}: milvus `collection` {params.collection!r} must start with a letter or `_` and "
                "hold only letters, digits and `_`"
            )
        self.params = params
        self.ctx = ctx
        self.embedding = ctx.embedding()
        self.columns = columns_for(params.filters, ctx.stage)
        self._uri_setting = self._check_uri(params.uri)
        self._client: Any = None
        self._uri_in_use = ""
        self._collection = ""
        self._docstore: BaseDocumentStore | None = None

    # -- connection ---------------------------------------------------------------------------
    def _check_uri(self, uri: str | None) -> str | None:
        if uri is None or _SERVER.match(uri):
            return uri
        if "://" in uri:
            raise ConfigError(
                f"stage {self.ctx.stage}: milvus `uri` {uri!r}: use http://host:19530 (or https://) for a server, "
                "a path ending in .db for a Milvus Lite file, or leave it out for a file in the index folder"
            )
        path = self.ctx.resolve_path(uri)
        if path.suffix != ".db":
            raise ConfigError(
                f"stage {self.ctx.stage}: milvus `uri` {uri!r} is a local path, so it is a Milvus Lite file, whose "
                "name must end in .db (e.g. `uri: vectors/milvus.db`); a server is written http://host:19530"
            )
        if not path.parent.is_dir():
            raise ConfigError(
                f"stage {self.ctx.stage}: milvus `uri`: folder {path.parent} does not exist; create it first"
            )
        return str(path)

    def _uri(self, directory: Path) -> str:
        return self._uri_setting or str(directory / LITE_FILE)

    def _connect(self, uri: str) -> Any:
        from pymilvus import MilvusClient

        token = self.params.token.get_secret_value() if self.params.token else ""
        try:
            return MilvusClient(uri=uri, token=token, timeout=self.params.timeout)
        except Exception as exc:  # pymilvus raises MilvusException (and grpc errors) for every kind of failure
            env = self.ctx.env_ref("token")
            hint = f"the token comes from ${env}" if env else "no token is set (add `token: {env: MILVUS_TOKEN}`)"
            raise IndexStoreError(
                f"stage {self.ctx.stage}: cannot connect to Milvus at {uri} ({_reason(exc)}). Check `uri`, that the "
                f"server is running and reachable, and the credentials: {hint}"
            ) from None

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
            if self._uri_setting is None:  # our own file; a shared .db may be open elsewhere in this process
                _release_lite(self._uri_in_use)

    # -- ingest -------------------------------------------------------------------------------
    def build(self, nodes: Sequence[BaseNode], directory: Path) -> None:
        from pymilvus import DataType

        vectors = self.ctx.embed_documents([node.get_content(MetadataMode.EMBED) for node in nodes])
        rows = [self._row(node, vector) for node, vector in zip(nodes, vectors, strict=True)]
        uri = self._uri(directory)
        collection = self.params.collection if self._uri_setting is None else self._shared_name(nodes)
        client = self._connect(uri)
        try:
            if client.has_collection(collection):  # the same content built before on a shared server: rebuild it
                client.drop_collection(collection)
            schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
            schema.add_field(ID_FIELD, DataType.VARCHAR, is_primary=True, max_length=MAX_ID_CHARS)
            schema.add_field(VECTOR_FIELD, DataType.FLOAT_VECTOR, dim=int(vectors.shape[1]))
            for column in self.columns:
                column.add_to_schema(schema, DataType)
            index = client.prepare_index_params()
            index.add_index(field_name=VECTOR_FIELD, index_type=self.params.index_type,
                            metric_type=self.params.metric, params=dict(self.params.index_params))
            client.create_collection(collection, schema=schema)
            # sync=False: Milvus Lite cannot report index progress; a server builds it before load_collection returns
            client.create_index(collection, index, sync=False)
            step = self.params.insert_batch
            with tqdm(total=len(rows), desc="milvus insert", unit="chunk", disable=not self.ctx.show_progress) as bar:
                for start in range(0, len(rows), step):
                    client.insert(collection, rows[start : start + step])
                    bar.update(len(rows[start : start + step]))
            client.flush(collection)
        finally:
            client.close()
            if self._uri_setting is None:  # Milvus Lite locks its file until released: the folder is renamed next
                _release_lite(uri)
        meta = {"uri": uri if self._uri_setting else LITE_FILE, "collection": collection, "count": len(rows),
                "dim": int(vectors.shape[1]), "embedding": self.embedding.model_name, "metric": self.params.metric,
                "filters": [rule.model_dump() for rule in self.params.filters]}
        (directory / META).write_text(json.dumps(meta, ensure_ascii=False, indent=1), encoding="utf-8")

    def _row(self, node: BaseNode, vector: Any) -> dict[str, Any]:
        if len(node.node_id.encode("utf-8")) > MAX_ID_CHARS:
            raise ConfigError(f"milvus: node id {node.node_id[:60]!r}... is longer than {MAX_ID_CHARS} bytes")
        row = {ID_FIELD: node.node_id, VECTOR_FIELD: [float(v) for v in vector]}
        for column in self.columns:
            row.update(column.row_values(node.metadata))
        return row

    def _shared_name(self, nodes: Sequence[BaseNode]) -> str:
        """``<collection>_<hash>``: the same content (and settings) always lands in the same collection."""
        digest = hashlib.sha256(self.params.model_dump_json(exclude={"token", "search_params", "timeout"}).encode())
        for node in nodes:
            digest.update(node.node_id.encode("utf-8"))
            digest.update(hashlib.sha256(node.get_content(MetadataMode.EMBED).encode("utf-8")).digest())
        return f"{self.params.collection}_{digest.hexdigest()[:16]}"

    # -- query --------------------------------------------------------------------------------
    def load(self, directory: Path, docstore: BaseDocumentStore) -> None:
        try:
            meta = json.loads((directory / META).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise IndexStoreError(
                f"milvus index at {directory} is unreadable ({exc}); re-run `criss-rag ingest CONFIG --force`"
            ) from None
        uri = str(directory / LITE_FILE) if meta["uri"] == LITE_FILE else self._uri(directory)
        self.close()
        self._client = self._connect(uri)
        self._uri_in_use = uri
        if not self._client.has_collection(meta["collection"]):
            self.close()
            raise IndexStoreError(
                f"milvus collection {meta['collection']!r} is not in {uri} (dropped, or another server?); re-run "
                "`criss-rag ingest CONFIG --force` to rebuild it"
            )
        self._client.load_collection(meta["collection"])
        self._collection = meta["collection"]
        self._docstore = docstore

    def expression(self, query: Query) -> str:
        """The boolean expression Milvus filters with for this query ("" = no filter)."""
        return combined_expression(self.columns, query.filters)

    def trace_notes(self, query: Query) -> dict[str, str]:
        """The trace shows the expression Milvus filtered with (none when no filter applied)."""
        expression = self.expression(query)
        return {"pushed_down": expression} if expression else {}

    def retrieve(self, query: Query, top_k: int) -> list[NodeWithScore]:
        if self._client is None or self._docstore is None:
            raise RuntimeError("milvus index not loaded; call load() first")
        vector = self.embedding.get_query_embedding(query.search_text)
        expression = self.expression(query)
        log.debug("milvus search %s filter=%r", self._collection, expression)
        found = self._client.search(
            self._collection,
            data=[[float(v) for v in vector]],
            limit=top_k,
            filter=expression,
            # ids only: no vectors or columns cross the wire
            # search_params={"metric_type": self.params.metric, "params": dict(self.params.search_params)},
            output_fields=[ID_FIELD],
        )
        return [
            NodeWithScore(node=self._docstore.get_node(str(hit["id"])), score=float(hit["distance"]))
            for hit in (found[0] if found else [])
        ]


def _release_lite(uri: str) -> None:
    """Stop the in-process Milvus Lite server of a ``.db`` file (pymilvus starts one per file)."""
    if uri and not _SERVER.match(uri):
        from milvus_lite.server_manager import server_manager_instance

        server_manager_instance.release_server(uri)


def _reason(exc: Exception) -> str:
    message = getattr(exc, "message", None) or str(exc)
    return " ".join(str(message).split())[:300]
