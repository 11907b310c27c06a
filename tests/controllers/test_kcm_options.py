"""``controller_options`` as kube-controller-manager treats its flags: a key no controller reads is an error at
start-up, never silently ignored (before, only the HPA checked its keys; ``{"job": {"wokers": 3}}`` ran with
the default 5 workers and no word)."""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import pytest

import kubelite
from kubelite.controllers.kcm import CONTROLLERS, check_options

NAMES = sorted(CONTROLLERS)


@pytest.mark.parametrize("controller", NAMES, ids=NAMES)
def test_an_unknown_key_is_rejected_for_every_controller(controller: str) -> None:
    with pytest.raises(ValueError, match=rf"unknown {controller} controller options \['wokers'\] \(it takes: "):
        check_options({controller: {"wokers": 3}})


@pytest.mark.parametrize("controller", NAMES, ids=NAMES)
def test_every_declared_option_is_read_by_its_controller(controller: str) -> None:
    """A declared key the module never reads would be accepted and ignored: the very bug, one level down."""
    module = importlib.import_module(CONTROLLERS[controller])
    declared = getattr(module, "OPTIONS", frozenset())
    check_options({controller: dict.fromkeys(declared)})  # every declared key is accepted
    if controller == "nodelifecycle":  # its keys are NodeLifecycleConfig's fields, passed through whole
        from kubelite.controllers.nodelifecycle import NodeLifecycleConfig

        assert declared == {*NodeLifecycleConfig.__struct_fields__, "workers"}
        return
    source = inspect.getsource(module)
    if controller == "replicationcontroller":  # it registers through the ReplicaSet controller's code
        source = inspect.getsource(importlib.import_module(CONTROLLERS["replicaset"]))
    assert [k for k in sorted(declared) if f'"{k}"' not in source.split("OPTIONS = ", 1)[-1]] == []


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"replicasets": {"workers": 2}}, r"controller_options names unknown controller 'replicasets' \(known: "),
        ({"job": 3}, r"controller_options\['job'\] must be a mapping of option names, got int"),
        ({"horizontalpodautoscaling": {"metrics": object()}},
         r"unknown horizontalpodautoscaling controller options \['metrics'\] \(it takes: workers\)"),
        ({"serviceaccount": {"workers": 1}}, r"unknown serviceaccount controller options \['workers'\] "
                                             r"\(it takes: no options\)"),
    ],
    ids=["unknown-controller", "not-a-mapping", "hpa-old-metrics-option", "controller-without-options"],
)
def test_bad_sections(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_options(options)


async def test_the_cluster_refuses_to_start_and_checks_controllers_it_does_not_run() -> None:
    with pytest.raises(ValueError, match=r"unknown job controller options \['wokers'\]"):
        async with kubelite.Cluster(seed=1, controllers=["replicaset"], controller_options={"job": {"wokers": 3}}):
            pass
    async with kubelite.Cluster(seed=1, controllers=["replicaset"],
                                controller_options={"job": {"workers": 3}, "replicaset": {"burst_replicas": 10}}) as c:
        assert c.controllers_started == ["replicaset"]
