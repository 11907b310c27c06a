"""Generated msgspec Structs for apiextensions/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial
from typing import Any

import msgspec

from kubelite.api.types import meta_v1
from kubelite.api.types._base import K8sStruct

__all__ = [
    "CustomResourceColumnDefinition", "CustomResourceConversion", "CustomResourceDefinition",
    "CustomResourceDefinitionCondition", "CustomResourceDefinitionNames",
    "CustomResourceDefinitionSpec", "CustomResourceDefinitionStatus",
    "CustomResourceDefinitionVersion", "CustomResourceSubresourceScale",
    "CustomResourceSubresourceStatus", "CustomResourceSubresources", "CustomResourceValidation",
    "ExternalDocumentation", "JSONSchemaProps", "SelectableField", "ServiceReference",
    "ValidationRule", "WebhookClientConfig", "WebhookConversion"
]


class CustomResourceColumnDefinition(K8sStruct, kw_only=True):
    """CustomResourceColumnDefinition specifies a column for server side printing."""

    description: str | None = None
    format: str | None = None
    json_path: str | None = msgspec.field(default=None, name="jsonPath")
    name: str | None = None
    priority: int | None = None
    type: str | None = None


class CustomResourceConversion(K8sStruct, kw_only=True):
    """CustomResourceConversion describes how to convert different versions of a CR."""

    strategy: str | None = None
    webhook: WebhookConversion | None = None


class CustomResourceDefinition(K8sStruct, kw_only=True):
    """CustomResourceDefinition represents a resource that should be exposed on the API server."""

    api_version: str = msgspec.field(default_factory=partial(str, "apiextensions.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "CustomResourceDefinition"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: CustomResourceDefinitionSpec | None = None
    status: CustomResourceDefinitionStatus | None = None


class CustomResourceDefinitionCondition(K8sStruct, kw_only=True):
    """CustomResourceDefinitionCondition contains details for the current condition of this pod."""

    last_transition_time: str | None = msgspec.field(default=None, name="lastTransitionTime")
    message: str | None = None
    observed_generation: int | None = msgspec.field(default=None, name="observedGeneration")
    reason: str | None = None
    status: str | None = None
    type: str | None = None


class CustomResourceDefinitionNames(K8sStruct, kw_only=True):
    """CustomResourceDefinitionNames indicates the names to serve this CustomResourceDefinition"""

    categories: list[str] | None = None
    kind: str | None = None
    list_kind: str | None = msgspec.field(default=None, name="listKind")
    plural: str | None = None
    short_names: list[str] | None = msgspec.field(default=None, name="shortNames")
    singular: str | None = None


class CustomResourceDefinitionSpec(K8sStruct, kw_only=True):
    """CustomResourceDefinitionSpec describes how a user wants their resource to appear"""

    conversion: CustomResourceConversion | None = None
    group: str | None = None
    names: CustomResourceDefinitionNames | None = None
    preserve_unknown_fields: bool | None = msgspec.field(default=None, name="preserveUnknownFields")
    scope: str | None = None
    versions: list[CustomResourceDefinitionVersion] | None = None


class CustomResourceDefinitionStatus(K8sStruct, kw_only=True):
    """CustomResourceDefinitionStatus indicates the state of the CustomResourceDefinition"""

    accepted_names: CustomResourceDefinitionNames | None = msgspec.field(default=None, name="acceptedNames")
    conditions: list[CustomResourceDefinitionCondition] | None = None
    observed_generation: int | None = msgspec.field(default=None, name="observedGeneration")
    stored_versions: list[str] | None = msgspec.field(default=None, name="storedVersions")


class CustomResourceDefinitionVersion(K8sStruct, kw_only=True):
    """CustomResourceDefinitionVersion describes a version for CRD."""

    additional_printer_columns: list[CustomResourceColumnDefinition] | None = msgspec.field(default=None, name="additionalPrinterColumns")
    deprecated: bool | None = None
    deprecation_warning: str | None = msgspec.field(default=None, name="deprecationWarning")
    name: str | None = None
    schema: CustomResourceValidation | None = None
    selectable_fields: list[SelectableField] | None = msgspec.field(default=None, name="selectableFields")
    served: bool | None = None
    storage: bool | None = None
    subresources: CustomResourceSubresources | None = None


class CustomResourceSubresourceScale(K8sStruct, kw_only=True):
    """CustomResourceSubresourceScale defines how to serve the scale subresource for CustomResources."""

    label_selector_path: str | None = msgspec.field(default=None, name="labelSelectorPath")
    spec_replicas_path: str | None = msgspec.field(default=None, name="specReplicasPath")
    status_replicas_path: str | None = msgspec.field(default=None, name="statusReplicasPath")


class CustomResourceSubresourceStatus(K8sStruct, kw_only=True):
    """CustomResourceSubresourceStatus defines how to serve the status subresource for CustomResources."""

    pass


class CustomResourceSubresources(K8sStruct, kw_only=True):
    """CustomResourceSubresources defines the status and scale subresources for CustomResources."""

    scale: CustomResourceSubresourceScale | None = None
    status: CustomResourceSubresourceStatus | None = None


class CustomResourceValidation(K8sStruct, kw_only=True):
    """CustomResourceValidation is a list of validation methods for CustomResources."""

    open_api_v3_schema: JSONSchemaProps | None = msgspec.field(default=None, name="openAPIV3Schema")


class ExternalDocumentation(K8sStruct, kw_only=True):
    """ExternalDocumentation allows referencing an external resource for extended documentation."""

    description: str | None = None
    url: str | None = None


class JSONSchemaProps(K8sStruct, kw_only=True):
    """JSONSchemaProps is a JSON-Schema following Specification Draft 4 (http://json-schema.org/)."""

    ref: str | None = msgspec.field(default=None, name="$ref")
    schema: str | None = msgspec.field(default=None, name="$schema")
    additional_items: JSONSchemaProps | bool | None = msgspec.field(default=None, name="additionalItems")
    additional_properties: JSONSchemaProps | bool | None = msgspec.field(default=None, name="additionalProperties")
    all_of: list[JSONSchemaProps] | None = msgspec.field(default=None, name="allOf")
    any_of: list[JSONSchemaProps] | None = msgspec.field(default=None, name="anyOf")
    default: Any = None
    definitions: dict[str, JSONSchemaProps] | None = None
    dependencies: dict[str, JSONSchemaProps | list[str]] | None = None
    description: str | None = None
    enum: list[Any] | None = None
    example: Any = None
    exclusive_maximum: bool | None = msgspec.field(default=None, name="exclusiveMaximum")
    exclusive_minimum: bool | None = msgspec.field(default=None, name="exclusiveMinimum")
    external_docs: ExternalDocumentation | None = msgspec.field(default=None, name="externalDocs")
    format: str | None = None
    id: str | None = None
    items: JSONSchemaProps | list[JSONSchemaProps] | None = None
    max_items: int | None = msgspec.field(default=None, name="maxItems")
    max_length: int | None = msgspec.field(default=None, name="maxLength")
    max_properties: int | None = msgspec.field(default=None, name="maxProperties")
    maximum: float | None = None
    min_items: int | None = msgspec.field(default=None, name="minItems")
    min_length: int | None = msgspec.field(default=None, name="minLength")
    min_properties: int | None = msgspec.field(default=None, name="minProperties")
    minimum: float | None = None
    multiple_of: float | None = msgspec.field(default=None, name="multipleOf")
    not_: JSONSchemaProps | None = msgspec.field(default=None, name="not")
    nullable: bool | None = None
    one_of: list[JSONSchemaProps] | None = msgspec.field(default=None, name="oneOf")
    pattern: str | None = None
    pattern_properties: dict[str, JSONSchemaProps] | None = msgspec.field(default=None, name="patternProperties")
    properties: dict[str, JSONSchemaProps] | None = None
    required: list[str] | None = None
    title: str | None = None
    type: str | None = None
    unique_items: bool | None = msgspec.field(default=None, name="uniqueItems")
    x_kubernetes_embedded_resource: bool | None = msgspec.field(default=None, name="x-kubernetes-embedded-resource")
    x_kubernetes_int_or_string: bool | None = msgspec.field(default=None, name="x-kubernetes-int-or-string")
    x_kubernetes_list_map_keys: list[str] | None = msgspec.field(default=None, name="x-kubernetes-list-map-keys")
    x_kubernetes_list_type: str | None = msgspec.field(default=None, name="x-kubernetes-list-type")
    x_kubernetes_map_type: str | None = msgspec.field(default=None, name="x-kubernetes-map-type")
    x_kubernetes_preserve_unknown_fields: bool | None = msgspec.field(default=None, name="x-kubernetes-preserve-unknown-fields")
    x_kubernetes_validations: list[ValidationRule] | None = msgspec.field(default=None, name="x-kubernetes-validations")


class SelectableField(K8sStruct, kw_only=True):
    """SelectableField specifies the JSON path of a field that may be used with field selectors."""

    json_path: str | None = msgspec.field(default=None, name="jsonPath")


class ServiceReference(K8sStruct, kw_only=True):
    """ServiceReference holds a reference to Service.legacy.k8s.io"""

    name: str | None = None
    namespace: str | None = None
    path: str | None = None
    port: int | None = None


class ValidationRule(K8sStruct, kw_only=True):
    """ValidationRule describes a validation rule written in the CEL expression language."""

    field_path: str | None = msgspec.field(default=None, name="fieldPath")
    message: str | None = None
    message_expression: str | None = msgspec.field(default=None, name="messageExpression")
    optional_old_self: bool | None = msgspec.field(default=None, name="optionalOldSelf")
    reason: str | None = None
    rule: str | None = None


class WebhookClientConfig(K8sStruct, kw_only=True):
    """WebhookClientConfig contains the information to make a TLS connection with the webhook."""

    ca_bundle: str | None = msgspec.field(default=None, name="caBundle")
    service: ServiceReference | None = None
    url: str | None = None


class WebhookConversion(K8sStruct, kw_only=True):
    """WebhookConversion describes how to call a conversion webhook"""

    client_config: WebhookClientConfig | None = msgspec.field(default=None, name="clientConfig")
    conversion_review_versions: list[str] | None = msgspec.field(default=None, name="conversionReviewVersions")
