"""Controllers: the controller-runtime-shaped machinery (this package's modules) and kubelite's built-in
controllers. ``kubelite.controllers.reconcile`` is the user contract; this package's ``__all__`` is the
promised API for operator authors: the Manager and its builder, handlers and predicates, the
cache-backed reader, ``controllerutil``'s reference/finalizer/CreateOrUpdate helpers, apimachinery's
status-condition helpers and ``ignore_not_found``."""

from kubelite.api.conditions import (
    find_status_condition,
    is_status_condition_false,
    is_status_condition_present_and_equal,
    is_status_condition_true,
    remove_status_condition,
    set_status_condition,
)
from kubelite.client import ignore_not_found
from kubelite.controllers.cache import CacheReader
from kubelite.controllers.controller import Controller, ControllerHealth, ControllerStatistics
from kubelite.controllers.controllerutil import (
    AlreadyOwnedError,
    OperationResult,
    add_finalizer,
    contains_finalizer,
    create_or_patch,
    create_or_update,
    has_controller_reference,
    has_owner_reference,
    remove_controller_reference,
    remove_finalizer,
    remove_owner_reference,
    set_controller_reference,
    set_owner_reference,
)
from kubelite.controllers.expectations import ControllerExpectations, UIDTrackingControllerExpectations
from kubelite.controllers.handler import (
    EnqueueRequestForObject,
    EnqueueRequestForOwner,
    EnqueueRequestsFromMapFunc,
    EventHandler,
)
from kubelite.controllers.manager import Builder, Manager, ManagerHealth
from kubelite.controllers.predicate import (
    AnnotationChangedPredicate,
    Funcs,
    GenerationChangedPredicate,
    LabelChangedPredicate,
    Predicate,
    ResourceVersionChangedPredicate,
)
from kubelite.controllers.reconcile import (
    Reconciler,
    Request,
    Result,
    TerminalError,
    TransientError,
    as_reconciler,
)

__all__ = [
    "AlreadyOwnedError",
    "AnnotationChangedPredicate",
    "Builder",
    "CacheReader",
    "Controller",
    "ControllerExpectations",
    "ControllerHealth",
    "ControllerStatistics",
    "EnqueueRequestForObject",
    "EnqueueRequestForOwner",
    "EnqueueRequestsFromMapFunc",
    "EventHandler",
    "Funcs",
    "GenerationChangedPredicate",
    "LabelChangedPredicate",
    "Manager",
    "ManagerHealth",
    "OperationResult",
    "Predicate",
    "Reconciler",
    "Request",
    "ResourceVersionChangedPredicate",
    "Result",
    "TerminalError",
    "TransientError",
    "UIDTrackingControllerExpectations",
    "add_finalizer",
    "as_reconciler",
    "contains_finalizer",
    "create_or_patch",
    "create_or_update",
    "find_status_condition",
    "has_controller_reference",
    "has_owner_reference",
    "ignore_not_found",
    "is_status_condition_false",
    "is_status_condition_present_and_equal",
    "is_status_condition_true",
    "remove_controller_reference",
    "remove_finalizer",
    "remove_owner_reference",
    "remove_status_condition",
    "set_controller_reference",
    "set_owner_reference",
    "set_status_condition",
]
