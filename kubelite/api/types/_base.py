"""The base class and shared aliases of every generated Struct (hand-written, not generated).

Contract:
- Every generated Struct subclasses :class:`K8sStruct`: keyword-only construction, unknown JSON
  fields rejected on decode (upstream's strict decoding), and fields left at their default
  omitted on encode, so an object encodes to exactly the keys that were set.
- Every field defaults to ``None`` so that any manifest kubectl accepts decodes; missing required
  fields are reported later by validation (422 ``Required value``), as upstream does. The only
  exception is ``apiVersion``/``kind`` of a top-level kind, which default (through a factory, so
  ``omit_defaults`` still encodes them) to the kind's own values.
- Structs are mutable on purpose: the apiserver and controllers work on private copies decoded from
  the store's bytes; nobody shares a decoded object.
- A field whose JSON name is not its attribute name carries ``msgspec.field(name=...)`` with the
  exact JSON key (``podIPs``, ``x-kubernetes-list-type``, ``$ref``); Python keywords get a
  trailing underscore (``continue_``, ``not_``).
"""

from __future__ import annotations

from typing import TypeAlias

import msgspec

__all__ = ["IntOrString", "K8sStruct", "Quantity"]

# resource.Quantity: upstream serializes it as a string ("500m", "1Gi"), but accepts JSON numbers.
Quantity: TypeAlias = str | int | float
# intstr.IntOrString: a port number or name, a count or a percentage ("25%").
IntOrString: TypeAlias = int | str


class K8sStruct(msgspec.Struct, kw_only=True, omit_defaults=True, forbid_unknown_fields=True, gc=False):
    """Base of every generated Kubernetes object type.

    ``omit_defaults``, ``forbid_unknown_fields`` and ``gc=False`` are inherited; ``kw_only`` applies only
    to the fields a class defines itself, so every subclass repeats ``kw_only=True``.

    ``gc=False``: API objects are trees (no field can refer back to an ancestor), so instances need no
    cyclic-GC tracking. Informer caches hold tens of thousands of them, and tracking them made full
    collections the largest cost of an informer. Do not build reference cycles through these objects.
    """
