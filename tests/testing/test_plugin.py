"""The pytest plugin, run in throwaway pytest sessions through ``pytester``."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

# pytester's runs keep the library modules they import (tests/conftest.py), so nothing is imported here for them
from kubelite.testing import seed_for

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
ARGS = ("-p", "kubelite.testing.plugin", "-p", "no:cacheprovider", "-o", "asyncio_mode=auto",
        "-o", "asyncio_default_fixture_loop_scope=function")


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess(*ARGS, *args)


def test_seed_is_the_crc32_of_the_test_id() -> None:
    assert seed_for("test_a.py::test_x") == zlib.crc32(b"test_a.py::test_x")
    assert seed_for("test_a.py::test_x") != seed_for("test_a.py::test_y")


def test_each_test_gets_a_fresh_cluster_seeded_from_its_id(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_seeds="""
        import zlib
        SEEN = []

        async def test_one(kubelite_cluster):
            assert kubelite_cluster.seed == zlib.crc32(b"test_seeds.py::test_one")
            await kubelite_cluster.client.create({"apiVersion": "v1", "kind": "ConfigMap",
                                                  "metadata": {"name": "x", "namespace": "default"}})
            SEEN.append(kubelite_cluster)

        async def test_two(kubelite_cluster):
            assert kubelite_cluster.seed == zlib.crc32(b"test_seeds.py::test_two")
            assert kubelite_cluster is not SEEN[0]
            assert await kubelite_cluster.client.list("configmaps", namespace="default") == []
    """)
    run(pytester).assert_outcomes(passed=2)


def test_command_line_seed_overrides_and_marker_seed_wins(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_opt="""
        import pytest

        async def test_cli(kubelite_cluster):
            assert kubelite_cluster.seed == 42

        @pytest.mark.kubelite(seed=7)
        async def test_marker(kubelite_cluster):
            assert kubelite_cluster.seed == 7
    """)
    result = run(pytester, "--kubelite-seed", "42")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["kubelite: every cluster seeded with 42"])


def test_marker_options_reach_the_cluster(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_marker="""
        import pytest

        @pytest.mark.kubelite(nodes=3, controllers=["replicaset"])
        async def test_nodes(kubelite_cluster):
            nodes = await kubelite_cluster.client.list("nodes")
            assert [n["metadata"]["name"] for n in nodes] == ["node-0", "node-1", "node-2"]
            assert kubelite_cluster.controllers_started == ["replicaset"]
            assert kubelite_cluster.scheduler is not None

        @pytest.mark.kubelite(scheduler=False, controllers=False)
        async def test_no_scheduler(kubelite_cluster):
            assert kubelite_cluster.scheduler is None
    """)
    run(pytester).assert_outcomes(passed=2)


def test_a_failure_reports_the_seed_and_the_events(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fail="""
        import pytest

        @pytest.mark.kubelite(nodes=1)
        async def test_pod_never_fits(kubelite_cluster):
            await kubelite_cluster.client.create({
                "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "big", "namespace": "default"},
                "spec": {"containers": [{"name": "c", "image": "nginx:1.25",
                                         "resources": {"requests": {"cpu": "64"}}}]}})

            async def running():
                pod = await kubelite_cluster.client.get("pods", "big", namespace="default")
                return pod["status"].get("phase") == "Running"

            await kubelite_cluster.wait_for(running, timeout=5)

        async def test_passes(kubelite_cluster):
            assert kubelite_cluster.now > 0
    """)
    result = run(pytester, "-rA")
    result.assert_outcomes(failed=1, passed=1)
    assert "test_fail.py::test_passes'" not in result.stdout.str()  # no replay line for a passing test
    seed = seed_for("test_fail.py::test_pod_never_fits")
    result.stdout.fnmatch_lines([
        "*- kubelite -*",
        f"seed: {seed}",
        f"replay: pytest --kubelite-seed={seed} 'test_fail.py::test_pod_never_fits'",
        "*NAMESPACE*LAST SEEN*TYPE*REASON*OBJECT*MESSAGE*",
        "*Warning*FailedScheduling*pod/big*Insufficient cpu*",
    ])


def test_helpers_load_manifests_crds_reconcilers_and_scheduler_plugins(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_helpers='''
        import pytest
        from kubelite.scheduler.framework.status import UNSCHEDULABLE, Status
        from kubelite.testing import install_crds, load_manifests, register_reconciler, register_scheduler_plugin

        CRD = """
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: greetings.example.com}
        spec:
          group: example.com
          scope: Namespaced
          names: {kind: Greeting, plural: greetings, singular: greeting}
          versions:
            - name: v1
              served: true
              storage: true
              schema:
                openAPIV3Schema:
                  type: object
                  properties:
                    apiVersion: {type: string}
                    kind: {type: string}
                    metadata: {type: object}
                    spec: {type: object, properties: {text: {type: string}}}
        """

        @pytest.mark.kubelite(nodes=0, controllers=False)
        async def test_reconciler(kubelite_cluster):
            c = kubelite_cluster
            crds = await install_crds(c, CRD)
            assert crds[0]["metadata"]["name"] == "greetings.example.com"
            seen = []

            async def reconcile(request):
                seen.append(request.name)
                g = await c.client.get("greetings.example.com", request.name, namespace=request.namespace)
                await c.client.apply({"apiVersion": "v1", "kind": "ConfigMap",
                                      "metadata": {"name": request.name, "namespace": request.namespace},
                                      "data": {"text": g["spec"]["text"]}}, field_manager="greeter", force=True)

            await register_reconciler(c, "greeter", reconcile, for_="greetings.example.com")
            await load_manifests(c, "apiVersion: example.com/v1\\nkind: Greeting\\nmetadata: {name: hi}\\n"
                                    "spec: {text: hello}\\n---\\n"
                                    "apiVersion: example.com/v1\\nkind: Greeting\\nmetadata: {name: yo}\\n"
                                    "spec: {text: hey}\\n", namespace="default")

            async def done():
                return len(await c.client.list("configmaps", namespace="default")) == 2

            await c.wait_for(done, timeout=5)
            assert sorted(set(seen)) == ["hi", "yo"]

        class AvoidNode0:
            name = "AvoidNode0"

            def filter(self, state, pod, node):
                return Status(UNSCHEDULABLE, "node-0 is avoided") if node.name == "node-0" else None

        @pytest.mark.kubelite(nodes=2)
        async def test_scheduler_plugin(kubelite_cluster):
            c = kubelite_cluster
            await register_scheduler_plugin(c, "AvoidNode0", lambda args, handle: AvoidNode0())
            for i in range(4):
                await c.client.create({"apiVersion": "v1", "kind": "Pod",
                                       "metadata": {"name": f"p{i}", "namespace": "default"},
                                       "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}})

            async def bound():
                pods = await c.client.list("pods", namespace="default")
                return all(p["spec"].get("nodeName") for p in pods) and pods

            pods = await c.wait_for(bound, timeout=10)
            assert {p["spec"]["nodeName"] for p in pods} == {"node-1"}
    ''')
    run(pytester).assert_outcomes(passed=2)


def test_the_example_operator_tests_pass(pytester: pytest.Pytester) -> None:
    for name in ("crd.yaml", "webapp_operator.py", "test_webapp.py"):
        shutil.copy(ROOT / "examples" / "webapp" / name, pytester.path / name)
    pytester.syspathinsert(pytester.path)
    run(pytester, "-p", "no:randomly").assert_outcomes(passed=6)


def test_importing_the_plugin_imports_nothing_beyond_the_kubelite_package() -> None:
    """The plugin adds no component (scheduler, controllers, kubelet, kubectl printers) to what
    ``import kubelite`` already loads; those come when a fixture or helper first runs."""
    code = ("import sys, pytest, kubelite; before = set(sys.modules); import kubelite.testing.plugin, kubelite.testing; "
            "print(sorted(m for m in set(sys.modules) - before if m.startswith('kubelite.') and not m.startswith('kubelite.testing')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_public_api() -> None:
    import kubelite.testing as t

    assert set(t.__all__) == {"install_crds", "load_manifests", "reconciler_manager", "register_reconciler",
                              "register_scheduler_plugin",
                              "seed_for", "start_default_scheduler"}
    assert all(hasattr(t, name) for name in t.__all__)


def test_a_cluster_that_logged_a_component_error_fails_its_test_unless_marked(pytester: pytest.Pytester) -> None:
    """Never silent: a reconcile bug retried forever used to leave the test green (issue #15)."""
    pytester.makepyfile(test_errors="""
        import pytest
        from kubelite.testing import register_reconciler

        async def buggy(req):
            raise KeyError("spec")

        async def start(cluster):
            await register_reconciler(cluster, "buggy", buggy, for_="configmaps")
            await cluster.client.create({"apiVersion": "v1", "kind": "ConfigMap",
                                         "metadata": {"name": "x", "namespace": "default"}})
            await cluster.advance(1)

        @pytest.mark.kubelite(nodes=0, network=False)
        async def test_unmarked(kubelite_cluster):
            await start(kubelite_cluster)

        @pytest.mark.kubelite_allow_errors
        @pytest.mark.kubelite(nodes=0, network=False)
        async def test_marked(kubelite_cluster):
            await start(kubelite_cluster)
            assert kubelite_cluster.errors.errors[0].component == "controller/buggy"

        @pytest.mark.kubelite(nodes=0, network=False)
        async def test_clean(kubelite_cluster):
            await kubelite_cluster.advance(1)
    """)
    result = run(pytester)
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(["*unexpected component error*", "*controller/buggy: KeyError: 'spec'*"])
