# The output formats of `graphgen --help-all` as a help2man include section,
# one .TP per format (its name and file endings, then its text): help2man
# takes the table in --help for loose paragraphs. tools/CMakeLists.txt runs it.
BEGIN {
  print "[OUTPUT FORMATS]"
  print "-T NAME picks the output format, or else the ending of the -o name (callgrind.out.* is"
  print "callgrind; any other name, and standard output, get dot):"
}
/^Output formats/ { inside = 1; next }
/^Examples?:/ { inside = 0 }
!inside { next }
/^  [^ ]/ {
  if (name != "") flush()
  name = $1; ends = ""; text = ""
  for (i = 2; i <= NF; i++) {
    if (text == "" && ($i ~ /^\./ || $i ~ /^callgrind\.out/)) ends = ends (ends == "" ? "" : " ") $i
    else text = text (text == "" ? "" : " ") $i
  }
  next
}
/^ +[^ ]/ { sub(/^ +/, ""); text = text (text == "" ? "" : " ") $0 }
END { if (name != "") flush() }
function flush() {
  gsub(/\\/, "\\\\", text)
  gsub(/-/, "\\-", text)
  printf ".TP\n\\fB%s\\fR  %s\n%s\n", name, ends, text
}
