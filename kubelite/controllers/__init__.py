"""Controllers: the controller-runtime-shaped machinery (this package's modules) and, in later issues,
kubelite's built-in controllers. ``kubelite.controllers.reconcile`` is the user contract."""

from kubelite.controllers.controller import Controller, ControllerStatistics
from kubelite.controllers.expectations import ControllerExpectations, UIDTrackingControllerExpectations
from kubelite.controllers.handler import (
    EnqueueRequestForObject,
    EnqueueRequestForOwner,
    EnqueueRequestsFromMapFunc,
    EventHandler,
)
from kubelite.controllers.manager import Builder, Manager
from kubelite.controllers.predicate import (
    AnnotationChangedPredicate,
    Funcs,
    GenerationChangedPredicate,
    LabelChangedPredicate,
    Predicate,
    ResourceVersionChangedPredicate,
)
from kubelite.controllers.reconcile import Reconciler, Request, Result, TerminalError, as_reconciler

__all__ = [
    "AnnotationChangedPredicate",
    "Builder",
    "Controller",
    "ControllerExpectations",
    "ControllerStatistics",
    "EnqueueRequestForObject",
    "EnqueueRequestForOwner",
    "EnqueueRequestsFromMapFunc",
    "EventHandler",
    "Funcs",
    "GenerationChangedPredicate",
    "LabelChangedPredicate",
    "Manager",
    "Predicate",
    "Reconciler",
    "Request",
    "ResourceVersionChangedPredicate",
    "Result",
    "TerminalError",
    "UIDTrackingControllerExpectations",
    "as_reconciler",
]
