"""What a container's command does, read from the pod spec: the workload model when no profile says.

A real container runs its image's entrypoint with the pod's ``command`` (replacing ENTRYPOINT) and
``args`` (replacing CMD). kubelite has no runtime, so this module reads the argv the way a reader of
the manifest would and answers when the process exits and with what code (:class:`Behaviour`):

- **exec form**: ``echo``/``true``/``date``/``env``/... exit 0 at once; ``false`` exits 1;
  ``sleep N`` after N seconds (``sleep infinity`` never); shell builtins used as a binary
  (``["exit", "1"]``, ``["cd", "/"]``) fail to start: ``StartError``, exit code 128, as containerd
  reports ``exec: "exit": executable file not found in $PATH``;
- **shell form** (``sh -c``, ``/bin/sh -c``, ``bash -c``, ``ash``, ``dash``; also ``sh -ec``): the
  script is split on ``;``, newlines, ``&&`` and ``||`` and evaluated left to right with the shell's
  rules (``&&`` runs the next command only after success, ``||`` only after failure, the script's
  code is the last command's, ``exit N`` stops it); ``while true``/``while :``/``until false`` loops
  and ``tail -f`` run forever; a ``for x in a b c`` loop runs its body once per word; a loop waiting for
  a name to resolve (``until nslookup myservice; do sleep 2; done``, also ``while ! nslookup``, ``host``,
  ``getent hosts``) ends at its first poll after the name resolves (:mod:`kubelite.kubelet.dns`), and the
  rest of the script runs from there;
- **one-shot interpreters**: ``perl -e``/``-wle``, ``python -c``, ``node -e``, ``ruby -e`` exit 0 after
  a second (``bpi(N)`` in perl: the Job example's digits of pi, ten seconds per 2,000 digits;
  ``time.sleep(N)``, ``sys.exit(N)`` and ``exit(N)`` in python are read);
- **servers** (``nginx``, ``redis-server``, ``postgres``, ``java -jar``, ``gunicorn``, ``python -m
  http.server``, ``agnhost serve-hostname``, ...) and anything unknown run until killed;
- **no command and no args**: the image's own default (``busybox``, ``alpine``, ``debian``, ``perl``,
  ``python`` and friends run a shell or REPL that exits 0 at once without a TTY, so they complete, and
  under ``restartPolicy: Always`` loop in CrashLoopBackOff, as on a real node; ``stdin: true`` keeps
  them running; ``postgres`` without ``POSTGRES_PASSWORD`` and ``mysql``/``mariadb`` without a root
  password option exit 1, as their entrypoints do); other images serve.

Termination: a shell or ``sleep`` running as PID 1 has no SIGTERM handler, so the kernel ignores the
signal (``ignores_sigterm``): deleting such a pod takes the whole grace period and ends with exit code
137, as on a real node (a script using ``trap`` or ``exec`` is left to the image profile).

Files: a script's ``touch P``, ``echo ... > P`` and ``rm P`` are kept as a timeline, so an exec probe
``cat P`` (``test -e``, ``ls``, ``[ -f P ]``) succeeds exactly while the script has the file (the
docs' liveness example: ``touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600``); exec probes
``true``/``false``/``exit N`` have fixed answers (:func:`exec_probe`).

Pure: :func:`behaviour` is a function of the container spec (cached on the argv).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec

from kubelite.memo import memoize

if TYPE_CHECKING:
    from kubelite.api.types.core_v1 import Container

__all__ = ["FOREVER", "Behaviour", "behaviour", "exec_probe", "file_exists", "script_behaviour"]


class Behaviour(msgspec.Struct, frozen=True):
    """``exit_after`` seconds after start the process exits with ``exit_code`` (None: runs until
    killed). ``start_error`` is the runtime's message when the process cannot even start."""

    exit_after: float | None
    exit_code: int = 0
    start_error: str = ""
    #: ``(seconds, path, exists)``: files the script creates (``touch``, ``>``) or removes (``rm``), in order
    files: tuple[tuple[float, str, bool], ...] = ()
    #: PID 1 is a shell or ``sleep`` with no SIGTERM handler: the signal is ignored (killed at the grace
    #: period, exit code 137), as with a real ``busybox sleep 3600`` pod
    ignores_sigterm: bool = False
    #: a loop waiting for a name to resolve (``until nslookup NAME; do ...; sleep P; done``): its first
    #: lookup ``wait_start`` seconds after start, then one every ``wait_poll``; ``exit_after``/``exit_code``
    #: then count from the lookup that succeeds. ``{namespace}`` in the name is the pod's namespace.
    wait_for: str = ""
    wait_start: float = 0.0
    wait_poll: float = 0.0


