#!/usr/bin/env python3
"""Generates ``man/`` (kcli.1 and one page per command) and ``completions/`` (bash, zsh, fish,
PowerShell) from kcli's click command tree. ``python scripts/gen_docs.py`` rewrites them;
``--check`` exits 1 when a committed file differs (tests/cli/test_generated_docs.py does the same
in-process). No dependencies beyond kcli itself: the roff and the shell scripts are written here."""

from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import typer  # noqa: E402

from kcli import __version__  # noqa: E402
from kcli.cli.tree import DROPINS  # noqa: E402
from kcli.errors import EXIT_FAILED, EXIT_FOUND, EXIT_OK, EXIT_PARTIAL, EXIT_USAGE  # noqa: E402
from kcli.render.output import FORMATS  # noqa: E402
from kcli.specs import NAMED_TIMES  # noqa: E402

EXIT_CODES = [
    (EXIT_OK, "success, also when the reader of stdout stops early (kcli ... | head)"),
    (EXIT_FAILED, "the operation failed (nothing applied, or as the message states)"),
    (EXIT_USAGE, "bad usage or input; nothing was sent to the cluster"),
    (EXIT_PARTIAL, "partly applied, or a change sent and not answered (its outcome unknown); the output names "
                   "exactly what was applied, what was not and what is unknown; or a view shown in part, "
                   "one line naming what the principal was refused"),
    (EXIT_FOUND, "a check found a problem (kcli check ...); the output names it"),
]
ENVIRONMENT = [
    ("KCLI_BOOTSTRAP_SERVER", "bootstrap servers when -b is not given; overrides the servers of a "
                              "profile chosen by KCLI_PROFILE or default_profile, not of one given as --profile"),
    ("KCLI_PROFILE", "the profile to use when --profile is not given"),
    ("XDG_CONFIG_HOME", "where kcli/config.toml (the profiles) is read; default ~/.config"),
    ("NO_COLOR", "when set, no colour even on a terminal"),
]
FILES = [("$XDG_CONFIG_HOME/kcli/config.toml",
          "profiles: [profiles.NAME] tables with bootstrap_servers, properties = {...} and/or "
          "properties_file = \"path\"; an optional top-level default_profile"),
         ("$XDG_STATE_HOME/kcli/partitions/",
          "what kcli saw of each topic's partitions, one file per cluster (when each partition was first "
          "seen, when its topic was last seen without it), written by every command that lists partitions: "
          "the bounds --to-latest --max-age and check expansions decide by where the broker reports no "
          "creation times")]
ROLLBACK_FILES = ("$XDG_STATE_HOME/kcli/rollback/",
                  "rollback files (default ~/.local/state/kcli/rollback/): before each reset --execute, the "
                  "group's committed offsets, as kafka-consumer-groups' reset CSV, in a new file named on "
                  "stderr, never overwritten; undo the reset with kcli reset-offsets --from-file FILE "
                  "--execute (kcli's own rollback files restore without --allow-skip)")
# The pages that list more FILES than the config file: commands that write rollback files.
PAGE_FILES = {"reset-offsets": [ROLLBACK_FILES], "kafka-consumer-groups": [ROLLBACK_FILES]}

# The man pages: a man hierarchy (section 1), so that MANPATH="$PWD/man:" finds them in a clone.
MAN_DIR = "man/man1"

# What a value or an argument names, for dynamic completion.
OPTION_KINDS = {"--topic": "topics", "-t": "topics", "--group": "groups", "-g": "groups",
                "--profile": "profiles", "--output": "=" + " ".join(FORMATS), "-o": "=" + " ".join(FORMATS),
                "--command-config": "file", "--from-file": "file", "--rollback-file": "file",
                "--data-dir": "file", "--save": "file", "--baseline": "file", "--jars": "file",
                "--time": "=" + " ".join(name for name in NAMED_TIMES if not name.startswith("-"))}
CONNECTION_OPTIONS = ("-b", "--bootstrap-server", "--command-config", "--profile")
# What a drop-in option's value names (the Java tools' spellings), for dynamic completion.
DROPIN_KINDS = {"--topic": "topics", "--group": "groups", "--command-config": "file", "--from-file": "file",
                "--add-config-file": "file", "--entity-type": "=topics brokers"}
