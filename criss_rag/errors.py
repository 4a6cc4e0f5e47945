"""The small error hierarchy of criss_rag.

Every error carries a message written for the person at the keyboard: where the problem is
(file, line, stage, component, key) and what to do next. The CLI prints ``str(error)`` and exits
with status 2; it never shows a traceback for these.
"""

from __future__ import annotations


class CrissRagError(Exception):
    """Base class: an error whose message tells the user what to do next."""


class ConfigError(CrissRagError):
    """A pipeline config is invalid (unknown component, unknown key, wrong type, missing env var)."""


class PluginError(CrissRagError):
    """A plugin failed to load or registered something invalid (e.g. a duplicate name)."""


class IndexStoreError(CrissRagError):
    """An index directory is missing, corrupt or was built by an incompatible config."""


class DataError(CrissRagError):
    """Input data (a corpus or question file) is malformed."""


class ComponentError(CrissRagError):
    """A component failed at run time; the message names the stage and the component."""


class StreamCancelled(CrissRagError):
    """A streamed answer was stopped because its reader went away (e.g. a server's client
    disconnected); the generator's stream is closed at once."""