FOREVER = Behaviour(None)
_DONE = Behaviour(0.0, 0)

#: exit at once with 0 (coreutils/busybox applets a manifest uses for a one-shot step)
_QUICK = frozenset({
    "echo", "printf", "true", ":", "date", "env", "printenv", "hostname", "ls", "cat", "pwd", "id", "whoami",
    "uname", "touch", "mkdir", "cp", "mv", "rm", "ln", "chmod", "chown", "df", "du", "free", "ps", "nslookup",
    "dig", "host", "ping", "wget", "curl", "tar", "gzip", "gunzip", "base64", "sha256sum", "md5sum", "grep", "sed",
    "awk", "head", "wc", "sort", "tee", "test", "[", "export", "set", "cd", "mount", "umount", "sync", "ip", "ifconfig",
    "nc", "openssl", "git", "apk", "apt-get", "apt", "yum", "pip", "pip3", "npm", "chgrp", "find", "xargs", "basename",
    "dirname", "readlink", "stat", "cut", "tr", "uniq", "sysctl", "ulimit", "umask", "unset", "source", ".", "kubectl",
    "mysql", "psql", "redis-cli", "cksum", "seq", "expr", "tput",
})
#: programs that serve until killed
_SERVERS = frozenset({
    "nginx", "httpd", "apache2", "apache2-foreground", "httpd-foreground", "redis-server", "postgres", "mysqld",
    "mariadbd", "mongod", "mongos", "memcached", "rabbitmq-server", "etcd", "java", "gunicorn", "uvicorn", "hypercorn",
    "daphne", "php-fpm", "caddy", "traefik", "envoy", "haproxy", "consul", "vault", "nomad", "prometheus", "grafana",
    "grafana-server", "alertmanager", "node_exporter", "dnsmasq", "coredns", "kube-apiserver", "kube-proxy",
    "kube-scheduler", "kube-controller-manager", "kubelet", "pause", "/pause", "agnhost", "serve_hostname",
    "zookeeper-server-start.sh", "kafka-server-start.sh", "elasticsearch", "kibana", "logstash", "fluentd", "fluent-bit",
    "td-agent", "filebeat", "telegraf", "influxd", "cassandra", "docker-entrypoint.sh", "entrypoint.sh", "supervisord",
    "cron", "crond", "sshd", "socat", "http-server", "serve", "flask", "rails", "puma", "unicorn", "deno", "bun",
    "vllm", "tritonserver", "text-generation-launcher", "ollama", "jupyter", "tensorboard", "minio", "registry",
    "zookeeper", "nats-server", "squid", "varnishd", "tomcat", "catalina.sh", "jetty", "wildfly", "mosquitto",
})
_SHELLS = frozenset({"sh", "bash", "ash", "dash", "zsh", "ksh"})
_BUILTINS = frozenset({"exit", "cd", "export", "source", ".", "set", "unset", "ulimit", "umask", "alias", "return"})
#: image repositories whose default CMD is a shell or REPL (exits at once without a TTY)
_SHELL_IMAGES = frozenset({
    "busybox", "alpine", "debian", "ubuntu", "centos", "fedora", "rockylinux", "almalinux", "amazonlinux", "archlinux",
    "opensuse/leap", "perl", "python", "ruby", "node", "golang", "rust", "openjdk", "eclipse-temurin", "amazoncorretto",
    "php", "bash", "buildpack-deps", "oraclelinux", "clearlinux", "photon", "gcc", "erlang", "elixir", "haskell",
    "julia", "r-base", "swift", "clojure", "groovy", "maven", "gradle", "pypy", "registry.k8s.io/busybox",
    "gcr.io/google-containers/busybox", "k8s.gcr.io/busybox", "quay.io/prometheus/busybox", "curlimages/curl",
    "bitnami/kubectl", "nicolaka/netshoot",
})


