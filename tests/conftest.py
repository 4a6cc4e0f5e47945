from __future__ import annotations

import os

import pytest

# Any accidental model-hub lookup fails at once instead of waiting on the network.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture
def host():
    from criss_rag.testing import plugin_host

    return plugin_host()
