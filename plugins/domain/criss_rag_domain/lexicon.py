"""The cancer-type lexicon: canonical types, their synonyms in English, Korean, Japanese and
Chinese, and which type is a narrower kind of which.

The built-in lexicon (``cancer_types.yaml`` beside this module) can be extended from a YAML or CSV
file (:meth:`CancerLexicon.extend_from_file`) and from the values of a corpus metadata field such
as MedQuAD's ``focus`` (:meth:`CancerLexicon.extend_from_values`).

Matching rules (see :mod:`criss_rag_domain.matching`): Latin synonyms match whole words (plural
and possessive ignored), CJK synonyms match as substrings, and the longest mention wins, so "male
breast cancer" is one mention of ``male-breast`` (a narrower kind of ``breast``), not also of
``breast``.

**Corpus metadata values.** Each distinct value becomes a type of its own, so specific values stay
distinguishable, with one exception: a value that *is* a synonym of a known type (the whole value
is one mention, e.g. "Breast Cancer", "Small Cell Lung Cancer") joins that type. Any other value
("Male Breast Cancer" is a synonym of the built-in ``male-breast``; "Adult Primary Liver
Cancer", "Childhood Liver Cancer" are not) becomes a new type whose parent is the type of the
longest mention inside it (``liver``), or a new top-level type when nothing in it is known
("Childhood Vascular Tumors"). Values are added shortest first, so a value containing another
value nests under it ("Atypical Chronic Myelogenous Leukemia" under "Chronic Myelogenous
Leukemia"). Filters then keep a narrower type when asked for a broader one (a chunk naming
"Childhood Liver Cancer" names liver cancer), never the reverse.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml

from criss_rag.errors import DataError
from criss_rag_domain.matching import Mention, PhraseMatcher, find_mentions, normalise_text

BUILTIN_FILE = Path(__file__).with_name("cancer_types.yaml")

#: Organ words expand to "<organ> <noun>" and "<noun> <preposition> [<determiner>] <organ>".
ORGAN_NOUNS = ("cancer", "carcinoma", "adenocarcinoma", "tumor", "tumour", "malignancy", "malignancies", "neoplasm")
ORGAN_PREPOSITIONS = ("of", "in", "on")
ORGAN_DETERMINERS = ("", "the", "my", "your", "his", "her", "their", "our", "a")
_ENTRY_KEYS = {"name", "parent", "organs", "synonyms", "en", "ko", "ja", "zh"}

Relation = Literal["same", "narrower", "broader", "related", "different"]


def organ_phrases(organ: str) -> list[str]:
    """The synonyms an organ word stands for: "liver cancer", "tumour in my liver", ..."""
    phrases = [f"{organ} {noun}" for noun in ORGAN_NOUNS]
    for noun in ORGAN_NOUNS:
        for preposition in ORGAN_PREPOSITIONS:
            for determiner in ORGAN_DETERMINERS:
                phrases.append(" ".join(w for w in (noun, preposition, determiner, organ) if w))
    return phrases


@dataclass
class CancerType:
    """A cancer type: an id, how it is shown, a broader type (or none), and its synonyms."""

    id: str
    name: str
    parent: str | None = None
    synonyms: list[str] = field(default_factory=list)
    source: str = "builtin"


class CancerLexicon:
    """Cancer types and their synonyms; detects which types a text names."""

    def __init__(self) -> None:
        self.types: dict[str, CancerType] = {}
        self._matcher = PhraseMatcher()  # this lexicon's own phrases
        self._shared: list[PhraseMatcher] = []  # read-only phrase sets shared between lexicons (the built-in one)
        self.version = 0  # bumped on every change, so callers can drop cached detections

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def builtin(cls) -> CancerLexicon:
        """The bundled lexicon (``cancer_types.yaml``): a fresh lexicon that may be extended freely;
        the phrase index of the bundled types is built once per process and shared, read-only."""
        base = _builtin_base()
        lexicon = cls()
        lexicon.types = {k: replace(v, synonyms=list(v.synonyms)) for k, v in base.types.items()}
        lexicon._shared = [base._matcher, *base._shared]
        return lexicon

    def add(
        self,
        type_id: str,
        *,
        name: str | None = None,
        parent: str | None = None,
        synonyms: Iterable[str] = (),
        organs: Iterable[str] = (),
        source: str = "",
    ) -> CancerType:
        """Create type ``type_id``, or extend it (new synonyms; name and parent when given)."""
        type_id = str(type_id).strip()
        if not type_id:
            raise DataError("a cancer type needs a non-empty id")
        entry = self.types.get(type_id)
        if entry is None:
            entry = self.types[type_id] = CancerType(type_id, name or type_id, parent, [], source or "added")
        else:
            entry.name = name or entry.name
            entry.parent = parent or entry.parent
        phrases = [str(s).strip() for s in synonyms if str(s).strip()]
        for organ in organs:
            phrases += organ_phrases(str(organ).strip())
        known = set(entry.synonyms)  # a set: the built-in lexicon's types have hundreds of phrases each
        for phrase in phrases:
            if phrase not in known:
                known.add(phrase)
                entry.synonyms.append(phrase)
                self._matcher.add(phrase, type_id)
        self.version += 1
        return entry

    def extend_from_file(self, path: str | Path, *, source: str | None = None) -> list[str]:
        """Add or extend types from a YAML or CSV file; returns the ids touched.

        YAML: ``types: {<id>: {name, parent, organs, synonyms, en, ko, ja, zh}}`` (a bare list is
        read as synonyms). CSV: a header with ``id`` and ``synonyms`` (several separated by ``|``),
        optionally ``parent``, ``name`` and ``organs``; an id may span several rows.
        """
        path = Path(path)
        if not path.is_file():
            raise DataError(
                f"cancer-type lexicon file not found: {path}. Check `lexicon_file` "
                "(relative paths are resolved next to the pipeline YAML)"
            )
        source = source or str(path)
        if path.suffix.lower() in {".csv", ".tsv"}:
            entries = _read_csv(path)
        elif path.suffix.lower() in {".yaml", ".yml"}:
            entries = _read_yaml(path)
        else:
            raise DataError(f"{path}: a cancer-type lexicon is a .yaml, .yml or .csv file")
        touched = []
        for type_id, entry in entries:
            synonyms = [
                *entry.get("synonyms", []),
                *(s for lang in ("en", "ko", "ja", "zh") for s in entry.get(lang, [])),
            ]
            self.add(
                type_id,
                name=entry.get("name"),
                parent=entry.get("parent"),
                synonyms=synonyms,
                organs=entry.get("organs", []),
                source=source,
            )
            touched.append(type_id)
        self._check_parents(path)
        return touched

    def extend_from_values(self, values: Iterable[Any], *, source: str = "metadata") -> dict[str, str]:
        """Make each distinct value a type (or join the type it is a synonym of); returns value -> type id.

        See the module docstring for the rule."""
        distinct = sorted(
            {str(v).strip() for v in values if v is not None and str(v).strip()}, key=lambda v: (len(v), v)
        )
        mapping: dict[str, str] = {}
        for value in distinct:
            same = self._whole_mention(value)
            if same is not None:
                self.add(same, synonyms=[value])
                mapping[value] = same
                continue
            mentions = self.mentions(value)
            longest = max(mentions, key=lambda m: (m.end - m.start, -m.start), default=None)
            self.add(value, name=value, parent=longest.key if longest else None, synonyms=[value], source=source)
            mapping[value] = value
        return mapping

    def extend_from_nodes(self, nodes: Iterable[Any], metadata_field: str) -> dict[str, str]:
        """:meth:`extend_from_values` with the values of ``metadata_field`` on the corpus chunks."""
        values: list[Any] = []
        for node in nodes:
            value = getattr(node, "metadata", {}).get(metadata_field)
            values += list(value) if isinstance(value, list | tuple | set) else [value]
        return self.extend_from_values(values, source=f"metadata:{metadata_field}")

    # -- detection ------------------------------------------------------------------------------
    def mentions(self, text: str) -> list[Mention]:
        """Every non-overlapping synonym mention in ``text`` (key = the type id), in text order."""
        return find_mentions(text, [*self._shared, self._matcher]) if text else []

    def detect(self, text: str) -> list[str]:
        """The types ``text`` names, most specific as written, in order of first mention."""
        return list(dict.fromkeys(m.key for m in self.mentions(text)))

    def resolve(self, value: Any) -> list[str]:
        """Types a request value stands for: a type id (any case), else the types it names."""
        text = str(value).strip()
        if text in self.types:
            return [text]
        folded = {t.casefold(): t for t in self.types}
        if text.casefold() in folded:
            return [folded[text.casefold()]]
        return self.detect(text)

    # -- hierarchy ------------------------------------------------------------------------------
    def name(self, type_id: str) -> str:
        entry = self.types.get(type_id)
        return entry.name if entry else type_id

    def ancestors(self, type_id: str) -> list[str]:
        """Broader types, nearest first."""
        chain: list[str] = []
        parent = self.types[type_id].parent if type_id in self.types else None
        while parent is not None and parent not in chain and parent != type_id:
            chain.append(parent)
            parent = self.types[parent].parent if parent in self.types else None
        return chain

    def root(self, type_id: str) -> str:
        chain = self.ancestors(type_id)
        return chain[-1] if chain else type_id

    def within(self, type_id: str, wanted: str) -> bool:
        """Whether ``type_id`` is ``wanted`` or a narrower kind of it."""
        return type_id == wanted or wanted in self.ancestors(type_id)

    def relation(self, asked: str, found: str) -> Relation:
        """How a type ``found`` in a chunk relates to the type ``asked`` about."""
        if asked == found:
            return "same"
        if asked in self.ancestors(found):
            return "narrower"
        if found in self.ancestors(asked):
            return "broader"
        if self.root(asked) == self.root(found):
            return "related"
        return "different"

    # -- internals ------------------------------------------------------------------------------
    def _whole_mention(self, value: str) -> str | None:
        text = normalise_text(value).strip()
        if text in self.types:
            return text
        mentions = self.mentions(text)
        if len(mentions) == 1 and mentions[0].start == 0 and mentions[0].end >= len(text.rstrip(" .,;:)")):
            return mentions[0].key
        return None

    def _check_parents(self, where: Path) -> None:
        for entry in self.types.values():
            if entry.parent is not None and entry.parent not in self.types:
                raise DataError(
                    f"{where}: cancer type {entry.id!r} names parent {entry.parent!r}, which is not a known type. "
                    f"Define {entry.parent!r} or fix the parent"
                )
            seen = {entry.id}
            parent = entry.parent
            while parent is not None:
                if parent in seen:
                    raise DataError(f"{where}: cancer type {entry.id!r}: its parents form a cycle through {parent!r}")
                seen.add(parent)
                parent = self.types[parent].parent


@lru_cache(maxsize=1)
def _builtin_base() -> CancerLexicon:
    lexicon = CancerLexicon()
    lexicon.extend_from_file(BUILTIN_FILE, source="builtin")
    return lexicon


def _read_yaml(path: Path) -> list[tuple[str, Mapping[str, Any]]]:
    try:
        # libyaml's safe loader when PyYAML has it (the same data, in half the time)
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
    except yaml.YAMLError as exc:
        raise DataError(f"{path}: not valid YAML ({exc})") from None
    types = data.get("types") if isinstance(data, dict) else None
    if not isinstance(types, dict):
        raise DataError(f"{path}: expected a mapping `types: {{<id>: {{synonyms: [...], parent: ..., ...}}}}`")
    entries = []
    for type_id, entry in types.items():
        if isinstance(entry, list):
            entry = {"synonyms": entry}
        if not isinstance(entry, dict):
            raise DataError(f"{path}: type {type_id!r} must be a mapping or a list of synonyms")
        unknown = sorted(set(entry) - _ENTRY_KEYS)
        if unknown:
            raise DataError(f"{path}: type {type_id!r}: unknown key(s) {unknown}; allowed: {sorted(_ENTRY_KEYS)}")
        for key in ("synonyms", "organs", "en", "ko", "ja", "zh"):
            if not isinstance(entry.get(key, []), list):
                raise DataError(f"{path}: type {type_id!r}: `{key}` must be a list")
        entries.append((str(type_id), entry))
    return entries


def _read_csv(path: Path) -> list[tuple[str, Mapping[str, Any]]]:
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t" if path.suffix.lower() == ".tsv" else ",")
        header = {h.strip() for h in reader.fieldnames or []}
        column = "synonyms" if "synonyms" in header else "synonym"
        if "id" not in header or column not in header:
            raise DataError(
                f"{path}: a CSV lexicon needs the columns `id` and `synonyms` (optional: parent, name, organs)"
            )
        entries = []
        for line, row in enumerate(reader, start=2):
            row = {k.strip(): (v or "").strip() for k, v in row.items() if k}
            if not row.get("id"):
                raise DataError(f"{path}:{line}: empty `id`")
            entries.append(
                (
                    row["id"],
                    {
                        "synonyms": [s.strip() for s in row.get(column, "").split("|") if s.strip()],
                        "organs": [s.strip() for s in row.get("organs", "").split("|") if s.strip()],
                        "parent": row.get("parent") or None,
                        "name": row.get("name") or None,
                    },
                )
            )
    return entries