# The console scripts of the drop-ins (pyproject's [project.scripts]): completed as `kcli TOOL`.
DROPIN_SCRIPTS = " ".join(f"kcli-{tool}" for tool in sorted(DROPINS))


# -- the command tree -------------------------------------------------------------------------
@dataclass
class Cmd:
    path: list[str]
    command: object
    subcommands: list["Cmd"] = field(default_factory=list)

    @property
    def name(self) -> str:
        return " ".join(["kcli", *self.path])

    @property
    def page(self) -> str:
        return "-".join(["kcli", *self.path])

    @property
    def params(self):
        return [p for p in self.command.params if not getattr(p, "hidden", False)]

    def walk(self):
        yield self
        for sub in self.subcommands:
            yield from sub.walk()


def command_tree() -> Cmd:
    from kcli.cli.tree import build

    app = build()

    def build(cmd, path):
        node = Cmd(path, cmd)
        for name in sorted(getattr(cmd, "commands", {}) or {}):
            sub = cmd.commands[name]
            if not getattr(sub, "hidden", False):
                node.subcommands.append(build(sub, [*path, name]))
        return node

    return build(typer.main.get_command(app), [])


def _help(cmd) -> str:
    return inspect.cleandoc(cmd.help or "")


def _short(cmd) -> str:
    text = (getattr(cmd, "short_help", None) or _help(cmd)).split("\n\n")[0].replace("\n", " ")
    return text.rstrip(".")


def _is_option(p) -> bool:
    return p.param_type_name == "option"


def _takes_value(p) -> bool:
    return _is_option(p) and not p.is_flag and not p.count


def _metavar(p) -> str:
    if p.metavar:
        return p.metavar
    if _is_option(p):
        return {"int": "N", "float": "X"}.get(getattr(p.type, "name", None), "VALUE")
    return p.name.upper() + ("..." if p.nargs == -1 else "")


def _arg_kind(p) -> str:
    """What an argument's or option's value names, by its metavar; a NEW-... name (create topic's)
    names nothing that exists yet."""
    mv = (p.metavar or "").upper()
    if mv.startswith("NEW-"):
        return ""
    if mv == "SHELL":                       # kcli completion SHELL
        from kcli.cli.complete import SCRIPTS

        return "=" + " ".join(SCRIPTS)
    return "topics" if "TOPIC" in mv else "groups" if "GROUP" in mv else ""


def _option_kind(p, option: str) -> str:
    if (p.metavar or "").upper().startswith("NEW-"):
        return ""
    return OPTION_KINDS.get(option, "")


# -- man pages --------------------------------------------------------------------------------
def _roff(text: str) -> str:
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join("\\&" + line if line[:1] in (".", "'") else line for line in text.split("\n"))


def _paragraphs(text: str) -> str:
    return "\n.PP\n".join(_roff(" ".join(par.split())) for par in text.split("\n\n") if par.strip())


def _option_entry(p) -> str:
    if _is_option(p):
        names = ", ".join(f"\\fB{_roff(o)}\\fR" for o in [*p.opts, *p.secondary_opts])
        head = names + (f" \\fI{_roff(_metavar(p))}\\fR" if _takes_value(p) else "")
    else:
        head = f"\\fI{_roff(_metavar(p))}\\fR"
    text = " ".join((p.help or "").split())
    extras = []
    if _is_option(p) and p.multiple and "repeatable" not in text and f"a second {p.opts[0]}" not in text:
        extras.append("repeatable")
    if p.envvar:
        extras.append(f"env {p.envvar}")
    if _takes_value(p) and p.default not in (None, (), []) and not callable(p.default):
        extras.append(f"default: {p.default}")
    if extras:
        text += f" [{'; '.join(extras)}]"
    return f".TP\n{head}\n{_roff(text) or '.'}".replace("\n.\n", "\n")


def _examples(path: str) -> list[str]:
    """The EXAMPLES section: the same examples as the command's --help (kcli.cli.examples)."""
    from kcli.cli.examples import EXAMPLES

    lines = [".SH EXAMPLES"] if EXAMPLES.get(path) else []
    for line, what in EXAMPLES.get(path, []):
        lines += [".TP", f"\\fB{_roff(line)}\\fR", _roff(what[0].upper() + what[1:] + ".")]
    return lines


