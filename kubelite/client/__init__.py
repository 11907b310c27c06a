"""The async client: the only way components reach the apiserver."""

from kubelite.client.client import CascadeType, Client, ObjectList, PatchType, WatchStream, ignore_not_found

__all__ = ["CascadeType", "Client", "ObjectList", "PatchType", "WatchStream", "ignore_not_found"]
