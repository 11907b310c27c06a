"""CEL for the apiserver: one environment (:mod:`.environment`) and Kubernetes' CEL library.

Importing this package registers the library with the environment: :mod:`.quantity`, :mod:`.format`,
:mod:`.strings` (strings and regex), :mod:`.lists`, :mod:`.net` (URLs, IPs, CIDRs), :mod:`.optional` and :mod:`.authz` (the policies' ``authorizer``).
CRD validation rules (``apiserver/crd/cel.py``) and ValidatingAdmissionPolicy
(``apiserver/admission/validating_admission_policy.py``) compile and evaluate through it.
"""

from kubelite.apiserver.cel import authz, format, lists, net, optional, quantity, strings  # noqa: F401  (registration)
from kubelite.apiserver.cel.environment import (
    PER_CALL_LIMIT,
    RUNTIME_BUDGET,
    CompileError,
    EvalError,
    OutOfBudget,
    Program,
    compile_expression,
    is_true,
    to_cel,
)

__all__ = [
    "PER_CALL_LIMIT", "RUNTIME_BUDGET", "CompileError", "EvalError", "OutOfBudget", "Program",
    "compile_expression", "is_true", "to_cel",
]