def _aliases(path: str) -> list[str]:
    from kcli.cli.tree import aliases_of

    names = [f"kcli {alias}" for alias in aliases_of(path)]
    return [".PP", _roff(f"Also spelled {' or '.join(names)}.")] if names else []


def _common_sections(see_also: list[str], files: list[tuple[str, str]] = ()) -> list[str]:
    lines = [".SH EXIT STATUS"]
    for code, meaning in EXIT_CODES:
        lines += [".TP", f".B {code}", _roff(meaning)]
    lines += [".PP", _roff("Errors are one line on stderr; with -o json, a JSON document "
                           "{\"schema\": \"kcli.error/v2\", \"error\": ..., \"exitCode\": N} on stderr.")]
    lines += [".SH ENVIRONMENT"]
    for name, meaning in ENVIRONMENT:
        lines += [".TP", f".B {name}", _roff(meaning)]
    lines += [".SH FILES"]
    for name, meaning in [*FILES, *files]:
        lines += [".TP", f".I {_roff(name)}", _roff(meaning)]
    lines += [".SH SEE ALSO", ",\n".join(f".BR {p} (1)" for p in see_also)]
    return lines


def _header(page: str, summary: str) -> list[str]:
    return ['.\\" Generated by scripts/gen_docs.py from the kcli command tree; do not edit.',
            f'.TH {page.upper()} 1 "" "kcli {__version__}" "kcli manual"',
            ".SH NAME", f"{_roff(page)} \\- {_roff(summary)}"]


def man_root(tree: Cmd) -> str:
    root = tree.command
    lines = _header("kcli", "operate Apache Kafka topics, consumer groups and offsets")
    lines += [".SH SYNOPSIS", ".B kcli", "[\\fIGLOBAL OPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]...",
              ".SH DESCRIPTION", _paragraphs(_help(root)), ".SH COMMANDS"]
    leaves = [c for c in tree.walk() if not c.subcommands]
    for c in leaves:
        lines += [".TP", f".B {_roff(c.name)}", _roff(_short(c.command)) + f". See \\fB{_roff(c.page)}\\fR(1)."]
    lines += [".SH GLOBAL OPTIONS", _roff("Accepted anywhere on the command line.")]
    lines += [_option_entry(p) for p in tree.params]
    lines += _examples("")
    lines += [".SH PROFILES", _paragraphs(
        "Named clusters live in $XDG_CONFIG_HOME/kcli/config.toml (default ~/.config/kcli/config.toml), "
        "one [profiles.NAME] table each with bootstrap_servers, properties = { \"key\" = \"value\" } "
        "and/or properties_file = \"path\" (relative to the config file). The profile is chosen by "
        "--profile, else KCLI_PROFILE, else the top-level default_profile. -b and --command-config "
        "override the profile key by key. The bootstrap servers are -b's, else those of a profile given "
        "as --profile, else KCLI_BOOTSTRAP_SERVER, else those of a profile KCLI_PROFILE or "
        "default_profile chose: what is typed on the line wins over the environment.\n\n"
        "Client properties are Kafka's (security.protocol, sasl.mechanism, sasl.username, "
        "sasl.password, ssl.*). A Java sasl.jaas.config with PlainLoginModule or ScramLoginModule is "
        "translated to sasl.username and sasl.password. Secret values never appear in kcli's output.")]
    lines += _common_sections([c.page for c in leaves])
    return "\n".join(lines) + "\n"


def man_command(c: Cmd) -> str:
    lines = _header(c.page, _short(c.command))
    args = [p for p in c.params if not _is_option(p)]
    opts = [p for p in c.params if _is_option(p)]
    synopsis = " ".join(f"\\fI{_roff(_metavar(p))}\\fR" if p.required or _metavar(p).startswith("[")
                        else f"[\\fI{_roff(_metavar(p))}\\fR]" for p in args)
    lines += [".SH SYNOPSIS", f".B {_roff(c.name)}", f"[\\fIOPTIONS\\fR] {synopsis}".rstrip(),
              ".SH DESCRIPTION", _paragraphs(_help(c.command)) or _roff(_short(c.command))]
    lines += _aliases(" ".join(c.path))
    if args:
        lines += [".SH ARGUMENTS"] + [_option_entry(p) for p in args]
    if opts:
        lines += [".SH OPTIONS"] + [_option_entry(p) for p in opts]
    path = " ".join(c.path)
    if path in DROPINS:
        lines += _dropin_options(path)
    else:
        lines += [".SH GLOBAL OPTIONS", _roff(
            "-b/--bootstrap-server, --command-config, --profile, -o/--output, --timeout and --verbose, "
            "anywhere on the line; see kcli(1).")]
    lines += _examples(path)
    lines += _common_sections(["kcli"], PAGE_FILES.get(path, []))
    return "\n".join(lines) + "\n"


