"""Runs that leave the caller's process — `tl.evaluate`'s rows, non-blocking children,
`thread.queue` — as Ray tasks (`tl.RayEngine`): each opens its thread from the store, runs it
and persists it there, exactly as in one process. Extra `threadlab[ray]`."""

from ._ray_engine import RayEngine

__all__ = ["RayEngine"]