def _image_name(image: str) -> str:
    """``docker.io/library/busybox:1.36`` -> ``busybox``; other registries keep their path."""
    name = image.split("@", 1)[0]
    slash = name.rfind("/")
    colon = name.rfind(":")
    if colon > slash:
        name = name[:colon]
    for prefix in ("docker.io/library/", "index.docker.io/library/", "library/", "docker.io/", "index.docker.io/"):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def _env(spec: Container) -> set[str]:
    return {e.name or "" for e in spec.env or ()}


def _image_default(spec: Container) -> Behaviour | None:
    """The image's own ENTRYPOINT/CMD (no command, no args), for the images whose default we know."""
    name = _image_name(spec.image or "")
    if name in _SHELL_IMAGES or name.rsplit("/", 1)[-1] in ("busybox", "alpine", "debian", "ubuntu"):
        return None if spec.stdin or spec.tty else _DONE
    env = _env(spec)
    if name == "postgres" and not env & {"POSTGRES_PASSWORD", "POSTGRES_HOST_AUTH_METHOD"}:
        return Behaviour(0.5, 1)  # "Database is uninitialized and superuser password is not specified."
    if name in ("mysql", "mariadb") and not env & {"MYSQL_ROOT_PASSWORD", "MYSQL_ALLOW_EMPTY_PASSWORD",
                                                   "MYSQL_RANDOM_ROOT_PASSWORD", "MARIADB_ROOT_PASSWORD",
                                                   "MARIADB_ALLOW_EMPTY_ROOT_PASSWORD",
                                                   "MARIADB_RANDOM_ROOT_PASSWORD"}:
        return Behaviour(0.5, 1)  # "You need to specify one of the following as an environment variable: ..."
    return None


def behaviour(spec: Container) -> Behaviour | None:
    """What the container ``spec`` (typed) does by its command, args and image; None: nothing is known (the
    image profile decides, by default a process that serves until killed)."""
    command = spec.command or ()
    args = spec.args or ()
    if not command and not args:
        return _image_default(spec)
    argv = tuple(str(a) for a in (*command, *args))
    if not command:
        # args replace CMD; with an image whose ENTRYPOINT we do not know, they are the command when they
        # name a program we know (busybox-style images have no ENTRYPOINT)
        first = argv[0].rsplit("/", 1)[-1]
        if first not in _QUICK and first not in _SERVERS and first not in _SHELLS and first not in (
                "sleep", "false", "exit", "perl", "python", "python3", "node", "ruby", "tail"):
            return None
    return _argv_behaviour(argv)


# bound: one entry per distinct container command line in the cluster
@memoize("kubelet.command._argv_behaviour", maxsize=4096)
def _argv_behaviour(argv: tuple[str, ...]) -> Behaviour | None:
    b = _argv_behaviour_inner(argv)
    prog = argv[0].rsplit("/", 1)[-1]
    if prog == "busybox" and len(argv) > 1:
        prog = argv[1]
    handles = prog in _SHELLS and re.search(r"\btrap\b|\bexec\s", " ".join(argv)) is not None
    if b is not None and (prog in _SHELLS or prog in ("sleep", "tail")) and not handles:
        return msgspec.structs.replace(b, ignores_sigterm=True)
    return b


def _argv_behaviour_inner(argv: tuple[str, ...]) -> Behaviour | None:
    prog = argv[0].rsplit("/", 1)[-1]
    if prog in _SHELLS:
        rest = argv[1:]
        while rest and rest[0].startswith("-") and "c" not in rest[0]:
            rest = rest[1:]
        if rest and rest[0].startswith("-") and "c" in rest[0] and len(rest) > 1:
            return script_behaviour(rest[1])
        if not rest:
            return _DONE  # a shell with no script and no TTY reads EOF and exits 0
        return None  # sh script.sh: unknown script
    if argv[0] in _BUILTINS:
        return Behaviour(0.0, 128, start_error=(
            f'failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create '
            f'failed: unable to start container process: exec: "{argv[0]}": executable file not found in $PATH: '
            'unknown'))
    code, seconds, forever = _simple(list(argv))
    if forever:
        return FOREVER
    if code is None:
        return None
    return Behaviour(seconds, code)


