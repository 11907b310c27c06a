"""The verbs, one module each (upstream's ``k8s.io/apiserver/pkg/endpoints/handlers``): what a verb does
between the request entry point (authorization of the request's own verb, resolution of the REST object)
and the generic store. Each function takes the :class:`~kubelite.apiserver.scope.Scope`, the resource, the
strategy of the endpoint (the resource's or its ``/status``) and the :class:`~kubelite.apiserver.request.Request`.
"""