def _dropin_options(tool: str) -> list[str]:
    """A drop-in's OPTIONS: the Java tool's own option table, as its --help prints it."""
    import io

    from kcli.cli.main import run

    out, err = io.StringIO(), io.StringIO()
    run([tool, "--help"], out, err)
    table = (out.getvalue() + err.getvalue()).splitlines()[1:]     # after the tool's one-line summary
    return [".SH OPTIONS", _roff(f"The options of Apache Kafka's {tool} tool, as its --help prints "
                                 f"them. kcli's global options go before the name (kcli --profile prod {tool} ...): "
                                 "--timeout bounds "
                                 f"the command, -b and --profile supply the bootstrap servers the line lacks, "
                                 f"--command-config and the profile's properties the client settings (the line's "
                                 f"--command-config overrides them key by key), --verbose adds a Detail: line on "
                                 f"stderr to an error; -o is refused unless plain (the output is the Java tool's "
                                 f"text). Also installed as kcli-{tool}, whose line is the Java tool's alone."),
            ".PP", ".nf", *(_roff(line.rstrip().replace("\t", "        ")) or "." for line in table), ".fi"]


def man_pages(tree: Cmd) -> dict[str, str]:
    pages = {f"{MAN_DIR}/kcli.1": man_root(tree)}
    for c in tree.walk():
        if c.path and not c.subcommands:
            pages[f"{MAN_DIR}/{c.page}.1"] = man_command(c)
    return pages


# -- completion spec --------------------------------------------------------------------------
def completion_spec(tree: Cmd) -> dict[str, str]:
    """Flat key -> words table every shell script embeds: ``subs:PATH``, ``opts:PATH``,
    ``vopts:PATH`` (options taking a value), ``arg:PATH`` (what positionals name) and
    ``kind:PATH OPTION`` (what an option's value names); PATH ``global`` holds the global options."""
    spec: dict[str, str] = {}
    spec["opts:global"] = " ".join(o for p in tree.params if _is_option(p) for o in p.opts) + " --help"
    spec["vopts:global"] = " ".join(o for p in tree.params if _takes_value(p) for o in p.opts)
    for p in tree.params:
        for o in p.opts if _is_option(p) else []:
            if _takes_value(p) and o in OPTION_KINDS:
                spec[f"kind:global {o}"] = OPTION_KINDS[o]
    for c in tree.walk():
        if c.subcommands:
            spec[f"subs:{c.name}"] = " ".join(s.path[-1] for s in c.subcommands)
        if not c.path:
            continue
        opts = [p for p in c.params if _is_option(p)]
        if opts:
            spec[f"opts:{c.name}"] = " ".join(o for p in opts for o in p.opts)
        vopts = [o for p in opts if _takes_value(p) for o in p.opts]
        if vopts:
            spec[f"vopts:{c.name}"] = " ".join(vopts)
        for p in opts:
            for o in p.opts if _takes_value(p) else []:
                if _option_kind(p, o):
                    spec[f"kind:{c.name} {o}"] = _option_kind(p, o)
        kinds = {_arg_kind(p) for p in c.params if not _is_option(p)} - {""}
        if kinds:
            spec[f"arg:{c.name}"] = kinds.pop()
    for tool in sorted(DROPINS):
        spec.update(dropin_spec(tool))
    return spec


