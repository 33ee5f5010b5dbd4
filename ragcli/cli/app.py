"""The ``ragcli`` Typer app: commands joined, errors turned into one line and an exit code.

Exit codes, for scripts:
    0  success (search found results, ask answered, eval gates passed)
    1  a clean "no": search found nothing, ask abstained, an eval gate failed
    2  bad input or a broken index: one ``error:`` line on stderr
  130  interrupted (Ctrl-C); the published index is untouched
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Iterable
from typing import Annotated, Any, Protocol, runtime_checkable

import typer

from ..errors import RagcliError, os_reason, out_of_descriptors
from .console import error
from .interrupts import EXIT_INTERRUPTED, INTERRUPTED, Watch, forget_handled_interrupts

EXIT_OK, EXIT_NO, EXIT_ERROR = 0, 1, 2

COMMANDS: dict[str, tuple[str, str]] = {
    "ingest": ("ingest", "ingest"),
    "status": ("status", "status"),
    "search": ("search", "search"),
    "ask": ("ask", "ask"),
    "eval": ("evaluate", "eval_command"),
    "watch": ("watch", "watch"),
    "trace": ("trace", "app"),
    "mcp": ("mcp", "mcp"),
    "serve": ("serve", "serve"),
    "keys": ("serve", "keys"),
}
"""Each command: the module of ``ragcli.cli`` that holds it and its function (or, for a group, its Typer app),
in the order ``ragcli --help`` lists them. A command module also holds its ``EPILOG``."""
OWN_CTRL_C = frozenset({"mcp", "serve"})
"""Commands whose event loop takes Ctrl-C itself (asyncio and anyio install their handler, which cancels the main
task first, only over Python's own): ``interrupts.Watch`` leaves SIGINT to them."""


def _print_version(value: bool) -> None:
    if value:
        from .. import __version__

        sys.stdout.write(f"ragcli {__version__}\n")
        raise typer.Exit(0)


def _root(
    version: Annotated[
        bool, typer.Option("--version", help="Print the version and exit.", is_eager=True, callback=_print_version)
    ] = False,
) -> None:
    pass


def _add(app: typer.Typer, name: str) -> None:
    """Register command ``name``, importing its module only now (see ``command``)."""
    if name not in COMMANDS:
        raise ValueError(f"no such command: {name!r}")
    module_name, attribute = COMMANDS[name]
    module = importlib.import_module(f".{module_name}", __package__)
    target = getattr(module, attribute)
    if isinstance(target, typer.Typer):
        app.add_typer(target, name=name)
    else:
        app.command(name, epilog=module.EPILOG)(target)


def typer_app(commands: Iterable[str] = COMMANDS) -> typer.Typer:
    """The ``ragcli`` Typer app with ``commands`` (all of them unless told)."""
    app = typer.Typer(
        name="ragcli",
        help="Answer questions from your team's documents with checked citations, showing each person only the "
        "passages they may see.",
        no_args_is_help=True,
        add_completion=True,
        context_settings={"help_option_names": ["-h", "--help"]},
        pretty_exceptions_enable=False,
        rich_markup_mode="rich",
    )
    app.callback()(_root)
    for name in commands:
        _add(app, name)
    return app


def __getattr__(name: str) -> Any:
    """``app``: the Typer app with every command (for ``typer.testing.CliRunner``), built when first asked."""
    if name == "app":
        value = globals()["app"] = typer_app()
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def command(name: str | None = None) -> Any:
    """The click command behind the app, with help that shows no type names for switches.

    ``name``: only that command under the root, which is all a run of it needs: building the others
    meant importing their modules and reading every signature (~30 ms of a cold ``ragcli ask``).
    None: every command, for ``ragcli --help``, shell completion and an unknown command's suggestion.
    """
    from .coercion import plain_coercion

    cmd = typer.main.get_command(typer_app(COMMANDS if name is None else (name,)))
    _tidy_help(cmd, plain=not sys.stdout.isatty())
    plain_coercion(cmd)  # values converted without a pydantic validator per option (errors stay Typer's)
    return cmd


def _tidy_help(cmd: Any, *, plain: bool) -> None:
    """A switch (``--json``, ``--help``) takes no value, so its help shows no metavar (typer prints ``<bool>``).

    ``plain``: help piped to a pager, grep or a file is plain text, like every other piped output;
    it also starts ~0.15 s sooner, since Rich's help renderer imports a Markdown parser.
    """
    if plain:
        cmd.rich_markup_mode = None
    help_option = cmd.get_help_option(typer.Context(cmd, help_option_names=["-h", "--help"]))
    for param in [*cmd.params, *([help_option] if help_option is not None else [])]:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
        elif param.param_type_name == "argument" and param.metavar:
            # The argument's name (QUERY, PATH) already says what it is; typer would add <str>.
            param.display_type_rich = lambda ctx: None
    for sub in getattr(cmd, "commands", {}).values():
        _tidy_help(sub, plain=plain)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; every RagcliError or usage error becomes one ``error:`` line and exit 2, and a Ctrl-C while a
    command runs one line and exit 130, whatever exception a library made of it (``interrupts``; ``serve`` stops
    with 0)."""
    args = list(sys.argv[1:] if argv is None else argv)  # for hints only: click reads sys.argv itself when None
    name = args[0] if args and args[0] in COMMANDS else None
    with Watch(enabled=name not in OWN_CTRL_C) as ctrl_c:
        try:
            from .plugins import skip_an_empty_plugin_search

            skip_an_empty_plugin_search()
            # Without standalone mode the parser returns an Exit's code instead of exiting.
            result = command(name).main(args=argv, prog_name="ragcli", standalone_mode=False)
        except KeyboardInterrupt:
            return _interrupted()
        except Exception as exc:
            return _interrupted() if ctrl_c.seen else _failed(exc, args)
    if result == EXIT_INTERRUPTED:  # typer turns Ctrl-C into a silent return of 130
        return _interrupted()
    return result if isinstance(result, int) else EXIT_OK


def _interrupted() -> int:
    """A Ctrl-C, however it reached ``main``: its one line, and the exit code scripts read it by."""
    error(INTERRUPTED)
    return EXIT_INTERRUPTED


def _failed(exc: Exception, args: list[str]) -> int:
    """The exit code of a run that raised ``exc`` (after its one ``error:`` line); ``exc`` itself when it is none of
    ours, click's or an exhausted descriptor table: a bug, whose traceback is what to report."""
    if isinstance(exc, RagcliError):
        error(exc.message)
        return EXIT_ERROR
    if isinstance(exc, BrokenPipeError):
        return EXIT_NO
    if isinstance(exc, OSError):
        if not out_of_descriptors(exc):
            raise  # called from main's except clause: the exception as raised, with its own traceback
        error(f"cannot run: {os_reason(exc)}")  # any command; ingest says what became of the index itself
        return EXIT_ERROR
    # Typer ships its own copy of click, so its exception classes are
    # matched by shape rather than imported from a private module.
    if type(exc).__name__ == "NoArgsIsHelpError":
        if not sys.stdout.isatty() and isinstance(exc, _ClickError):
            # Plain help (see _tidy_help) is carried by the exception; Rich help was printed already.
            sys.stdout.write(exc.format_message() + "\n")
        return EXIT_OK  # bare ``ragcli`` (or ``ragcli trace``): the help was printed, which is what was asked
    if type(exc).__name__ == "Abort":
        return _interrupted()
    if isinstance(exc, _ClickError):
        error(_option_like_text(exc, args) or _usage_message(exc))
        return EXIT_ERROR
    exit_code = getattr(exc, "exit_code", None)
    if type(exc).__name__ == "Exit" and isinstance(exit_code, int):
        return exit_code
    raise


@runtime_checkable
class _ClickError(Protocol):
    """The shape of click's usage errors (``format_message``), matched by shape: see ``main``."""

    def format_message(self) -> str: ...


def _usage_message(exc: _ClickError) -> str:
    message = " ".join(exc.format_message().split())
    if type(exc).__name__ == "NoSuchOption":
        message = _no_such_option(exc)
    param = getattr(exc, "param", None)
    param_name = getattr(param, "name", None)
    name = getattr(param, "opts", None) or ([param_name] if param_name else None)
    ctx = getattr(exc, "ctx", None)
    command = getattr(ctx, "command_path", "ragcli") if ctx is not None else "ragcli"
    if name and name[0] not in message:
        message = f"{name[0]}: {message}"
    return f"{message} (see: {command} --help)"


TEXT_ARGUMENT_VERBS = {"search": "search for", "ask": "ask"}
"""Commands whose one argument is free text, which may start with a dash (``--no-dev``)."""


def _option_like_text(exc: object, args: list[str]) -> str | None:
    """When the text to search for (or ask) was taken for an unknown option, how to pass it: after ``--``.

    ``ragcli search --no-dev --as me.json`` reads ``--no-dev`` as an option; the
    hint is given only when moving it after ``--`` makes it the query.
    """
    ctx = getattr(exc, "ctx", None)
    option = getattr(exc, "option_name", None)
    verb = TEXT_ARGUMENT_VERBS.get(getattr(ctx, "info_name", None) or "")
    if type(exc).__name__ != "NoSuchOption" or ctx is None or not option or verb is None or "--" in args:
        return None
    start = args.index(ctx.info_name) + 1 if ctx.info_name in args else 0
    rest = args[start:]
    token = next((a for a in rest if a == option or a.startswith(option + "=")), None)
    if token is None:
        return None
    suggested = [a for a in rest if a is not token] + ["--", token]
    argument = next((p.name for p in ctx.command.params if p.param_type_name == "argument"), None)
    try:
        parsed = ctx.command.make_context(ctx.info_name, list(suggested), resilient_parsing=True)
    except Exception:  # another unknown option, a bad value: no hint, the usual message
        return None
    if argument is None or parsed.params.get(argument) != token:
        return None
    import shlex

    return (
        f'to {verb} "{token}", put -- before it: {shlex.join([ctx.command_path.split()[0], ctx.info_name, *suggested])}'
    )


def _no_such_option(exc: object) -> str:
    """``No such option: --k``, with the option it resembles (``-k``) even when only the dashes differ."""
    option = str(getattr(exc, "option_name", "") or "")
    ctx = getattr(exc, "ctx", None)
    known = [o for p in getattr(getattr(ctx, "command", None), "params", []) for o in (*p.opts, *p.secondary_opts)]
    same = [o for o in known if o.startswith("-") and o.lstrip("-") == option.lstrip("-").split("=")[0]]
    if same:
        return f"No such option: {option}; did you mean {same[0]}?"
    import difflib

    close = difflib.get_close_matches(option, [o for o in known if o.startswith("--")], n=1)
    return f"No such option: {option}" + (f"; did you mean {close[0]}?" if close else "")


def run() -> None:
    code = main()
    forget_handled_interrupts()  # main handled every Ctrl-C: its exit code stands (``interrupts``)
    sys.exit(code)