_SPLIT = re.compile(r"(&&|\|\||;|\n|\bdo\b|\bdone\b|\bthen\b|\bfi\b|\belse\b)")
_LOOP_FOREVER = re.compile(r"\b(while\s+(true|:|\[\s*1\s*\]|sleep\s+\S+)|until\s+false)(?=[\s;]|$)")
_FOR = re.compile(r"\bfor\s+\w+\s+in\s+([^;\n]*?)\s*;?\s*do\b(.*?)\bdone\b", re.S)


#: a loop that polls until a DNS lookup succeeds: ``until nslookup N; do ...; done``, ``while ! host N; ...``
_WAIT_LOOP = re.compile(r"\b(?:until|while\s+!)\s+(?P<check>(?:nslookup|host|getent\s+hosts)\s+[^;\n]*?)\s*;?\s*"
                        r"\bdo\b(?P<body>.*?)\bdone\b", re.S)
#: the service account's namespace file the docs' example reads the pod's namespace from
_NS_FILE = re.compile(r"\$\(\s*cat\s+/var/run/secrets/kubernetes\.io/serviceaccount/namespace\s*\)|"
                      r"`\s*cat\s+/var/run/secrets/kubernetes\.io/serviceaccount/namespace\s*`")


def _wait_loop(script: str) -> Behaviour | None:
    """A script whose first loop waits for a name to resolve (see :class:`Behaviour`), or None."""
    m = _WAIT_LOOP.search(script)
    if m is None:
        return None
    try:
        words = shlex.split(_NS_FILE.sub("{namespace}", m.group("check")), comments=True)
    except ValueError:
        return None
    args = [w for w in words[1:] if not w.startswith("-") and w not in (">", "2>&1", "/dev/null", ">/dev/null")
            and not w.startswith(">")]
    if words[0] == "getent":
        args = args[1:]
    if not args:
        return None
    head = script[:m.start()]
    _, before, forever, exited = _eval(head) if head.strip() else (0, 0.0, False, False)
    if forever or exited:
        return None
    _, poll, _, _ = _eval(m.group("body"))
    tail = script[m.end():]
    after = script_behaviour(tail) if tail.strip() else _DONE
    if after is None or after.wait_for:
        return None
    return msgspec.structs.replace(after, wait_for=args[0], wait_start=before, wait_poll=poll or 1.0, files=())


# bound: one entry per distinct shell script in container commands
@memoize("kubelet.command.script_behaviour", maxsize=4096)
def script_behaviour(script: str) -> Behaviour | None:
    """A ``sh -c`` script, evaluated as described in the module docstring."""
    waits = _wait_loop(script)
    if waits is not None:
        return waits
    files: list[tuple[float, str, bool]] = []
    if _LOOP_FOREVER.search(script) or re.search(r"\btail\s+-f\b", script):
        # a loop that never ends (or a follow); commands before it may still stop the script first
        head = _LOOP_FOREVER.split(script, maxsplit=1)[0]
        head = re.split(r"\btail\s+-f\b", head, maxsplit=1)[0]
        pre = _eval(head, files) if head.strip() else (0, 0.0, False, False)
        code, seconds, forever, exited = pre
        if exited:
            return Behaviour(seconds, code, files=tuple(files))
        return Behaviour(None, files=tuple(files))
    code, seconds, forever, exited = _eval(_expand_for(script), files)
    if forever:
        return Behaviour(None, files=tuple(files))
    return Behaviour(seconds, code, files=tuple(files))


def _expand_for(script: str) -> str:
    def repl(m: re.Match[str]) -> str:
        words = m.group(1).split()
        n = len(words)
        if len(words) == 1 and (brace := re.fullmatch(r"\{(\d+)\.\.(\d+)\}", words[0])):
            n = abs(int(brace.group(2)) - int(brace.group(1))) + 1
        if words[:1] == ["$(seq"] or words[:1] == ["`seq"]:
            try:
                n = int(words[-1].rstrip(")`"))
            except ValueError:
                n = 1
        return ";".join([m.group(2)] * max(n, 0)) or "true"
    return _FOR.sub(repl, script)