def dropin_spec(tool: str) -> dict[str, str]:
    """A drop-in's words from its Java grammar: its options, those taking a value, what a value
    names; ``java:PATH`` marks a line on which kcli's global options are no options (they go
    before the tool's name)."""
    import importlib

    from kcli.cli.dropin.jopt import REQUIRED
    from kcli.cli.dropin.run import TOOLS

    options = importlib.import_module(f"kcli.cli.dropin.{TOOLS[tool]}").OPTIONS
    path = f"kcli {tool}"
    spec = {f"java:{path}": "1", f"opts:{path}": " ".join(f"--{o.name}" for o in options),
            f"vopts:{path}": " ".join(f"--{o.name}" for o in options if o.arg == REQUIRED)}
    for o in options:
        if o.arg == REQUIRED and f"--{o.name}" in DROPIN_KINDS:
            spec[f"kind:{path} --{o.name}"] = DROPIN_KINDS[f"--{o.name}"]
    return spec


HEADER = "Generated by scripts/gen_docs.py from the kcli command tree; do not edit."


def _sh_case(spec: dict[str, str], indent: str) -> str:
    return "\n".join(f"{indent}'{k}') echo '{v}' ;;" for k, v in sorted(spec.items()))


def bash_script(spec: dict[str, str]) -> str:
    return f"""# kcli completion for bash. {HEADER}
# Install: source this file from ~/.bashrc, or copy it to ~/.local/share/bash-completion/completions/kcli
_kcli_spec() {{
    case "$1" in
{_sh_case(spec, "        ")}
    esac
}}

_kcli_has() {{  # word list, word
    [[ " $1 " == *" $2 "* ]]
}}

_kcli_completion() {{
    # The words are re-split from the line on blanks only: bash's COMP_WORDS also breaks at ':'
    # and '=' (COMP_WORDBREAKS), which would cut -b host:port and --bootstrap-server=host:port.
    local line="${{COMP_LINE:0:COMP_POINT}}" path="kcli" w i skip="" opt="" vopt="" kind="" gl="global"
    local -a words=() conn=()
    read -ra words <<< "$line"
    [[ -z $line || $line == *[[:blank:]] ]] && words+=("")
    local n=$((${{#words[@]}} - 1))
    local word="${{words[n]}}"
    local cur="$word" exe="${{words[0]}}" base="${{words[0]##*/}}"
    if [[ $base == kcli-* ]]; then      # a drop-in's console script: kcli TOOL; names from kcli beside it
        path="kcli ${{base#kcli-}}" gl="none" exe="${{words[0]%"$base"}}kcli"
    fi
    COMPREPLY=()
    for ((i = 1; i < n; i++)); do
        w="${{words[i]}}"
        if [[ -n $skip ]]; then skip=""; continue; fi
        if [[ $w == -*=* ]]; then
            _kcli_has "{' '.join(CONNECTION_OPTIONS)}" "${{w%%=*}}" && conn+=("${{w%%=*}}" "${{w#*=}}")
        elif [[ $w == -* ]]; then
            if _kcli_has "$(_kcli_spec "vopts:$path")" "$w" || _kcli_has "$(_kcli_spec "vopts:$gl")" "$w"; then
                skip=1 vopt="$w"
                _kcli_has "{' '.join(CONNECTION_OPTIONS)}" "$w" && conn+=("$w" "${{words[i+1]}}")
            fi
        else
            if _kcli_has "$(_kcli_spec "subs:$path")" "$w"; then
                path="$path $w"
                [[ -n "$(_kcli_spec "java:$path")" ]] && gl="none"   # the Java tool's line: its options only
            fi
        fi
    done
    if [[ -n $skip ]]; then
        opt="$vopt"
    elif [[ $cur == -*=* ]]; then
        opt="${{cur%%=*}}" cur="${{cur#*=}}"
    fi
    if [[ -n $opt ]]; then
        kind="$(_kcli_spec "kind:$path $opt")"; [[ -z $kind ]] && kind="$(_kcli_spec "kind:$gl $opt")"
        [[ -z $kind ]] && {{ compopt +o default 2>/dev/null; return 0; }}   # a value, never a file name
    elif [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_kcli_spec "opts:$path") $(_kcli_spec "opts:$gl")" -- "$cur"))
        return 0
    elif [[ -n "$(_kcli_spec "subs:$path")" ]]; then
        COMPREPLY=($(compgen -W "$(_kcli_spec "subs:$path")" -- "$cur"))
        return 0
    else
        kind="$(_kcli_spec "arg:$path")"
    fi
    local IFS=$'\\n'
    case "$kind" in
        topics|groups|profiles)
            compopt +o default 2>/dev/null       # no file names in place of topics or groups
            local names
            names="$("$exe" __complete-names "$kind" "${{conn[@]}}" 2>/dev/null)"
            COMPREPLY=($(compgen -W "$names" -- "$cur")) ;;
        file) COMPREPLY=($(compgen -f -- "$cur")) ;;
        =*) compopt +o default 2>/dev/null; IFS=' '; COMPREPLY=($(compgen -W "${{kind#=}}" -- "$cur")) ;;
    esac
    # Bash replaces only the part of the word after its last ':' or '=' (COMP_WORDBREAKS): each
    # reply is the whole word completed, less what comes before that.
    local prefix="${{word:0:${{#word}}-${{#cur}}}}" head="${{word%"${{word##*[:=]}}"}}" reply
    if [[ -n $prefix || -n $head ]]; then
        for i in "${{!COMPREPLY[@]}}"; do
            reply="$prefix${{COMPREPLY[i]}}"
            COMPREPLY[i]="${{reply:${{#head}}}}"
        done
    fi
    return 0
}}

complete -o default -F _kcli_completion kcli {DROPIN_SCRIPTS}
"""


