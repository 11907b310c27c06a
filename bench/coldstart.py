"""Cold start: the first cluster in a fresh process, against the import floor of the design card's dependencies.

Issue #17's target: the first cluster in a fresh process (imports included, bytecode cached) costs at most
100 ms more than importing the design card's dependencies (anyio, msgspec, sortedcontainers, structlog,
click, PyYAML). Each sample is a fresh interpreter; floors and cluster runs alternate, so all see the same
machine load, and the figures are medians. Times are taken inside the child from its first line
(interpreter start-up, the same for all, is not counted), as wall time and as the child's CPU time (the
machine is shared: CPU time is the steadier figure; both are printed).

    python bench/coldstart.py                 # 7 samples of each, plus the -X importtime breakdown
    python bench/coldstart.py --runs 15 --top 25
    python bench/coldstart.py --kopf          # also: a kopf operator test from process start (issue #11)
    python bench/coldstart.py --against DIR   # A/B: this tree and another (git archive main | tar -x -C DIR)
    python bench/coldstart.py --counts [--against DIR]   # modules, bytecode and Python calls: no noise
    python bench/coldstart.py --cancel-ab     # stopping a cluster: kubelite's task cancel scopes vs anyio's own

What is measured:
- floor: ``import anyio, msgspec, sortedcontainers, structlog, click, yaml``. anyio >= 4.16 imports its
  modules lazily, so a second floor adds what the first anyio task group loads (its asyncio backend): any
  program on anyio pays that, so it is reported next to the figure, not hidden in it.
- cluster, deps first: the floor's imports, then ``from kubelite import Cluster``, ``async with
  Cluster(seed=1)`` (the default cluster: apiserver, every built-in controller, the scheduler, the data
  plane) and exit; the time after the floor's imports is kubelite's own cost. A second cluster in the same
  process shows what is start-up work rather than import work.
- cluster, as a user's process runs it: the same without importing the dependencies first, so what kubelite
  does not load (structlog, and rich and pygments through ``structlog.dev``, until a line is logged) is not
  paid; compared with the floor.
- ``--kopf``: the wall and CPU time of a kopf operator test from process start (a fresh interpreter: import
  kopf, import kubelite and its HTTP server, cluster start, HTTPS serve, operator start, one create handled,
  clean stop) with its phases, next to ``import kopf`` alone; as installed here (kopf then imports
  ``kubernetes`` and ``kubernetes_asyncio``, its optional integrations, because the test extra has them) and
  as in an environment with kopf only (those imports made to fail, nothing else changed).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parent.parent

DEPENDENCIES = ("anyio", "msgspec", "sortedcontainers", "structlog", "click", "yaml")

_CLOCKS = "import time\nt0, c0 = time.perf_counter(), time.process_time()\n"
_REPORT = ("import json; print(json.dumps({k: v for k, v in globals().items() "
           "if k.startswith(('w_', 'c_'))}))\n")


def _mark(name: str) -> str:
    return f"w_{name}, c_{name} = time.perf_counter() - t0, time.process_time() - c0\n"


FLOOR = _CLOCKS + f"import {', '.join(DEPENDENCIES)}\n" + _mark("deps") + (
    "import asyncio, anyio\n"
    "async def _tg():\n"
    "    async with anyio.create_task_group():\n"
    "        pass\n"
    "asyncio.run(_tg())\n") + _mark("deps_backend") + _REPORT

_ONE = (
    "import asyncio\n"
    "from kubelite import Cluster\n"
) + "{import_mark}" + (
    "async def one() -> None:\n"
    "    async with Cluster(seed=1):\n"
    "        pass\n"
    "asyncio.run(one())\n"
)

CLUSTER = (_CLOCKS + f"import {', '.join(DEPENDENCIES)}\n" + _mark("deps")
           + _ONE.format(import_mark=_mark("imported")) + _mark("first")
           + "asyncio.run(one())\n" + _mark("second") + _REPORT)

USER = _CLOCKS + _ONE.format(import_mark=_mark("imported")) + _mark("first") + _REPORT

#: bytecode is cached in a private directory (written by the warm-up run): the target is "bytecode cached",
#: and an environment with PYTHONDONTWRITEBYTECODE=1 (as on this machine) would otherwise compile every
#: module from source in every sample
PYCACHE = tempfile.mkdtemp(prefix="kubelite-coldstart-pycache-")


def _child(code: str, *extra: str, root: pathlib.Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "PYTHONPYCACHEPREFIX": PYCACHE}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return subprocess.run([sys.executable, *extra, "-c", code], env=env, capture_output=True, text=True,
                          check=True, cwd=root)


def _sample(code: str, *args: str, root: pathlib.Path = ROOT) -> dict[str, float]:
    out: dict[str, float] = json.loads(_child(code, *args, root=root).stdout.strip().splitlines()[-1])
    return out


def importtime(top: int) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(kubelite modules by self time, top-level packages by cumulative time), in microseconds."""
    err = _child(CLUSTER, "-X", "importtime").stderr
    own: list[tuple[str, int]] = []
    packages: dict[str, int] = {}
    for line in err.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cumulative_us, name = line[len("import time:"):].split("|")
        mod = name.strip()
        depth = (len(name) - len(name.lstrip()) - 1) // 2
        if mod.startswith("kubelite"):
            own.append((mod, int(self_us)))
        if depth == 0:
            top_name = mod.split(".")[0]
            packages[top_name] = packages.get(top_name, 0) + int(cumulative_us)
    own.sort(key=lambda kv: -kv[1])
    return own[:top], sorted(packages.items(), key=lambda kv: -kv[1])[:top]


