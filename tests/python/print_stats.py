"""What Python's pstats prints, for graphgen's -T stats tests:

  print_stats.py [--sort KEY]... [--restrict R]... [--strip-dirs] [--callers | --callees] FILE...
  print_stats.py --variants JSON FILE...   the report for each list of options in the JSON
                                           list, separated by NUL ("!reason" where Python fails)

prints pstats.Stats(*FILES)[.strip_dirs()].sort_stats(*KEYS or 'cumulative')
.print_stats(*R) (or print_callers / print_callees); R is an int, a float or
a regular expression, as the string reads."""
import io
import json
import pstats
import sys


def restriction(text):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def report(args):
    files, keys, restrictions, mode, strip = [], [], [], "print_stats", False
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--sort":
            keys.append(args[i + 1])
            i += 2
        elif arg == "--restrict":
            restrictions.append(restriction(args[i + 1]))
            i += 2
        else:
            if arg == "--callers":
                mode = "print_callers"
            elif arg == "--callees":
                mode = "print_callees"
            elif arg == "--strip-dirs":
                strip = True
            else:
                files.append(arg)
            i += 1
    out = io.StringIO()
    stats = pstats.Stats(*files, stream=out)
    if strip:
        stats.strip_dirs()
    stats.sort_stats(*(keys or ["cumulative"]))
    getattr(stats, mode)(*restrictions)
    return out.getvalue()


def main(argv):
    if argv[:1] == ["--variants"]:
        variants, files = json.loads(argv[1]), argv[2:]
        texts = []
        for variant in variants:
            try:
                texts.append(report(variant + files))
            except Exception as e:  # this Python cannot read the file
                texts.append("!%s" % e)
        sys.stdout.write("\0".join(texts))
    else:
        sys.stdout.write(report(argv))


if __name__ == "__main__":
    main(sys.argv[1:])
