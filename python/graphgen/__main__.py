"""python3 -m graphgen: graphgen in the Python that runs it.

    python3 -m graphgen run [OPTIONS] script.py [ARGS...]
    python3 -m graphgen run [OPTIONS] -m MODULE [ARGS...]
    python3 -m graphgen [OPTIONS] FILE...

`run` profiles the program with cProfile in this interpreter (a venv's,
pyenv's: the program sees this Python's packages), as python3 -m cProfile
does, then writes what the options ask for; without -o, a file named after
the script (app.pstats, or app.png with -T png), and with -s KEY pstats'
table, sorted, after the program's output. The second form reads profile
files. OPTIONS are graphgen's (-o FILE, -T FORMAT, -n 1, --colormap gray,
--sort tottime ...); options of the graphgen command that the Python module
does not offer (--each, --compare, -k ...) are refused with a pointer to it.
Exit status: the program's own for `run`; else 0, 1 bad input, 2 bad usage.
"""
import os
import sys

from . import _option, _option_specs, _output_extension, render

USAGE = ("usage: python3 -m graphgen run [OPTIONS] script.py [ARGS...]\n"
         "   or: python3 -m graphgen run [OPTIONS] -m MODULE [ARGS...]\n"
         "   or: python3 -m graphgen [OPTIONS] FILE...\n")


class Usage(Exception):
    pass


def options_of(args, run):
    # graphgen's options at the front of args (all of them without `run`,
    # where the script ends them); the rest of args.
    specs = dict(_option_specs())
    if run:
        specs["-s"] = ("sort", 2)  # cProfile's -s KEY
    options, rest, module = {}, [], None
    i = 0
    while i < len(args):
        a = args[i]
        if run and not a.startswith("-"):
            break
        if a == "--":
            rest.extend(args[i + 1:])
            i = len(args)
            break
        if run and a in ("-m", "--module"):
            if i + 1 >= len(args):
                raise Usage("-m needs a module name")
            module = args[i + 1]
            i += 2
            break
        if not a.startswith("-") or a == "-":
            rest.append(a)
            i += 1
            continue
        box = [i]

        def value_of():
            box[0] += 1
            return args[box[0]] if box[0] < len(args) else None
        try:
            _option(options, specs, a, value_of, "python3 -m graphgen")
        except ValueError as e:
            raise Usage("%s; the graphgen command has every option" % e)
        i = box[0] + 1
    if run:
        rest = args[i:]
    return options, rest, module


def run_program(argv, module):
    # What python3 -m cProfile does, with python3's own __main__ and
    # sys.path[0]; the exit status, and the profile either way.
    import cProfile
    import runpy
    import traceback
    if module:
        sys.argv[:] = [module] + argv
        sys.path.insert(0, os.getcwd())
        code = "run_module(modname, run_name='__main__', alter_sys=True)"
        globs = {"run_module": runpy.run_module, "modname": module}
        import importlib.util
        if importlib.util.find_spec(module) is None:
            sys.stderr.write("python3 -m graphgen run: No module named %s\n" % module)
            return None, 1
    else:
        script = argv[0]
        sys.argv[:] = argv
        sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
        try:
            with open(script, "rb") as f:
                source = f.read()
        except OSError as e:
            sys.stderr.write("python3 -m graphgen run: can't open file %r: [Errno %d] %s\n"
                             % (script, e.errno, e.strerror))
            return None, 2
        code = compile(source, script, "exec")
        import types
        main = types.ModuleType("__main__")
        main.__dict__.update({"__file__": script, "__package__": None, "__cached__": None})
        sys.modules["__main__"] = main
        globs = main.__dict__
    prof = cProfile.Profile()
    status = 0
    try:
        prof.runctx(code, globs, None)
    except SystemExit as e:
        if e.code is None:
            status = 0
        elif isinstance(e.code, int):
            status = e.code
        else:
            sys.stderr.write("%s\n" % (e.code,))
            status = 1
    except KeyboardInterrupt:
        traceback.print_exc()
        status = 130
    except BaseException:
        traceback.print_exc()
        status = 1
    return prof, status


def main(args):
    if not args or args[0] in ("-h", "--help"):
        sys.stdout.write(USAGE + "\n" + __doc__.split("\n\n", 2)[2])
        return 0 if args else 2
    if args[0] == "--version":
        from . import __version__
        print("graphgen %s" % __version__)
        return 0
    run = args[0] == "run"
    try:
        options, rest, module = options_of(args[1:] if run else args, run)
        if run and not module and not rest:
            raise Usage("expected a script (or -m MODULE) to profile, found none")
        if not run and not rest:
            raise Usage("expected a profile file to read, found none")
    except Usage as e:
        sys.stderr.write("python3 -m graphgen: %s\n%s" % (e, USAGE))
        return 2
    path = options.pop("output", None)
    fmt = options.pop("to", None)
    if not run:
        try:
            out = render(rest if len(rest) > 1 else rest[0], path if path not in (None, "-") else None, fmt, **options)
        except (ValueError, OSError, TypeError) as e:
            sys.stderr.write("graphgen: error: %s\n" % e)
            return 1
        if out is not None:
            write_stdout(out)
        return 0
    prof, status = run_program(rest, module)
    if prof is None:
        return status
    announce = None
    if path is None:
        if "sort" in options and fmt in (None, "stats"):
            if fmt is None:
                # cProfile's print_stats strips the folders off file names
                # first (pstats' strip_dirs): encoder.py:205(iterencode).
                options.setdefault("strip_dirs", True)
            fmt, path = "stats", "-"
        else:
            stem = module or os.path.splitext(os.path.basename(rest[0]))[0] or "profile"
            path = announce = stem + _output_extension(fmt or "pstats")
    try:
        out = render(prof, None if path == "-" else path, fmt, **options)
    except (ValueError, OSError, TypeError) as e:
        sys.stderr.write("graphgen: error: %s\n" % e)
        return status or 1
    if out is not None:
        write_stdout(out)
    if announce:
        sys.stderr.write("python3 -m graphgen run: wrote %s (-o FILE for another name, -o - for standard output)\n"
                         % announce)
    return status


def write_stdout(out):
    sys.stdout.flush()
    if isinstance(out, str):
        sys.stdout.write(out)
        sys.stdout.flush()
    else:
        sys.stdout.buffer.write(out)
        sys.stdout.buffer.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