#: load-independent counts of the first cluster after the dependencies (``--counts``): modules imported,
#: bytecode read, Python calls (cProfile's count) and those of kubelite's own functions. On a shared machine
#: CPU time moves ±15% between runs of one tree; these do not move at all, so they show a regression that
#: a noisy A/B cannot
COUNTS = textwrap.dedent('''
    import asyncio, cProfile, json, sys
    import importlib._bootstrap_external as be
    import anyio, msgspec, sortedcontainers, structlog, click, yaml
    read = [0]
    get_data = be.FileLoader.get_data
    def counted(self, path):
        data = get_data(self, path)
        if path.endswith(".pyc"):
            read[0] += len(data)
        return data
    be.FileLoader.get_data = counted
    before = len(sys.modules)
    profile = cProfile.Profile()
    profile.enable()
    from kubelite import Cluster
    async def one():
        async with Cluster(seed=1):
            pass
    asyncio.run(one())
    profile.disable()
    stats = profile.getstats()
    print(json.dumps({"modules": len(sys.modules) - before, "pyc bytes": read[0],
                      "calls": sum(e.callcount for e in stats),
                      "kubelite calls": sum(e.callcount for e in stats if not isinstance(e.code, str)
                                            and "/kubelite/" in e.code.co_filename and e.code.co_name != "<module>")}))
''')


#: the same counts for a user's process (nothing imported before kubelite): what kubelite loads of the
#: dependencies (PyYAML, structlog) counts here
COUNTS_USER = COUNTS.replace("import anyio, msgspec, sortedcontainers, structlog, click, yaml\n", "")


def counts_report(roots: list[pathlib.Path]) -> None:
    for title, script in (("first cluster after the dependencies", COUNTS),
                          ("first cluster as a user's process runs it (nothing imported first)", COUNTS_USER)):
        print(f"{title}, load-independent counts (one warm-up, then one run each):")
        print(f"  {'tree':50s} {'modules':>8s} {'pyc bytes':>10s} {'calls':>9s} {'kubelite calls':>15s}")
        for root in roots:
            _child(script, root=root)
            c = json.loads(_child(script, root=root).stdout.strip().splitlines()[-1])
            print(f"  {root!s:50s} {c['modules']:8d} {c['pyc bytes']:10d} {c['calls']:9d} "
                  f"{c['kubelite calls']:15d}")