def _eval(script: str, files: list[tuple[float, str, bool]] | None = None) -> tuple[int, float, bool, bool]:
    """``(exit code, seconds, runs forever, stopped by exit)`` of a flat script; file creations and
    removals are appended to ``files``."""
    parts = [p for p in _SPLIT.split(script) if p is not None]
    code, seconds = 0, 0.0
    op = ";"
    for i, part in enumerate(parts):
        token = part.strip()
        if token in ("&&", "||", ";", "\n", "do", "done", "then", "fi", "else", ""):
            if token in ("&&", "||"):
                op = token
            elif token or part == "\n":
                op = ";"
            continue
        run = op == ";" or (op == "&&" and code == 0) or (op == "||" and code != 0)
        op = ";"
        if not run:
            continue
        try:
            words = shlex.split(token, comments=True)
        except ValueError:
            words = token.split()
        while words and ("=" in words[0] and not words[0].startswith("=")):  # FOO=bar cmd
            words = words[1:]
        if not words or words[0] in ("if", "while", "until", "for", "case", "esac", "{", "}", "(", ")"):
            if words and words[0] in ("if", "while", "until") and len(words) > 1:
                words = words[1:]
            else:
                continue
        if words[0] == "exec" and len(words) > 1:
            words = words[1:]
        if files is not None:
            _file_ops(words, seconds, files)
        if words[0] == "exit":
            try:
                return int(words[1]) & 255 if len(words) > 1 else code, seconds, False, True
            except ValueError:
                return 2, seconds, False, True
        c, s, forever = _simple(words)
        if forever:
            return 0, seconds, True, False
        if c is None:
            # a program we do not know: the last one is the workload (it serves), earlier ones set up
            if all(p.strip() in ("", ";", "&&", "||") for p in parts[i + 1:]):
                return 0, seconds, True, False
            c, s = 0, 0.0
        code, seconds = c, seconds + s
    return code, seconds, False, False


def _file_ops(words: Sequence[str], at: float, files: list[tuple[float, str, bool]]) -> None:
    prog = words[0].rsplit("/", 1)[-1]
    if prog == "touch":
        files.extend((at, w, True) for w in words[1:] if not w.startswith("-"))
    elif prog == "rm":
        files.extend((at, w, False) for w in words[1:] if not w.startswith("-"))
    for i, w in enumerate(words):
        if w in (">", ">>") and i + 1 < len(words):
            files.append((at, words[i + 1], True))
        elif w.startswith(">") and len(w) > 1 and not w.startswith(">&"):
            files.append((at, w.lstrip(">"), True))


def file_exists(files: Sequence[tuple[float, str, bool]], path: str, elapsed: float) -> bool:
    """Whether ``path`` exists ``elapsed`` seconds after start by the script's file operations."""
    exists = False
    for t, p, e in files:
        if t > elapsed:
            break
        if p == path:
            exists = e
    return exists


#: exec probe commands whose answer is known: a file check, or a fixed exit code
def exec_probe(command: Sequence[str]) -> tuple[str, str | bool] | None:
    """``("file", path)`` for ``cat P``/``test -e P``/``ls P``/``[ -f P ]`` (also under ``sh -c``),
    ``("fixed", ok)`` for ``true``/``false``/``exit N``; None: the image profile answers."""
    argv = [str(a) for a in command]
    if not argv:
        return None
    if argv[0].rsplit("/", 1)[-1] in _SHELLS and len(argv) >= 3 and argv[1].startswith("-") and "c" in argv[1]:
        try:
            argv = shlex.split(argv[2])
        except ValueError:
            return None
        if not argv:
            return None
    prog = argv[0].rsplit("/", 1)[-1]
    rest = [w for w in argv[1:] if not w.startswith("-") and w not in ("]",)]
    if prog in ("cat", "ls", "stat", "head") and len(rest) == 1:
        return "file", rest[0]
    if prog in ("test", "[") and len(rest) == 1:
        return "file", rest[0]
    if prog == "true":
        return "fixed", True
    if prog == "false":
        return "fixed", False
    if prog == "exit":
        return "fixed", (rest[:1] or ["0"])[0] == "0"
    return None


