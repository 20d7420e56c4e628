"""pytest setup: the compiler binary, the per-session build cache, and which models the session needs."""

import os

import pytest

import harness


def pytest_collection_modifyitems(session, config, items):
    # Remember which models this session's tests build, so the cache builds them all in parallel.
    wanted = []
    for item in items:
        callspec = getattr(item, "callspec", None)
        path = callspec.params.get("model_path") if callspec else None
        if path is not None:
            wanted.append(path)
    config._agc_wanted_models = wanted


@pytest.fixture(scope="session")
def agc_bin():
    """The compiler under test. Missing is a failure, never a skip."""
    binary = harness.find_agc_binary()
    if binary is None:
        where = os.environ.get("AGC_BIN") or harness.REPO / "target" / "release" / "agc"
        pytest.fail(
            f"the agc compiler is not at {where}: run `cargo build --release` in {harness.REPO} "
            "or set AGC_BIN to the binary",
            pytrace=False,
        )
    os.environ["AGC_BIN"] = str(binary)  # agc.build uses the same binary
    return binary


@pytest.fixture(scope="session")
def builds(agc_bin, tmp_path_factory, request):
    """The session's BuildCache: `builds.get(model_path)` -> path of lib<NAME>.so."""
    cache = harness.BuildCache(agc_bin, tmp_path_factory.mktemp("builds"),
                               getattr(request.config, "_agc_wanted_models", ()))
    yield cache
    cache.close()
