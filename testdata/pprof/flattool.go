// flattool: reads a pprof profile (gzipped or not, proto or legacy formats
// understood by github.com/google/pprof/profile) and prints a per-function
// flat/cum table for every sample type, as TSV.
//
// Semantics (match `pprof -top` at the default "functions" granularity with
// inlining on, nodefraction=0):
//   - a frame is one Line of one Location; a Location with several Lines
//     (inlined calls) contributes several frames, Line[0] being the innermost;
//   - frame name = Function.Name; if the line has no Function, or the location
//     has no Lines at all, the name is "[" + basename(Mapping.File) + "]",
//     or "<unknown>" if there is no mapping file either;
//   - flat(f) = sum of the sample's value over samples whose leaf frame
//     (Line[0] of Location[0]) is named f;
//   - cum(f)  = sum of the sample's value over samples whose stack contains
//     a frame named f at least once (recursion counted once per sample).
//
// With -inline a 5th column gives the label `pprof -top` appends to the name:
// "inline" if every incoming edge of the node is inlined (the callee frame is
// not the last Line of its Location), "partial-inline" if only some are.
//
// No pruning is applied by default; -prune applies the profile's own
// drop_frames/keep_frames (profile.RemoveUninteresting), as pprof does on load.
//
// Output:
//
//	# key: value            metadata lines
//	#total<TAB>type<TAB>unit<TAB>sum   one per sample type
//	sample_type<TAB>function<TAB>flat<TAB>cum   header, then rows
//
// Rows whose flat and cum are both 0 for that sample type are omitted.
// Rows are grouped by sample type (in profile order) and sorted by
// flat desc, cum desc, name asc.
//
// Build (offline, Debian golang-github-google-pprof-dev):
//
//	GOPATH=/usr/share/gocode GO111MODULE=off go build -o flattool .
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
)

func frameName(l *profile.Location, ln *profile.Line) string {
	if ln != nil && ln.Function != nil && ln.Function.Name != "" {
		return ln.Function.Name
	}
	if l.Mapping != nil && l.Mapping.File != "" {
		return "[" + filepath.Base(l.Mapping.File) + "]"
	}
	return "<unknown>"
}

// frames returns the sample's frame names, leaf first, and for each whether
// it is an inlined frame (not the last Line of its Location).
func frames(s *profile.Sample) ([]string, []bool) {
	var out []string
	var inl []bool
	for _, l := range s.Location {
		if len(l.Line) == 0 {
			out = append(out, frameName(l, nil))
			inl = append(inl, false)
			continue
		}
		for i := range l.Line {
			out = append(out, frameName(l, &l.Line[i]))
			inl = append(inl, i != len(l.Line)-1)
		}
	}
	return out, inl
}