#: the kopf operator test from process start (``--kopf``; bench/http_api.py prints the same run): argv[1] is
#: "as-installed" or "kopf-only"; prints one JSON line of per-phase wall and CPU seconds
KOPF_SCRIPT = textwrap.dedent('''
    import time
    marks = [("start", time.perf_counter(), time.process_time())]
    def mark(name):
        marks.append((name, time.perf_counter(), time.process_time()))
    import sys
    if sys.argv[1] == "kopf-only":  # as in a virtualenv with kopf but without the optional client libraries
        class _Absent:
            def find_spec(self, name, path=None, target=None):
                if name.partition(".")[0] in ("kubernetes", "kubernetes_asyncio", "pykube"):
                    raise ImportError(f"{name} is not installed")
        sys.meta_path.insert(0, _Absent())
    import asyncio
    import kopf
    mark("import kopf")
    if sys.argv[2:] == ["floor"]:
        import json
        print(json.dumps({"import kopf": [marks[1][1] - marks[0][1], marks[1][2] - marks[0][2]]}))
        raise SystemExit
    import kubelite
    import kubelite.cluster, kubelite.http
    mark("import kubelite")

    CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "widgets.example.com"},
           "spec": {"group": "example.com", "scope": "Namespaced",
                    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                    "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                                  "schema": {"openAPIV3Schema": {"type": "object",
                                             "x-kubernetes-preserve-unknown-fields": True}}}]}}

    class Mine(frozenset):
        def __contains__(self, t):
            code = getattr(t.get_coro(), "cr_code", None)
            return code is None or "/kopf/" not in code.co_filename

    async def main():
        async with kubelite.Cluster(seed=1, nodes=0, controllers=["garbagecollector"]) as c:
            mark("cluster start")
            async with c.serve(tls=True) as url:
                mark("serve (TLS)")
                await c.client.create(CRD)
                reg = kopf.OperatorRegistry()

                @kopf.on.login(registry=reg)
                def login(**_):
                    return kopf.ConnectionInfo(server=str(url), ca_path=url.ca_file, token=url.token)

                @kopf.on.create("example.com", "v1", "widgets", id="setup", registry=reg)
                async def created(patch, **_):
                    patch.status["phase"] = "Ready"

                stop, ready = asyncio.Event(), asyncio.Event()
                tasks = await kopf.spawn_tasks(registry=reg, namespaces=["default"], standalone=True,
                                               stop_flag=stop, ready_flag=ready)
                op = asyncio.create_task(kopf.run_tasks(tasks, ignored=Mine()))
                await ready.wait()
                mark("operator ready")
                await c.client.create({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}})
                await c.wait_for(lambda: ((c.apiserver.read("example.com", "widgets", "default", "w") or {})
                                          .get("status") or {}).get("phase") == "Ready", timeout=60)
                mark("handled")
                stop.set()
                await op
        mark("stopped")

    asyncio.run(main())
    import json
    print(json.dumps({b[0]: [b[1] - a[1], b[2] - a[2]] for a, b in zip(marks, marks[1:])}))
''')


def _timed_child(argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall s, CPU s, stdout) of a child process, its CPU (user + system, every thread, interpreter start and
    exit included) from the kernel's accounting of waited-for children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, check=True, cwd=ROOT, env=env).stdout
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out