def zsh_script(spec: dict[str, str]) -> str:
    return f"""#compdef kcli {DROPIN_SCRIPTS}
# kcli completion for zsh. {HEADER}
# Install: copy to a directory in $fpath as _kcli (e.g. ~/.zfunc/_kcli with fpath+=~/.zfunc), then compinit
_kcli_spec() {{
    case "$1" in
{_sh_case(spec, "        ")}
    esac
}}

_kcli() {{
    local kpath="kcli" w i skip="" opt="" kind="" cur="${{words[CURRENT]}}" gl="global"
    local exe="${{words[1]}}" base="${{words[1]:t}}"
    local -a conn names
    if [[ $base == kcli-* ]]; then      # a drop-in's console script: kcli TOOL; names from kcli beside it
        kpath="kcli ${{base#kcli-}}" gl="none" exe="${{words[1]%$base}}kcli"
    fi
    for ((i = 2; i < CURRENT; i++)); do
        w="${{words[i]}}"
        if [[ -n $skip ]]; then skip=""; continue; fi
        if [[ $w == -*=* ]]; then
            [[ " {' '.join(CONNECTION_OPTIONS)} " == *" ${{w%%=*}} "* ]] && conn+=("${{w%%=*}}" "${{w#*=}}")
            continue
        fi
        if [[ $w == -* ]]; then
            if [[ " $(_kcli_spec "vopts:$kpath") $(_kcli_spec "vopts:$gl") " == *" $w "* ]]; then
                skip=1
                [[ " {' '.join(CONNECTION_OPTIONS)} " == *" $w "* ]] && conn+=("$w" "${{words[i+1]}}")
            fi
            continue
        fi
        if [[ " $(_kcli_spec "subs:$kpath") " == *" $w "* ]]; then
            kpath="$kpath $w"
            [[ -n "$(_kcli_spec "java:$kpath")" ]] && gl="none"   # the Java tool's line: its options only
        fi
    done
    if [[ -n $skip ]]; then
        opt="${{words[CURRENT-1]}}"
    elif [[ $cur == --*=* ]]; then
        opt="${{cur%%=*}}"; compset -P '*='
    fi
    if [[ -n $opt ]]; then
        kind="$(_kcli_spec "kind:$kpath $opt")"; [[ -z $kind ]] && kind="$(_kcli_spec "kind:$gl $opt")"
        [[ -z $kind ]] && return 1
    elif [[ $cur == -* ]]; then
        compadd -- ${{=$(_kcli_spec "opts:$kpath")}} ${{=$(_kcli_spec "opts:$gl")}}
        return
    elif [[ -n "$(_kcli_spec "subs:$kpath")" ]]; then
        compadd -- ${{=$(_kcli_spec "subs:$kpath")}}
        return
    else
        kind="$(_kcli_spec "arg:$kpath")"
    fi
    case "$kind" in
        topics|groups|profiles)
            names=("${{(@f)$($exe __complete-names "$kind" "${{conn[@]}}" 2>/dev/null)}}")
            compadd -- ${{names:#}} ;;
        file) _files ;;
        '='*) compadd -- ${{=kind#=}} ;;
        *) _files ;;
    esac
}}

if [[ "$funcstack[1]" == "_kcli" ]]; then
    _kcli "$@"
else
    compdef _kcli kcli {DROPIN_SCRIPTS}
fi
"""


