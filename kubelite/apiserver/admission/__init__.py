"""Admission: the mutating and validating plugin chains, built-in plugins and user hooks."""

from kubelite.apiserver.admission.chain import (
    AdmissionChain,
    AdmissionDenied,
    AdmissionHook,
    AdmissionPlugin,
    ObjectReader,
)

__all__ = ["AdmissionChain", "AdmissionDenied", "AdmissionHook", "AdmissionPlugin", "ObjectReader"]