def _kopf_env(pycache: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = pycache
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")
    return env


def kopf_run(mode: str, pycache: str, *extra: str) -> tuple[float, dict[str, list[float]]]:
    """Wall seconds of the kopf test in a fresh interpreter (``mode``: "as-installed" or "kopf-only"; with
    ``"floor"``, ``import kopf`` alone), and its phases as {name: [wall, CPU]}, plus "process" (the whole
    child's [wall, CPU], interpreter start and exit included). Bytecode is cached in ``pycache`` (as any
    installed environment has .pyc files); run once unmeasured first to warm it."""
    wall, cpu, out = _timed_child([sys.executable, "-c", KOPF_SCRIPT, mode, *extra], _kopf_env(pycache))
    phases: dict[str, list[float]] = json.loads(out.strip().splitlines()[-1])
    phases["process"] = [wall, cpu]
    return wall, phases


def kopf_report(runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="kubelite-bench-pycache-") as pycache:
        env = _kopf_env(pycache)
        bare = [sys.executable, "-c", "pass"]
        for mode in ("as-installed", "kopf-only"):
            kopf_run(mode, pycache)  # warm the bytecode cache
            floors, samples, interpreters, nosite = [], [], [], []
            for _ in range(runs):
                floors.append(kopf_run(mode, pycache, "floor")[1]["import kopf"])
                samples.append(kopf_run(mode, pycache))
                interpreters.append(_timed_child(bare, env)[:2])
                nosite.append(_timed_child([sys.executable, "-S", "-c", "pass"], env)[:2])
            names = [n for n in samples[0][1] if n != "process"]
            med = {n: [statistics.median(s[1][n][i] for s in samples) for i in (0, 1)] for n in [*names, "process"]}
            wall = statistics.median(s[0] for s in samples)
            floor = [statistics.median(f[i] for f in floors) for i in (0, 1)]
            total = [sum(med[n][i] for n in names) for i in (0, 1)]
            interp = [statistics.median(x[i] for x in interpreters) for i in (0, 1)]
            no_site = [statistics.median(x[i] for x in nosite) for i in (0, 1)]
            outside = [med["process"][i] - total[i] for i in (0, 1)]
            print(f"\nkopf operator test from process start, {mode} (median of {runs}; load average "
                  f"{os.getloadavg()[0]:.1f}): {wall:.2f} s wall with interpreter start and exit")
            print(f"  {'phase':44s} {'wall s':>8s} {'CPU s':>8s}")
            for n in names:
                print(f"  {n:44s} {med[n][0]:8.3f} {med[n][1]:8.3f}")
            print(f"  {'in-script total':44s} {total[0]:8.3f} {total[1]:8.3f}")
            print(f"  {'import kopf alone':44s} {floor[0]:8.3f} {floor[1]:8.3f}   (the floor)")
            print(f"  {'above that floor':44s} {total[0] - floor[0]:8.3f} {total[1] - floor[1]:8.3f}   "
                  f"(target: the whole test <= 1 s)")
            print(f"  {'the whole process (kernel accounting)':44s} {med['process'][0]:8.3f} {med['process'][1]:8.3f}")
            print(f"  {'  outside the script: interpreter start+exit':44s} {outside[0]:8.3f} {outside[1]:8.3f}")
            print(f"  {'    a bare `python -c pass` (start + exit)':44s} {interp[0]:8.3f} {interp[1]:8.3f}")
            print(f"  {'      of which site and its .pth hooks':44s} {interp[0] - no_site[0]:8.3f} "
                  f"{interp[1] - no_site[1]:8.3f}   (`python -S -c pass`: {no_site[0]:.3f} / {no_site[1]:.3f})")
            print(f"  {'    the rest: the script process exiting':44s} {outside[0] - interp[0]:8.3f} "
                  f"{outside[1] - interp[1]:8.3f}")


def ab_report(other: pathlib.Path, runs: int) -> None:
    """This tree against ``other``, fresh processes alternating (floor, this, other), medians, ms."""
    for root in (ROOT, other, ROOT, other):  # warm-up: bytecode cached
        _sample(CLUSTER, root=root)
        _sample(USER, root=root)
    floors: list[dict[str, float]] = []
    samples: dict[pathlib.Path, tuple[list[dict[str, float]], list[dict[str, float]]]] = {ROOT: ([], []),
                                                                                         other: ([], [])}
    for i in range(runs):
        floors.append(_sample(FLOOR))
        for root in ((ROOT, other) if i % 2 == 0 else (other, ROOT)):
            samples[root][0].append(_sample(CLUSTER, root=root))
            samples[root][1].append(_sample(USER, root=root))

    for label, reduce in (("median", statistics.median), ("minimum", min)):
        _ab_table(label, reduce, runs, other, floors, samples)


def _ab_table(label: str, reduce: Any, runs: int, other: pathlib.Path, floors: list[dict[str, float]],
              samples: dict[pathlib.Path, tuple[list[dict[str, float]], list[dict[str, float]]]]) -> None:
    """One table of :func:`ab_report`: each phase per sample (ms), reduced over the samples by ``reduce``
    (the median; or the minimum, on a loaded machine the steadier estimate of a phase's own cost)."""

    def phase(rows: list[dict[str, float]], end: str, start: str | None = None) -> float:
        return float(reduce([(r[end] - (r[start] if start else 0.0)) * 1000 for r in rows]))

    floor = {clock: float(reduce([r[f"{clock}_deps"] * 1000 for r in floors])) for clock in ("w", "c")}
    print(f"A/B, {label} of {runs} fresh processes each, interleaved (load average {os.getloadavg()[0]:.1f}), "
          f"ms wall / CPU:  A = {ROOT}, B = {other}")
    print(f"  {'':44s} {'A wall':>8s} {'B wall':>8s} {'A CPU':>8s} {'B CPU':>8s} {'A/B CPU':>8s}")
    table: dict[str, list[float]] = {}
    for root in (ROOT, other):
        runs_, users = samples[root]
        for clock in ("w", "c"):
            for name, value in (
                ("deps first, then: kubelite import", phase(runs_, f"{clock}_imported", f"{clock}_deps")),
                ("  + first cluster start/exit", phase(runs_, f"{clock}_first", f"{clock}_imported")),
                ("  = the first cluster above the deps", phase(runs_, f"{clock}_first", f"{clock}_deps")),
                ("a second cluster in the same process", phase(runs_, f"{clock}_second", f"{clock}_first")),
                ("as a user's process runs it, above the floor", phase(users, f"{clock}_first") - floor[clock]),
            ):
                table.setdefault(name, []).append(value)
    print(f"  {'dependency import floor':44s} {floor['w']:8.1f} {'':8s} {floor['c']:8.1f}")
    for name, (a_w, a_c, b_w, b_c) in table.items():
        print(f"  {name:44s} {a_w:8.1f} {b_w:8.1f} {a_c:8.1f} {b_c:8.1f} {a_c / b_c if b_c else float('nan'):8.2f}")


def cancel_ab(runs: int) -> None:
    """A cluster's start and stop with kubelite's task cancel scopes (``supervise._quiet_scope_class``: the
    cancel reason names the task, not the canceller's repr) against anyio's own class, interleaved in one
    process (CPU ms per cluster, medians of ``runs`` rounds of 5 clusters each)."""
    import asyncio

    from kubelite import Cluster, supervise

    async def one() -> None:
        async with Cluster(seed=1):
            pass

    from anyio._backends._asyncio import CancelScope as AsyncioCancelScope

    quiet = supervise._quiet_scope_class(AsyncioCancelScope)
    plain = quiet.__mro__[1]
    assert quiet is not plain, "the installed anyio's CancelScope is not the one kubelite's subclass expects"
    for _ in range(2):
        asyncio.run(one())
    per: dict[str, list[float]] = {"kubelite's scopes": [], "anyio's scopes": []}
    for i in range(runs):
        for name, cls in ((("kubelite's scopes", quiet), ("anyio's scopes", plain))[:: 1 if i % 2 == 0 else -1]):
            supervise._SCOPE_CLASS = cls
            c0 = time.process_time()
            for _ in range(5):
                asyncio.run(one())
            per[name].append((time.process_time() - c0) / 5 * 1000)
    supervise._SCOPE_CLASS = None
    a, b = (statistics.median(v) for v in per.values())
    print(f"cluster start + stop (default cluster, ~130 tasks), CPU ms per cluster, median of {runs} rounds "
          f"(load average {os.getloadavg()[0]:.1f}): kubelite's scopes {a:.1f}, anyio's scopes {b:.1f}, "
          f"ratio {a / b:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7, help="samples of each (default 7)")
    ap.add_argument("--top", type=int, default=15, help="rows of the import-time breakdown (default 15)")
    ap.add_argument("--kopf", action="store_true", help="also time a kopf operator test from process start")
    ap.add_argument("--against", type=pathlib.Path, metavar="TREE",
                    help="also run another kubelite tree (e.g. `git archive main | tar -x -C DIR`), its samples "
                         "interleaved with this tree's, and print both side by side")
    ap.add_argument("--counts", action="store_true",
                    help="only the load-independent counts (modules, bytecode, Python calls), of this tree and "
                         "of --against if given")
    ap.add_argument("--cancel-ab", action="store_true",
                    help="only: a cluster's start and stop with kubelite's task cancel scopes vs anyio's own")
    args = ap.parse_args()
    if args.cancel_ab:
        cancel_ab(args.runs)
        return
    if args.counts:
        counts_report([ROOT] + ([args.against.resolve()] if args.against is not None else []))
        return
    if args.against is not None:
        ab_report(args.against.resolve(), args.runs)
        return

    for code in (CLUSTER, CLUSTER, USER):  # warm-up: bytecode cached, as the target says
        _sample(code)
    floors: list[dict[str, float]] = []
    runs: list[dict[str, float]] = []
    users: list[dict[str, float]] = []
    for _ in range(args.runs):
        floors.append(_sample(FLOOR))
        runs.append(_sample(CLUSTER))
        users.append(_sample(USER))

    def med(samples: list[dict[str, float]], key: str) -> float:
        return statistics.median(r[key] for r in samples) * 1000

    load = os.getloadavg()[0]
    rows: dict[str, list[float]] = {}
    for clock in ("w", "c"):  # wall (perf_counter) and CPU (process_time): two clocks, one column each
        floor, floor_backend = med(floors, f"{clock}_deps"), med(floors, f"{clock}_deps_backend")
        deps = med(runs, f"{clock}_deps")
        imported, first = med(runs, f"{clock}_imported") - deps, med(runs, f"{clock}_first") - deps
        second = med(runs, f"{clock}_second") - med(runs, f"{clock}_first")
        user = med(users, f"{clock}_first")
        for name, value in (
            (f"dependency import floor ({', '.join(DEPENDENCIES)})", floor),
            ("  with anyio's asyncio backend (what the first task group loads)", floor_backend),
            ("deps first, then: kubelite import", imported),
            ("  + first cluster start/exit", first - imported),
            ("  = the first cluster above the deps (target: <= 100 ms)", first),
            ("  above the floor with anyio's backend", first - (floor_backend - floor)),
            ("as a user's process runs it, total", user),
            ("  above the floor", user - floor),
            ("a second cluster in the same process", second),
        ):
            rows.setdefault(name, []).append(value)
    print(f"cold start, median of {args.runs} fresh processes (load average {load:.1f}, {os.cpu_count()} CPUs), ms;"
          " wall and CPU are separate clocks (a one-thread child on an idle machine shows them close):")
    print(f"  {'':66s} {'wall':>8s} {'CPU':>8s}")
    for name, (wall, cpu) in rows.items():
        print(f"  {name:66s} {wall:8.1f} {cpu:8.1f}")
    own, packages = importtime(args.top)
    print(f"\n-X importtime (wall, one run), kubelite modules by self time (top {args.top}):")
    for mod, us in own:
        print(f"  {us / 1000:8.1f} ms  {mod}")
    print("\n-X importtime, top-level imports by cumulative time:")
    for mod, us in packages:
        print(f"  {us / 1000:8.1f} ms  {mod}")
    if args.kopf:
        kopf_report(args.runs)


if __name__ == "__main__":
    main()