func main() {
	withInline := flag.Bool("inline", false, "add a 5th column: pprof -top's inline label (inline / partial-inline / empty)")
	prune := flag.Bool("prune", false, "apply the profile's drop_frames/keep_frames first (as pprof does)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: flattool [-prune] PROFILE")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	p, err := profile.Parse(f)
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *prune {
		if err := p.RemoveUninteresting(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}

	// metadata
	multiLine, noLine, noFunc := 0, 0, 0
	for _, l := range p.Location {
		if len(l.Line) > 1 {
			multiLine++
		}
		if len(l.Line) == 0 {
			noLine++
		}
		for _, ln := range l.Line {
			if ln.Function == nil || ln.Function.Name == "" {
				noFunc++
			}
		}
	}
	labeled, numLabeled := 0, 0
	for _, s := range p.Sample {
		if len(s.Label) > 0 {
			labeled++
		}
		if len(s.NumLabel) > 0 {
			numLabeled++
		}
	}
	var sts []string
	for _, st := range p.SampleType {
		sts = append(sts, st.Type+"/"+st.Unit)
	}
	fmt.Printf("# file: %s\n", filepath.Base(flag.Arg(0)))
	fmt.Printf("# pruned: %v\n", *prune)
	fmt.Printf("# sample_types: %s\n", strings.Join(sts, " "))
	fmt.Printf("# default_sample_type: %q\n", p.DefaultSampleType)
	if p.PeriodType != nil {
		fmt.Printf("# period_type: %s/%s\n", p.PeriodType.Type, p.PeriodType.Unit)
	}
	fmt.Printf("# period: %d\n", p.Period)
	fmt.Printf("# duration_nanos: %d\n", p.DurationNanos)
	fmt.Printf("# drop_frames: %q\n", p.DropFrames)
	fmt.Printf("# keep_frames: %q\n", p.KeepFrames)
	fmt.Printf("# samples: %d (with string labels: %d, with numeric labels: %d)\n", len(p.Sample), labeled, numLabeled)
	fmt.Printf("# locations: %d (with >1 Line i.e. inlined: %d, with no Line: %d); lines without function name: %d\n", len(p.Location), multiLine, noLine, noFunc)
	fmt.Printf("# functions: %d, mappings: %d\n", len(p.Function), len(p.Mapping))
	for _, m := range p.Mapping {
		fmt.Printf("# mapping %d: %s [%#x-%#x) off=%#x buildid=%q hasFunctions=%v\n", m.ID, m.File, m.Start, m.Limit, m.Offset, m.BuildID, m.HasFunctions)
	}
	for _, c := range p.Comments {
		fmt.Printf("# comment: %s\n", c)
	}

	n := len(p.SampleType)
	type acc struct{ flat, cum []int64 }
	table := map[string]*acc{}
	get := func(name string) *acc {
		a := table[name]
		if a == nil {
			a = &acc{make([]int64, n), make([]int64, n)}
			table[name] = a
		}
		return a
	}
	totals := make([]int64, n)
	// incoming-edge inline flags, per sample type, as pprof's graph builds
	// them: edge caller->callee is inline iff every occurrence (in samples
	// with a non-zero value) has the callee as an inlined frame.
	type edge struct{ from, to string }
	edges := make([]map[edge]bool, n)
	for i := range edges {
		edges[i] = map[edge]bool{}
	}
	for _, s := range p.Sample {
		fr, inl := frames(s)
		for i := 0; i < n; i++ {
			if s.Value[i] == 0 {
				continue
			}
			seenE := map[edge]bool{}
			for k := len(fr) - 2; k >= 0; k-- {
				e := edge{fr[k+1], fr[k]}
				if e.from == e.to || seenE[e] {
					continue
				}
				seenE[e] = true
				if old, ok := edges[i][e]; ok {
					edges[i][e] = old && inl[k]
				} else {
					edges[i][e] = inl[k]
				}
			}
		}
		for i := 0; i < n; i++ {
			totals[i] += s.Value[i]
		}
		if len(fr) > 0 {
			a := get(fr[0])
			for i := 0; i < n; i++ {
				a.flat[i] += s.Value[i]
			}
		}
		seen := map[string]bool{}
		for _, name := range fr {
			if seen[name] {
				continue
			}
			seen[name] = true
			a := get(name)
			for i := 0; i < n; i++ {
				a.cum[i] += s.Value[i]
			}
		}
	}
	for i, st := range p.SampleType {
		fmt.Printf("#total\t%s\t%s\t%d\n", st.Type, st.Unit, totals[i])
	}
	names := make([]string, 0, len(table))
	for k := range table {
		names = append(names, k)
	}
	label := func(i int, name string) string {
		var in, notIn bool
		for e, v := range edges[i] {
			if e.to != name {
				continue
			}
			if v {
				in = true
			} else {
				notIn = true
			}
		}
		switch {
		case in && notIn:
			return "partial-inline"
		case in:
			return "inline"
		}
		return ""
	}
	if *withInline {
		fmt.Println("sample_type\tfunction\tflat\tcum\tinline")
	} else {
		fmt.Println("sample_type\tfunction\tflat\tcum")
	}
	for i, st := range p.SampleType {
		sort.Slice(names, func(a, b int) bool {
			x, y := table[names[a]], table[names[b]]
			if x.flat[i] != y.flat[i] {
				return x.flat[i] > y.flat[i]
			}
			if x.cum[i] != y.cum[i] {
				return x.cum[i] > y.cum[i]
			}
			return names[a] < names[b]
		})
		for _, name := range names {
			a := table[name]
			if a.flat[i] == 0 && a.cum[i] == 0 {
				continue // function absent from this sample type (pprof omits it too)
			}
			if *withInline {
				fmt.Printf("%s\t%s\t%d\t%d\t%s\n", st.Type, name, a.flat[i], a.cum[i], label(i, name))
			} else {
				fmt.Printf("%s\t%s\t%d\t%d\n", st.Type, name, a.flat[i], a.cum[i])
			}
		}
	}
}