def _duration(word: str) -> float | None:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([smhd]?)", word)
    if m is None:
        return None
    return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]


def _simple(words: Sequence[str]) -> tuple[int | None, float, bool]:
    """``(exit code or None if unknown, seconds, forever)`` of one simple command."""
    prog = words[0].rsplit("/", 1)[-1]
    rest = list(words[1:])
    if prog == "busybox" and rest:
        prog, rest = rest[0], rest[1:]
    if prog == "sleep":
        if not rest or rest[0] in ("infinity", "inf"):
            return (1, 0.0, False) if not rest else (0, 0.0, True)
        total = 0.0
        for w in rest:
            d = _duration(w)
            if d is None:
                return 1, 0.0, False  # sleep: invalid number
            total += d
        return 0, total, False
    if prog == "false":
        return 1, 0.0, False
    if prog in ("tail", "cat") and ("-f" in rest or "-F" in rest or (prog == "tail" and "--follow" in rest)):
        return 0, 0.0, True
    if prog in ("yes", "top", "watch"):
        return 0, 0.0, True
    if prog in _SERVERS:
        return 0, 0.0, True
    if prog in ("python", "python3", "python2") or prog.startswith("python3."):
        return _python(rest)
    if prog in ("perl", "node", "ruby", "php"):
        return _one_shot(prog, rest)
    if prog in ("nc", "ncat") and any(w.startswith("-l") or w == "-lk" for w in rest):
        return 0, 0.0, True
    if prog in _QUICK:
        return 0, 0.0, False
    if prog in _SHELLS:
        b = _argv_behaviour(tuple(words))
        if b is None:
            return None, 0.0, False
        return (0, 0.0, True) if b.exit_after is None else (b.exit_code, b.exit_after, False)
    return None, 0.0, False


def _python(rest: Sequence[str]) -> tuple[int | None, float, bool]:
    if "-c" in rest:
        code = " ".join(rest[rest.index("-c") + 1:])
        if re.search(r"\bwhile\s+True\b|serve_forever|\.run\(|uvicorn|app\.run", code):
            return 0, 0.0, True
        seconds = 1.0 + sum(float(x) for x in re.findall(r"time\.sleep\(\s*(\d+(?:\.\d+)?)\s*\)", code))
        m = re.search(r"\b(?:sys\.)?exit\(\s*(\d+)\s*\)", code)
        return (int(m.group(1)) if m else 0), seconds, False
    if "-m" in rest and rest[rest.index("-m") + 1:rest.index("-m") + 2] in (["http.server"], ["SimpleHTTPServer"],
                                                                           ["uvicorn"], ["gunicorn"], ["flask"]):
        return 0, 0.0, True
    if not rest:
        return 0, 0.0, False  # a REPL without a TTY exits at EOF
    return None, 0.0, False


def _one_shot(prog: str, rest: Sequence[str]) -> tuple[int | None, float, bool]:
    flags = [w for w in rest if w.startswith("-")]
    inline = any(("e" in f and not f.startswith("--")) or f in ("-E",) for f in flags)
    if not rest:
        return 0, 0.0, False  # reads the program from stdin: EOF
    if not inline:
        return None, 0.0, False  # runs a script file: unknown
    code = " ".join(w for w in rest if not w.startswith("-"))
    if re.search(r"\bwhile\s*\(\s*1\s*\)|listen\(|createServer", code):
        return 0, 0.0, True
    seconds = 1.0
    m = re.search(r"bpi\(\s*(\d+)\s*\)", code)
    if prog == "perl" and m:
        seconds = max(1.0, 10.0 * int(m.group(1)) / 2000)
    m = re.search(r"\bsleep\(?\s*(\d+(?:\.\d+)?)", code)
    if m:
        seconds += float(m.group(1))
    m = re.search(r"\bexit\(?\s*(\d+)", code)
    return (int(m.group(1)) & 255 if m else 0), seconds, False
