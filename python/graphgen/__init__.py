"""graphgen: call graphs and reports of profiles, from Python.

    graphgen.render(source, path=None, format=None, **options)  # str, bytes, or written to path
    graphgen.graph(source, **options)      # a Graph, shown inline in Jupyter
    graphgen.merge(paths)                  # one pstats file (bytes) of several
    graphgen.to_callgrind(source, **options)

A source is a cProfile.Profile, a pstats.Stats, a path or a list of paths.
Options are graphgen's long options with '_' for '-' (help(graphgen.render)
lists them). In IPython and Jupyter, %load_ext graphgen adds %graphgen and
%%graphgen; python3 -m graphgen run script.py profiles a program in this
Python (python3 -m graphgen --help).
"""
from ._graphgen import Graph, __version__, _option_specs, _output_extension, graph, merge, render, to_callgrind

__all__ = ["Graph", "graph", "merge", "render", "to_callgrind", "__version__"]


def _word(text):
    # One shell word at the start of text (quotes allowed), and the rest.
    import shlex
    lexer = shlex.shlex(text, posix=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    word = lexer.get_token()
    return word, text[lexer.instream.tell():]


def _option(options, specs, token, value_of, where):
    # One of graphgen's options (-n 1, --colormap gray, --strip, -T html,
    # -o FILE, --node-thres=1) into options; value_of() gives a value
    # that is not after '='.
    name, eq, value = token.partition("=")
    if name not in specs:
        raise ValueError("%s: %s is not an option of graphgen's Python functions (help(graphgen.render) lists "
                         "them)" % (where, name))
    key, kind = specs[name]
    if kind == 0:
        value = True
    elif not eq:
        value = value_of()
        if value is None:
            raise ValueError("%s: %s needs a value" % (where, name))
    if kind == 2:
        options.setdefault(key, []).append(value)
    else:
        options[key] = value


def _line_options(line, where="%graphgen"):
    # Leading options of a magic's line, and the rest of the line as written.
    specs = _option_specs()
    options, rest = {}, line.lstrip()
    while rest.startswith("-"):
        token, rest = _word(rest)
        box = [rest]

        def value_of():
            if not box[0].strip():
                return None
            value, box[0] = _word(box[0].lstrip())
            return value
        _option(options, specs, token, value_of, where)
        rest = box[0].lstrip()
    return options, rest


def load_ipython_extension(ipython):
    """%load_ext graphgen: adds %graphgen (one statement) and %%graphgen (a cell)."""
    ipython.register_magic_function(_magic, "line_cell", "graphgen")


def _magic(line, cell=None):
    """%graphgen [OPTIONS] STATEMENT, or %%graphgen [OPTIONS] above a cell:
    profiles it with cProfile in the notebook's namespace and shows its call
    graph (SVG), or what -T asks for: html (the report) or flame (the flame
    graph) in a frame, png, or a text output (stats, folded, callgrind,
    dot ...) printed. The other options are graphgen's (-n 1, -e 0.1,
    --colormap gray, -z 'app:*:main', --sort tottime); -o FILE also writes
    the output there."""
    import cProfile
    import html
    from IPython import get_ipython
    from IPython.display import HTML, Image, display
    ip = get_ipython()
    options, statement = _line_options(line)
    if cell is not None:
        statement = cell
    if not statement.strip():
        raise ValueError("%graphgen: expected a statement to profile: %graphgen [OPTIONS] STATEMENT, or "
                         "%%graphgen [OPTIONS] above a cell")
    code = compile(ip.transform_cell(statement), "<graphgen>", "exec")
    prof = cProfile.Profile()
    prof.runctx(code, ip.user_ns, ip.user_ns)
    shown = options.pop("to", None)
    path = options.pop("output", None)
    if path:
        render(prof, path, shown, **options)
    shown = shown or "svg"
    if shown == "svg":
        display(graph(prof, **options))
    elif shown in ("html", "flame"):
        page = render(prof, format=shown, **options)
        display(HTML('<iframe srcdoc="%s" style="width: 100%%; height: 720px; border: 0"></iframe>'
                     % html.escape(page, quote=True)))
    else:
        out = render(prof, format=shown, **options)
        if isinstance(out, str):
            print(out, end="" if out.endswith("\n") else "\n")
        elif out.startswith(b"\x89PNG"):
            display(Image(data=out))
        else:
            raise ValueError("%%graphgen: -T %s is not shown in a notebook; -o FILE writes it" % shown)