def fish_script(spec: dict[str, str]) -> str:
    cases = "\n".join(f"        case '{k}'\n            echo '{v}'" for k, v in sorted(spec.items()))
    conn = " ".join(CONNECTION_OPTIONS)
    return f"""# kcli completion for fish. {HEADER}
# Install: copy to ~/.config/fish/conf.d/kcli.fish (read at start-up: it completes kcli and the
# kcli-kafka-* console scripts; ~/.config/fish/completions/ would load it for kcli alone)
function __kcli_spec
    switch $argv[1]
{cases}
    end
end

function __kcli_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l path kcli
    set -l gl global
    set -l exe $words[1]
    set -l base (string replace -r '.*/' '' -- $words[1])
    if string match -q -- 'kcli-*' $base    # a drop-in's console script: kcli TOOL; names from kcli beside it
        set path "kcli "(string replace 'kcli-' '' -- $base)
        set gl none
        set exe (string replace -r -- (string escape --style=regex $base)'$' kcli $words[1])
    end
    set -l skip 0
    set -l conn
    set -l i 2
    while test $i -le (count $words)
        set -l w $words[$i]
        if test $skip -eq 1
            set skip 0
        else if string match -q -- '-*=*' $w
            set -l kv (string split -m 1 '=' -- $w)
            if contains -- $kv[1] {conn}
                set conn $conn $kv[1] $kv[2]
            end
        else if string match -q -- '-*' $w
            if contains -- $w (string split ' ' -- (__kcli_spec "vopts:$path") (__kcli_spec "vopts:$gl"))
                set skip 1
                if contains -- $w {conn}; and test $i -lt (count $words)
                    set conn $conn $w $words[(math $i + 1)]
                end
            end
        else if contains -- $w (string split ' ' -- (__kcli_spec "subs:$path"))
            set path "$path $w"
            test -n "$(__kcli_spec "java:$path")"; and set gl none   # the Java tool's line: its options only
        end
        set i (math $i + 1)
    end
    set -l kind ''
    if test $skip -eq 1
        set kind (__kcli_spec "kind:$path $words[-1]")
        test -z "$kind"; and set kind (__kcli_spec "kind:$gl $words[-1]")
        test -z "$kind"; and return
    else if string match -q -- '-*' $cur
        string split ' ' -- (__kcli_spec "opts:$path") (__kcli_spec "opts:$gl")
        return
    else if test -n "$(__kcli_spec "subs:$path")"
        string split ' ' -- (__kcli_spec "subs:$path")
        return
    else
        set kind (__kcli_spec "arg:$path")
    end
    switch "$kind"
        case topics groups profiles
            $exe __complete-names $kind $conn 2>/dev/null
        case file
            __fish_complete_path $cur
        case '=*'
            string split ' ' -- (string sub -s 2 -- $kind)
    end
end

for command in kcli {DROPIN_SCRIPTS}
    complete -c $command -f -a '(__kcli_complete)'
end
"""


