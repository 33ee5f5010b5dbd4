"""Embedding on a Ray cluster: ``ragcli ingest PATH --tenant T --ray [--ray-address ADDRESS]``.

Only the passages that need new vectors leave this process; discovery,
parsing, chunking, the incremental diff and the atomic publish stay in the
ingest, under the tenant's write lock. The texts go, in batches of
``steps_per_task`` ingest steps, to a pool of Ray actors (``ray.util.ActorPool``,
whose ``map`` returns results in submission order, so rows never move). Each
actor loads the model once: it builds an ``Embedder`` from the driver's
``ModelSpec`` and refuses to start unless the model file's sha256 is the one the
driver records in the manifest, so a Ray ingest and a local one record (and
compute) the same model.

Faults: actors are created with ``max_restarts`` and their calls with
``max_task_retries``, so a worker process that dies mid-job is restarted and
its batch run again; a batch that still fails raises, and the ingest publishes
nothing (the previous generation stays). Ctrl-C stops the run the same way.

Ray is an optional dependency (``pip install 'ragcli[ray]'``); it is imported
only here, and only when ``--ray`` is given.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ..embedder import Embedder, ModelSpec, default_spec
from ..errors import InputError, ModelError, RagcliError, os_reason
from ..passage import Passage
from ..units import Embedded, embed_passages

if TYPE_CHECKING:
    pass

RAY_INSTALL = "pip install 'ragcli[ray]'"
STEPS_PER_TASK = 4
"""Ingest steps (``embedding.EMBED_STEP`` passages each) per Ray task: big
enough to hide the call overhead, small enough for progress and retries."""
MAX_RESTARTS = 3
"""Times an actor whose process died is started again (and its batch retried) before the ingest fails."""


def require_ray() -> Any:
    """The ``ray`` module, or the one-line error that says how to install it."""
    try:
        import ray
    except ImportError:
        raise InputError(f"--ray needs Ray, which is not installed: {RAY_INSTALL}") from None
    return ray


class _EmbedActor:
    """One model per actor, loaded in the constructor; made a Ray actor class in ``RayEmbedding._actor_class``."""

    def __init__(self, spec: ModelSpec, sha256: str, threads: int) -> None:
        # A model that cannot be used is reported by ``ready``, not raised here: Ray would
        # retry a failed constructor's calls and print each traceback on the driver.
        self.error: str | None = None
        try:
            spec = _local_spec(spec)
            self.embedder = Embedder(spec, threads=threads)
            actual = self.embedder.sha256  # verified against spec.expected_sha256 when the spec has one
            if actual != sha256:
                raise ModelError(
                    f"the embedding model on Ray node {_node()} ({spec.onnx_path}) has sha256 {actual[:12]}…, "
                    f"the ingest records {sha256[:12]}…: install the same model package on every node"
                )
            _ = self.embedder.dim  # open the ONNX session now, not on the first batch
        except RagcliError as exc:
            self.error = exc.message

    def ready(self) -> tuple[int, str | None]:
        """This worker's process id, and why its model cannot be used (None: it can)."""
        return os.getpid(), self.error

    def embed(self, steps: list[list[Passage]]) -> list[Embedded]:
        """Per step, the passage and unit vectors, computed exactly as a local ingest computes them
        (``units.embed_passages``)."""
        if self.error is not None:
            raise ModelError(self.error)
        return [embed_passages(self.embedder, step) for step in steps]


def _local_spec(spec: ModelSpec) -> ModelSpec:
    """The driver's spec, or on a node where the bundled model lives
    elsewhere, this node's copy of it (checked by sha256 after)."""
    if spec.onnx_path.is_file() and spec.tokenizer_path.is_file():
        return spec
    if spec.expected_sha256:
        here = default_spec()
        if here.model_id == spec.model_id:
            return here
    raise ModelError(
        f"the embedding model {spec.onnx_path} is missing on Ray node {_node()}: "
        "install ragcli and the same model package on every node"
    )


def _node() -> str:
    import socket

    return socket.gethostname()


