"""The certificates controllers of kube-controller-manager (``pkg/controller/certificates``): the signer
(``csrsigning``) and the cleaner (``csrcleaner``), with the cluster signing authority they share."""
