"""The kubelite pytest plugin (registered as the ``pytest11`` entry point ``kubelite.testing.plugin``).

Contract:
- ``kubelite_cluster``: an async fixture giving each test a fresh, running
  :class:`~kubelite.cluster.Cluster` on virtual time; it is shut down after the test (every task it
  started is cancelled and awaited). Options come from ``@pytest.mark.kubelite(...)``: any
  :class:`~kubelite.cluster.Cluster` keyword (``nodes=3``, ``controllers=[...]``, ``network=False``,
  ``image_registry=...``, ...), plus ``seed=`` to pin one test's seed.
- Seeds: the marker's ``seed``, else ``--kubelite-seed N``, else :func:`seed_for` the test id (CRC-32 of
  the node id, stable across processes and Python versions; never ``hash()``, which is salted per
  process). The same seed replays the same run.
- The default scheduler is started by :func:`kubelite.testing.start_default_scheduler` so that
  :func:`kubelite.testing.register_scheduler_plugin` can restart it with the user's plugins.
- When a test using the fixture fails (in setup, call or teardown), its report gains a ``kubelite``
  section: the seed, the command that replays it, and the cluster's Events as
  ``kubectl get events -A --sort-by=.metadata.creationTimestamp`` prints them. The seed is also recorded
  as the ``kubelite_seed`` user property (JUnit XML).
- ``kubelite_server`` / ``kubelite_kubeconfig``: the test's cluster served over HTTPS on a loopback port in
  the test's loop (``cluster.serve(tls=True)``), and a token kubeconfig for it set as ``KUBECONFIG``.
- Never silent: after the test, the fixture fails it (an error in teardown) if its cluster recorded any
  unexpected component error (``cluster.errors``: a reconcile that raised something other than an
  ``ApiError``, an informer event handler that raised, a component that died), listing each one. A test
  that provokes such errors on purpose opts out with ``@pytest.mark.kubelite_allow_errors``. A component
  that died also fails the test through the cluster's exit.
- Importing this module imports neither the control plane nor asyncio machinery beyond pytest's own:
  the cluster is imported when the fixture first runs.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Generator
from typing import Any

import pytest

from kubelite.testing import fuzzing as _fuzz_plugin
from kubelite.testing.fuzzing import kubelite_fuzz

__all__ = ["kubelite_cluster", "kubelite_fuzz", "kubelite_kubeconfig", "kubelite_server", "seed_for"]

#: at most this many events go into a failure report (the latest ones)
MAX_REPORTED_EVENTS = 200


def seed_for(nodeid: str) -> int:
    """The default seed of a test: CRC-32 of its node id."""
    return zlib.crc32(nodeid.encode())


class _State:
    __slots__ = ("cluster", "seed")

    def __init__(self, seed: int, cluster: Any) -> None:
        self.seed = seed
        self.cluster = cluster


_STATE = pytest.StashKey[_State]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kubelite")
    group.addoption("--kubelite-seed", type=int, default=None, metavar="N",
                    help="Seed every kubelite_cluster with N (default: a hash of the test id).")
    _fuzz_plugin.addoption(group)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "kubelite(**options): options of the kubelite_cluster fixture (Cluster keywords, seed=)")
    config.addinivalue_line(
        "markers", "kubelite_allow_errors: do not fail the test when its kubelite_cluster logged component errors")
    _fuzz_plugin.configure(config)


def pytest_report_header(config: pytest.Config) -> str | None:
    seed = config.getoption("--kubelite-seed", None)
    return None if seed is None else f"kubelite: every cluster seeded with {seed}"


def _fixture(fn: Any) -> Any:
    # pytest-asyncio's decorator makes the fixture work in its strict mode too
    try:
        import pytest_asyncio
    except ImportError:  # pragma: no cover - the fixture then needs another async plugin
        return pytest.fixture(fn)
    return pytest_asyncio.fixture(fn)


@_fixture
async def kubelite_cluster(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    """A fresh cluster on virtual time for this test (see the module docstring)."""
    from kubelite.cluster import Cluster
    from kubelite.testing.helpers import start_default_scheduler

    marker = request.node.get_closest_marker("kubelite")
    options: dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
    seed = options.pop("seed", None)
    if seed is None:
        seed = request.config.getoption("--kubelite-seed", None)
    if seed is None:
        seed = seed_for(request.node.nodeid)
    want_scheduler = options.pop("scheduler", True)
    cluster = Cluster(seed=seed, scheduler=False, **options)
    request.node.stash[_STATE] = _State(seed, cluster)
    request.node.user_properties.append(("kubelite_seed", seed))
    async with cluster:
        if want_scheduler:
            await start_default_scheduler(cluster)
        await cluster.settle()
        yield cluster
    errors = cluster.errors.errors
    if errors and request.node.get_closest_marker("kubelite_allow_errors") is None:
        lines = [f"- {e.component}: {e.error}" + "".join(f" {k}={v}" for k, v in e.context.items()) for e in errors]
        pytest.fail(f"the cluster logged {len(errors)} unexpected component error(s) (mark the test "
                    f"@pytest.mark.kubelite_allow_errors if they are expected):\n" + "\n".join(lines[:20]),
                    pytrace=False)


@_fixture
async def kubelite_server(kubelite_cluster: Any, tmp_path: Any) -> AsyncIterator[Any]:
    """The test's cluster served over HTTPS on a loopback port, in the test's event loop (so the code under
    test runs on the cluster's virtual clock). The value is the URL (a ``str``) with ``.token``, ``.ca_file``
    and ``.kubeconfig`` (a token kubeconfig in the test's tmp_path)."""
    async with kubelite_cluster.serve(tls=True, kubeconfig=tmp_path / "kubeconfig") as url:
        yield url


@pytest.fixture
def kubelite_kubeconfig(kubelite_server: Any, monkeypatch: pytest.MonkeyPatch) -> str:
    """The path of a kubeconfig for ``kubelite_server``, also set as ``KUBECONFIG`` for the test (kubectl,
    ``kubernetes.config.load_kube_config()``, kopf, lightkube and kr8s pick it up)."""
    path = str(kubelite_server.kubeconfig)
    monkeypatch.setenv("KUBECONFIG", path)
    return path


def _events_table(cluster: Any) -> str:
    """The cluster's Events, read synchronously from its store (the hook cannot await)."""
    from kubelite.kubectl import print_table

    try:
        table = cluster.store.table("", "events")
    except KeyError:
        return "No resources found\n"
    events = [o.decode() for o in table.objects.values()]
    events.sort(key=lambda e: ((e.get("metadata") or {}).get("creationTimestamp") or "",
                               (e.get("metadata") or {}).get("namespace") or "", (e.get("metadata") or {}).get("name")))
    dropped = max(0, len(events) - MAX_REPORTED_EVENTS)
    text = print_table("events", events[dropped:], now=cluster.clock.now(), all_namespaces=True,
                       sort_by=".metadata.creationTimestamp") or "No resources found\n"
    return (f"({dropped} earlier events not shown)\n" if dropped else "") + text


def _section(state: _State, item: pytest.Item) -> str:
    lines = [f"seed: {state.seed}", f"replay: pytest --kubelite-seed={state.seed} '{item.nodeid}'"]
    try:
        lines.append(f"cluster time: {state.cluster.clock.now() - _epoch():.1f}s")
        lines.append("")
        lines.append("events (kubectl get events -A --sort-by=.metadata.creationTimestamp):")
        lines.append(_events_table(state.cluster).rstrip("\n"))
    except Exception as e:  # never let the report hide the test's own failure
        lines.append(f"(events unavailable: {e!r})")
    return "\n".join(lines) + "\n"


def _epoch() -> float:
    from kubelite.clock import EPOCH

    return EPOCH


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    state = item.stash.get(_STATE, None)
    if state is not None and report.failed:
        report.sections.append(("kubelite", _section(state, item)))
    return report