class RayEmbedding:
    """An ``EmbeddingBackend`` (see ``embedding``) that embeds on a Ray cluster; use it as a context manager.

    ``address=None`` starts a local Ray instance with this machine's CPUs (or
    uses the one already started in this process); an address joins a running
    cluster (``ray.init(address=...)``: ``auto`` or ``HEAD:6379``, from a node of that cluster).
    Ray is started and the actors are created on the first batch, so an ingest
    with nothing to embed never pays for it.
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        actors: int | None = None,
        cpus_per_actor: int = 1,
        steps_per_task: int = STEPS_PER_TASK,
        max_restarts: int = MAX_RESTARTS,
        num_cpus: int | None = None,
    ) -> None:
        self.ray = require_ray()
        self.address = address
        self.actors = actors
        self.cpus_per_actor = max(1, cpus_per_actor)
        self.steps_per_task = max(1, steps_per_task)
        self.max_restarts = max_restarts
        self.num_cpus = num_cpus
        self._started = False
        self._handles: list[Any] = []
        self.pids: list[int] = []
        """Process ids of the actors as first started (a restarted actor gets a new one; see ``actor_pids``)."""

    def __enter__(self) -> RayEmbedding:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- cluster ----------------------------------------------------------------

    def _connect(self) -> None:
        ray = self.ray
        if ray.is_initialized():
            return
        quiet = {"logging_level": logging.ERROR, "log_to_driver": False, "include_dashboard": False}
        if self.address:
            _check_reachable(self.address)
        try:
            if self.address:
                ray.init(address=self.address, **quiet)
            else:
                # "local": a new instance of our own, even when RAY_ADDRESS or a `ray start` cluster exists.
                ray.init(address="local", num_cpus=self.num_cpus or os.cpu_count() or 1, **quiet)
        except ConnectionError as exc:
            raise InputError(f"cannot join the Ray cluster at {self.address}: {_first_line(exc)}") from None
        except (RuntimeError, ValueError) as exc:
            raise InputError(f"cannot start Ray: {_first_line(exc)}") from None
        self._started = True

    def _actor_class(self) -> Any:
        return self.ray.remote(
            num_cpus=self.cpus_per_actor, max_restarts=self.max_restarts, max_task_retries=self.max_restarts
        )(_EmbedActor)

    def _start_actors(self, embedder: Embedder) -> list[Any]:
        if self._handles:
            return self._handles
        self._connect()
        ray = self.ray
        count = self.actors or max(1, int(ray.cluster_resources().get("CPU", 1)) // self.cpus_per_actor)
        cls = self._actor_class()
        sha256 = embedder.sha256  # the driver's verdict, which the manifest records
        self._handles = [cls.remote(embedder.spec, sha256, self.cpus_per_actor) for _ in range(count)]
        # Wait for every model to load (and pass its sha256 check) before any work is sent.
        ready = self._get([h.ready.remote() for h in self._handles])
        for _, error in ready:
            if error is not None:
                raise ModelError(error)
        self.pids = [pid for pid, _ in ready]
        return self._handles

    def actor_pids(self) -> list[int]:
        """The actors' current process ids (asked now: a restarted actor answers with its new one)."""
        return [pid for pid, _ in self._get([h.ready.remote() for h in self._handles])]

    # -- embedding --------------------------------------------------------------

    def embed_steps(self, embedder: Embedder, steps: Sequence[Sequence[Passage]]) -> Iterator[Embedded]:
        if not steps:
            return
        from ray.util import ActorPool

        pool = ActorPool(self._start_actors(embedder))
        size = self.steps_per_task
        batches = [[list(s) for s in steps[i : i + size]] for i in range(0, len(steps), size)]
        results = pool.map(lambda actor, batch: actor.embed.remote(batch), batches)
        while True:
            try:
                result = next(results)
            except StopIteration:
                return
            except self.ray.exceptions.RayError as exc:
                raise _ray_failure(exc) from None
            yield from result

    def _get(self, refs: list[Any]) -> Any:
        try:
            return self.ray.get(refs)
        except self.ray.exceptions.RayError as exc:
            raise _ray_failure(exc) from None

    def close(self) -> None:
        """Stop the actors, and Ray itself when this backend started it."""
        ray = self.ray
        if not self._started:  # Ray outlives us (started by the caller): stop our actors one by one
            for handle in self._handles:
                try:
                    ray.kill(handle, no_restart=True)
                except Exception:  # an actor already gone: nothing to stop
                    pass
        # Else shutting down (our local instance, or our connection to a cluster) ends the actors we own.
        self._handles = []
        if self._started:
            ray.shutdown()
            self._started = False


REACH_TIMEOUT = 5.0
"""Seconds to wait for a cluster's head to accept a connection: Ray itself retries for minutes."""


def _check_reachable(address: str) -> None:
    """A ``HOST:PORT`` that accepts no connection is an error now, not after Ray's own minutes of retries."""
    import socket

    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "://" in address:
        return  # ``auto`` and other forms Ray resolves itself
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=REACH_TIMEOUT).close()
    except OSError as exc:
        raise InputError(
            f"cannot reach the Ray cluster at {address}: {os_reason(exc)}; "
            "start it with ray start --head, or check the address"
        ) from None


def _ray_failure(exc: BaseException) -> RagcliError:
    """A Ray error as one ``error:`` line; a ragcli error raised on a node keeps its message."""
    cause = getattr(exc, "cause", None)
    seen = 0
    while cause is not None and not isinstance(cause, RagcliError) and seen < 5:
        cause = getattr(cause, "cause", None) or getattr(cause, "__cause__", None)
        seen += 1
    if isinstance(cause, RagcliError):
        try:
            return type(cause)(cause.message)
        except TypeError:  # an error type with another constructor (DocumentRejected)
            return RagcliError(cause.message)
    return RagcliError(
        f"embedding on the Ray cluster failed ({type(exc).__name__}: {_first_line(exc)}); "
        "the previous index is unchanged"
    )


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0][:300] if lines else type(exc).__name__


__all__ = ["RAY_INSTALL", "RayEmbedding", "require_ray"]