def powershell_script(spec: dict[str, str]) -> str:
    table = "\n".join(f"    '{k}' = '{v}'" for k, v in sorted(spec.items()))
    conn = ", ".join(f"'{o}'" for o in CONNECTION_OPTIONS)
    return f"""# kcli completion for PowerShell. {HEADER}
# Install: . /path/to/kcli.ps1 from your $PROFILE
$script:KcliSpec = @{{
{table}
}}

Register-ArgumentCompleter -Native -CommandName {", ".join(["kcli", *DROPIN_SCRIPTS.split()])} -ScriptBlock {{
    param($wordToComplete, $commandAst, $cursorPosition)
    $spec = $script:KcliSpec
    function Get-Spec([string]$key) {{ if ($spec.ContainsKey($key)) {{ $spec[$key] -split ' ' }} else {{ @() }} }}
    $words = @($commandAst.CommandElements | Where-Object {{ $_.Extent.EndOffset -lt $cursorPosition -or ($_.Extent.EndOffset -eq $cursorPosition -and $wordToComplete -eq '') }} | ForEach-Object {{ $_.ToString() }})
    if ($wordToComplete -ne '' -and $words.Count -gt 0 -and $words[-1] -eq $wordToComplete) {{ $words = $words[0..($words.Count - 2)] }}
    $path = 'kcli'; $skip = $false; $conn = @(); $gl = 'global'
    $exe = $commandAst.CommandElements[0].ToString(); $base = Split-Path -Leaf $exe
    if ($base -like 'kcli-*') {{ $path = 'kcli ' + $base.Substring(5); $gl = 'none'; $exe = $exe.Substring(0, $exe.Length - $base.Length) + 'kcli' }}
    for ($i = 1; $i -lt $words.Count; $i++) {{
        $w = $words[$i]
        if ($skip) {{ $skip = $false; continue }}
        if ($w.StartsWith('-') -and $w.Contains('=')) {{
            $kv = $w -split '=', 2
            if (@({conn}) -contains $kv[0]) {{ $conn += @($kv[0], $kv[1]) }}
            continue
        }}
        if ($w.StartsWith('-')) {{
            if ( ((Get-Spec "vopts:$path") + (Get-Spec "vopts:$gl")) -contains $w) {{
                $skip = $true
                if (@({conn}) -contains $w -and $i + 1 -lt $words.Count) {{ $conn += @($w, $words[$i + 1]) }}
            }}
            continue
        }}
        if ((Get-Spec "subs:$path") -contains $w) {{ $path = "$path $w"; if ($spec.ContainsKey("java:$path")) {{ $gl = 'none' }} }}
    }}
    $kind = ''
    if ($skip) {{
        $opt = $words[-1]
        $kind = $spec["kind:$path $opt"]; if (-not $kind) {{ $kind = $spec["kind:$gl $opt"] }}
        if (-not $kind) {{ return }}
        $candidates = @()
    }} elseif ($wordToComplete.StartsWith('-')) {{
        $candidates = (Get-Spec "opts:$path") + (Get-Spec "opts:$gl")
    }} elseif ($spec.ContainsKey("subs:$path")) {{
        $candidates = Get-Spec "subs:$path"
    }} else {{
        $kind = $spec["arg:$path"]; $candidates = @()
    }}
    if ($kind -in @('topics', 'groups', 'profiles')) {{
        $candidates = @(& $exe __complete-names $kind @conn 2>$null)
    }} elseif ($kind -eq 'file') {{
        return
    }} elseif ($kind -and $kind.StartsWith('=')) {{
        $candidates = $kind.Substring(1) -split ' '
    }}
    $candidates | Where-Object {{ $_ -and $_ -like "$wordToComplete*" }} | ForEach-Object {{
        [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
    }}
}}
"""  # noqa: E501 - the PowerShell lines as the script has them


def completions(tree: Cmd) -> dict[str, str]:
    spec = completion_spec(tree)
    return {"completions/kcli.bash": bash_script(spec), "completions/_kcli": zsh_script(spec),
            "completions/kcli.fish": fish_script(spec), "completions/kcli.ps1": powershell_script(spec)}


def generate() -> dict[str, str]:
    """Every generated file: repository-relative path -> content."""
    tree = command_tree()
    return {**man_pages(tree), **completions(tree)}


def stale(files: dict[str, str], root: Path = ROOT) -> list[str]:
    """Generated files that differ from (or are missing in) the tree, and stale leftovers."""
    diff = [p for p, text in files.items()
            if not (root / p).is_file() or (root / p).read_text(encoding="utf-8") != text]
    for folder in (MAN_DIR, "completions"):
        diff += [str(f.relative_to(root)) for f in sorted((root / folder).glob("*"))
                 if f.is_file() and str(f.relative_to(root)) not in files]
    return diff


def main(argv: list[str]) -> int:
    files = generate()
    if "--check" in argv:
        diff = stale(files)
        for p in diff:
            print(f"out of date: {p}", file=sys.stderr)
        return 1 if diff else 0
    for folder in (MAN_DIR, "completions"):
        for f in (ROOT / folder).glob("*"):
            if f.is_file() and str(f.relative_to(ROOT)) not in files:
                f.unlink()
    for path, text in files.items():
        (ROOT / path).parent.mkdir(parents=True, exist_ok=True)
        (ROOT / path).write_text(text, encoding="utf-8")
    print(f"wrote {len(files)} files under man/ and completions/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
