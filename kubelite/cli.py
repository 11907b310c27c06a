"""The ``kubelite`` command line.

``kubelite demo`` plays a short story against the API on virtual time and prints what a user would
see: watch events, an optimistic-concurrency conflict, a server-side-apply conflict, a 410 after
compaction and the relist that heals it. ``kubelite apply FILE`` loads manifests (multi-document
YAML as kubectl takes it) into a fresh cluster and prints the stored objects.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncGenerator, Iterator
from pathlib import Path
from typing import Any

import click

from kubelite.api.codec import load_yaml
from kubelite.clock import EPOCH
from kubelite.cluster import Cluster, tuned_gc
from kubelite.errors import ApiError

__all__ = ["main"]


@click.group()
@click.version_option(package_name="kubelite")
def main() -> None:
    """kubelite: a Kubernetes control plane in one Python process, on virtual time."""
    # the command line owns its process: it runs under the GC setting benchmarks use (restored on exit)
    click.get_current_context().with_resource(tuned_gc())


def _line(cluster: Cluster, text: str) -> None:
    t = cluster.now - EPOCH
    click.echo(f"[t={t:7.1f}s] {text}")


async def _demo(seed: int) -> int:
    async with Cluster(seed=seed) as cluster:
        c = cluster.client
        log: list[str] = []

        async def watch() -> None:
            async for typ, obj in c.watch("deployments", namespace="*"):
                meta = obj["metadata"]
                log.append(f"watch {typ:<8} deployment/{meta['name']} rv={meta['resourceVersion']} "
                           f"replicas={obj['spec'].get('replicas')}")

        watcher = asyncio.ensure_future(watch())
        await cluster.settle()
        dep: dict[str, Any] = {
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "nginx", "image": "nginx:1.25"}]}}},
        }
        created = await c.apply(dep, field_manager="alice")
        _line(cluster, f"alice applied deployment/web (generation {created['metadata']['generation']}, "
                       f"strategy {created['spec']['strategy']['type']} defaulted by the apiserver)")
        await cluster.advance(30)
        stale = dict(created)
        await c.patch("deployments", "web", {"spec": {"replicas": 3}}, patch_type="merge")
        try:
            await c.replace({**stale, "spec": {**stale["spec"], "replicas": 4}})
        except ApiError as e:
            _line(cluster, f"replace with a stale resourceVersion -> {e.status.code} {e.status.reason}: {e.message}")
        try:
            await c.apply({**dep, "spec": {**dep["spec"], "replicas": 5}}, field_manager="bob")
        except ApiError as e:
            _line(cluster, f"bob's apply -> {e.status.code} {e.status.reason}: {e.message}")
        old_rv = (await c.list_page("deployments")).resource_version
        await cluster.advance(600)  # two compaction intervals
        await c.patch("deployments", "web", {"metadata": {"labels": {"tier": "frontend"}}}, patch_type="merge")
        await cluster.advance(600)
        try:
            await c.open_watch("deployments", resource_version=old_rv)
        except ApiError as e:
            _line(cluster, f"watch from rv={old_rv} after compaction -> {e.status.code} {e.status.reason}: "
                           f"{e.message}")
        page = await c.list_page("deployments")
        _line(cluster, f"relist -> {len(page.items)} deployment(s) at rv={page.resource_version}")
        await cluster.settle()
        watcher.cancel()
        for entry in log:
            click.echo("  " + entry)
        click.echo(f"virtual time elapsed: {cluster.now - EPOCH:.0f}s; store revision "
                   f"{cluster.store.revision}")
    return 0


@main.command()
@click.option("--seed", default=1, show_default=True, help="Seed for the cluster's random generator.")
def demo(seed: int) -> None:
    """Play a short API story on virtual time."""
    sys.exit(asyncio.run(_demo(seed)))


async def _apply(text: str, seed: int) -> int:
    docs = load_yaml(text)
    async with Cluster(seed=seed) as cluster:
        failed = 0
        for doc in docs:
            meta: dict[str, Any] = doc.get("metadata") or {}
            what = f"{doc.get('kind', '?').lower()}/{meta.get('name') or meta.get('generateName', '?')}"
            try:
                await cluster.client.apply(doc, field_manager="kubectl", force=True)
                click.echo(f"{what} serverside-applied")
            except ApiError as e:
                failed += 1
                click.echo(f"Error from server ({e.status.reason}): {e.message}", err=True)
        for w in cluster.client.warnings:
            click.echo(f"Warning: {w}", err=True)
    return 1 if failed else 0


@main.command()
@click.argument("manifest", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--seed", default=1, show_default=True)
def apply(manifest: Path, seed: int) -> None:
    """Server-side apply MANIFEST (multi-document YAML) to a fresh cluster, as kubectl would."""
    sys.exit(asyncio.run(_apply(manifest.read_text(), seed)))


def _progress_bar(until: float) -> Any:
    """A bar over virtual time on stderr, only when stderr is a terminal (output stays byte-identical)."""
    if not sys.stderr.isatty():
        return None
    return click.progressbar(length=max(1, int(until)), label="cluster time", file=sys.stderr,
                             show_eta=False, show_percent=True)


@main.command()
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--seed", type=int, default=None, help="Seed (default: the scenario's `seed`).")
@click.option("--until", "until", default=None, help="Virtual time to run for, e.g. 90s, 10m (default: the "
                                                     "scenario's `until`).")
@click.option("--output", "-o", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--report", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write a self-contained HTML report to this file.")
@click.option("--seeds", default=None, metavar="A..B",
              help="Run once per seed (1..500, or 1,5,9) and report each expectation's pass rate.")
def run(scenario: Path, seed: int | None, until: str | None, output: str, report: Path | None,
        seeds: str | None) -> None:
    """Run a SCENARIO on virtual time: exit 0 if every expectation holds, 1 if one fails, 2 if invalid,
    3 if the run stopped making virtual progress (livelock)."""
    from kubelite.scenario import render_text
    from kubelite.scenario.result import encode_json

    sc, limit = _load(scenario, until, "--until")
    if seeds is not None:
        _run_seeds(sc, scenario, seeds, limit)
    total = limit if limit is not None else _duration(sc.until)
    bar = _progress_bar(total)
    done = 0

    def progress(t: float, end: float) -> None:
        nonlocal done
        if bar is not None and int(t) > done:
            bar.update(int(t) - done)
            done = int(t)

    if bar is not None:
        with bar:
            result = _run(sc, seed, limit, progress)
    else:
        result = _run(sc, seed, limit, None)
    if output == "json":
        sys.stdout.buffer.write(encode_json(result) + b"\n")
        sys.stdout.flush()
    else:
        click.echo(render_text(result), nl=False)
    if report is not None:
        import importlib

        try:  # the HTML report is written by another module's author
            render_html = importlib.import_module("kubelite.scenario.report").render_html
        except (ImportError, AttributeError):
            click.echo("error: the HTML report is not available in this build", err=True)
        else:
            report.write_text(render_html(result))
    sys.exit(0 if result.passed else 1)


@main.command()
@click.argument("scenario", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--port", default=6443, show_default=True, help="Port to listen on (0: any free port).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (loopback by default).")
@click.option("--kubeconfig", type=click.Path(dir_okay=False, path_type=Path), default=Path("kubelite.kubeconfig"),
              show_default=True, help="Where to write a kubeconfig (token auth) for kubectl and clients.")
@click.option("--tls/--no-tls", default=True, show_default=True,
              help="HTTPS with a generated self-signed CA (kubectl sends bearer tokens only over HTTPS).")
@click.option("--nodes", default=1, show_default=True, help="Nodes (fake kubelets) when no SCENARIO is given.")
@click.option("--seed", default=1, show_default=True)
@click.option("--token", default=None, help="The admin bearer token (default: a random one).")
@click.option("--virtual-time", is_flag=True, help="Run on virtual time (jumps whenever idle) instead of real time.")
@click.option("--idle-grace", type=click.FloatRange(min=0.0), default=None,
              help="With --virtual-time: real seconds after a client's last request, response or connection during "
                   "which time does not jump (it flows at real speed); clients with unread data or still working "
                   "hold it too. 0 turns client holds off.  [default: 1.0]")
def serve(scenario: Path | None, port: int, host: str, kubeconfig: Path, tls: bool, nodes: int, seed: int,
          token: str | None, virtual_time: bool, idle_grace: float | None) -> None:
    """Serve the Kubernetes REST API of a fresh cluster until Ctrl-C.

    With SCENARIO: its cluster and manifests, and its timeline played as `kubelite run` plays it (in real
    time, or compressed with --virtual-time), served from the start; the verdict is printed when the
    timeline ends and the cluster keeps serving."""
    from kubelite.http.clients import DEFAULT_SERVE_IDLE_GRACE

    with contextlib.suppress(KeyboardInterrupt):  # uvicorn re-raises the SIGINT it handled, after a clean stop
        asyncio.run(_serve(scenario, port=port, host=host, kubeconfig=kubeconfig, tls=tls, nodes=nodes, seed=seed,
                           token=token, virtual_time=virtual_time,
                           idle_grace=0.0 if not virtual_time else DEFAULT_SERVE_IDLE_GRACE if idle_grace is None
                           else idle_grace))
    click.echo("stopped")


async def _serve(scenario: Path | None, *, port: int, host: str, kubeconfig: Path, tls: bool, nodes: int, seed: int,
                 token: str | None, virtual_time: bool, idle_grace: float) -> None:
    async def serving(cluster: Cluster) -> AsyncGenerator[Any, Any]:
        async with cluster.serve(host=host, port=port, tls=tls, kubeconfig=kubeconfig, token=token,
                                 signals=True, idle_grace=idle_grace) as url:
            click.echo(f"kubelite API server listening on {url}")
            click.echo(f"kubeconfig: {kubeconfig}   (export KUBECONFIG={kubeconfig})")
            click.echo("Ctrl-C to stop")
            sys.stdout.flush()
            result = yield
            if result is not None:  # the scenario's timeline is over: its verdict, then keep serving
                from kubelite.scenario import render_text

                click.echo(render_text(result), nl=False)
                click.echo("scenario finished; still serving (Ctrl-C to stop)")
                sys.stdout.flush()
            await url.wait_stopped()

    if scenario is None:
        async with Cluster(seed=seed, virtual_time=virtual_time, nodes=nodes) as cluster:
            gen = serving(cluster)
            await anext(gen)
            with contextlib.suppress(StopAsyncIteration):
                await gen.asend(None)
        return
    from kubelite.scenario import load_scenario
    from kubelite.scenario.runner import run_scenario_async

    with _scenario_exits():
        sc = load_scenario(scenario)
        # the scenario's cluster, manifests and timeline, played as `kubelite run` plays them (one path),
        # served from the first instant; the run is judged, and the cluster keeps serving after it
        await run_scenario_async(sc, virtual_time=virtual_time, host=serving, stall_seconds=None)


@contextlib.contextmanager
def _scenario_exits() -> Iterator[None]:
    """An invalid scenario exits 2 with every problem, a run that stops making virtual progress exits 3."""
    from kubelite.scenario import ScenarioError
    from kubelite.watchdog import LivelockError

    try:
        yield
    except ScenarioError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(2)
    except LivelockError as e:
        click.echo(f"error: livelock: {e}", err=True)
        sys.exit(3)


def _run_seeds(sc: Any, path: Path, seeds: str, limit: float | None) -> None:
    """``run --seeds``: the scenario once per seed (kubelite.fuzz.seeds); exit 1 if any seed failed."""
    from kubelite.fuzz.seeds import parse_seeds, render_seeds, run_seeds

    try:
        seed_list = parse_seeds(seeds)
    except ValueError as e:
        click.echo(f"error: --seeds: {e}", err=True)
        sys.exit(2)
    with _scenario_exits():
        result = run_seeds(sc, seed_list, until=limit)
    click.echo(render_seeds(result, str(path)), nl=False)
    sys.exit(0 if result.passed else 1)


def _duration(text: Any) -> float:
    from kubelite.scenario import parse_duration

    return parse_duration(text)


def _load(scenario: Path, limit_text: str | None, option: str) -> tuple[Any, float | None]:
    """The validated scenario and the --until/--at limit; exit 2 with every problem when invalid."""
    from kubelite.scenario import ScenarioError, load_scenario

    try:
        sc = load_scenario(scenario)
    except ScenarioError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(2)
    try:
        limit = None if limit_text is None else _duration(limit_text)
    except ValueError as e:
        click.echo(f"error: {option}: {e}", err=True)
        sys.exit(2)
    return sc, limit


def _run(sc: Any, seed: int | None, limit: float | None, progress: Any) -> Any:
    """Run (after validating every manifest): exit 2 when a manifest is invalid, 3 when the run stops
    making virtual progress (the watchdog's diagnosis is printed), never a hang or a traceback."""
    from kubelite.scenario import run_scenario

    try:
        with _scenario_exits():
            return run_scenario(sc, seed=seed, until=limit, progress=progress)
    except KeyboardInterrupt:
        click.echo("error: livelock: the run stopped making progress and did not yield (interrupted)", err=True)
        sys.exit(3)


def _replay(scenario: Path, seed: int | None, at: str | None) -> tuple[Any, float]:
    """Re-run SCENARIO deterministically up to AT (default: its end): (result, absolute virtual now)."""
    sc, limit = _load(scenario, at, "--at")
    result = _run(sc, seed, limit, None)
    # Objects carry absolute virtual timestamps and the run's times are relative to its t = 0
    return result, float(result.start or EPOCH) + result.until


_AT_HELP = "Virtual time to stop the run at, e.g. 90s, 10m (default: the scenario's end)."


@main.command()
@click.argument("kind")
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--at", "at", default=None, help=_AT_HELP)
@click.option("--seed", type=int, default=None, help="Seed (default: the scenario's `seed`).")
@click.option("--output", "-o", type=click.Choice(["wide"]), default=None, help="-o wide adds columns.")
@click.option("--namespace", "-n", default="default", show_default=True)
@click.option("--all-namespaces", "-A", is_flag=True, help="List objects of every namespace.")
@click.option("--sort-by", default=None, help="Sort by .metadata.creationTimestamp, .metadata.name or "
                                              ".lastTimestamp (events default to .metadata.creationTimestamp).")
def get(kind: str, scenario: Path, at: str | None, seed: int | None, output: str | None, namespace: str,
        all_namespaces: bool, sort_by: str | None) -> None:
    """`kubectl get KIND[/NAME]` on the state of SCENARIO at --at (default: the end of the run)."""
    from kubelite.kubectl import no_resources_message, print_table, resolve_resource, select

    what, _, name = kind.partition("/")
    try:
        resource = resolve_resource(what)
    except KeyError:
        click.echo(f'error: the server doesn\'t have a resource type "{what}"', err=True)
        sys.exit(1)
    result, now = _replay(scenario, seed, at)
    objs = select(result.objects, resource, namespace=None if all_namespaces else namespace)
    if name:
        objs = [o for o in objs if o["metadata"].get("name") == name]
        if not objs:
            click.echo(f'Error from server (NotFound): {resource} "{name}" not found', err=True)
            sys.exit(1)
    if sort_by is None and resource == "events":
        sort_by = ".metadata.creationTimestamp"
    try:
        text = print_table(resource, objs, now=now, wide=output == "wide", all_namespaces=all_namespaces,
                           sort_by=sort_by)
    except ValueError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(1)
    if not text:
        click.echo(no_resources_message(resource, namespace=None if all_namespaces else namespace), err=True)
    click.echo(text, nl=False)


@main.command()
@click.argument("target", metavar="KIND/NAME")
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--at", "at", default=None, help=_AT_HELP)
@click.option("--seed", type=int, default=None, help="Seed (default: the scenario's `seed`).")
@click.option("--namespace", "-n", default="default", show_default=True)
def describe(target: str, scenario: Path, at: str | None, seed: int | None, namespace: str) -> None:
    """`kubectl describe KIND/NAME` on the state of SCENARIO at --at (default: the end of the run)."""
    from kubelite.kubectl import DESCRIBABLE, resolve_resource
    from kubelite.kubectl import describe as describe_object

    what, _, name = target.partition("/")
    try:
        resource = resolve_resource(what)
    except KeyError:
        click.echo(f'error: the server doesn\'t have a resource type "{what}"', err=True)
        sys.exit(1)
    if not name or resource not in DESCRIBABLE:
        click.echo(f"error: expected KIND/NAME with KIND one of {', '.join(DESCRIBABLE)}", err=True)
        sys.exit(1)
    result, now = _replay(scenario, seed, at)
    try:
        text = describe_object(resource, name, result.objects, now=now, namespace=namespace)
    except ApiError as e:
        click.echo(f"Error from server ({e.status.reason}): {e.message}", err=True)
        sys.exit(1)
    click.echo(text, nl=False)


def _register_fuzz() -> None:
    from kubelite.fuzz.cli import fuzz

    main.add_command(fuzz)


_register_fuzz()


if __name__ == "__main__":  # pragma: no cover
    main()
