// goprog: a small but real workload used to produce Go runtime/pprof
// CPU and heap profiles for graphgen's oracle set. Standard library only.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
	"regexp"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"time"
)

var words = []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta",
	"theta", "iota", "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi", "rho",
	"sigma", "tau", "upsilon", "phi", "chi", "psi", "omega", "2023-10-05", "foo@example.com",
	"bar@test.org", "12345", "0xdeadbeef"}

// keep some allocations live so inuse_* has content
var retained [][]byte
var retainedMu sync.Mutex

func genText(r *rand.Rand, n int) []byte {
	var b bytes.Buffer
	b.Grow(n)
	for b.Len() < n {
		b.WriteString(words[r.Intn(len(words))])
		if r.Intn(12) == 0 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.Bytes()
}

func gzipRoundTrip(data []byte) int {
	var comp bytes.Buffer
	w, _ := gzip.NewWriterLevel(&comp, gzip.BestCompression)
	w.Write(data)
	w.Close()
	r, err := gzip.NewReader(bytes.NewReader(comp.Bytes()))
	if err != nil {
		panic(err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		panic(err)
	}
	if !bytes.Equal(out, data) {
		panic("gzip mismatch")
	}
	return comp.Len()
}

func sortInts(r *rand.Rand, n int) int {
	a := make([]int, n)
	for i := range a {
		a[i] = r.Int()
	}
	sort.Ints(a)
	return a[n/2] % 1000
}

var emailRe = regexp.MustCompile(`[a-z]+@[a-z]+\.(com|org)`)
var dateRe = regexp.MustCompile(`\d{4}-\d{2}-\d{2}`)

func regexpScan(data []byte) int {
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		n += len(emailRe.FindAllString(line, -1))
		if dateRe.MatchString(line) {
			n++
		}
	}
	return n
}

type Record struct {
	ID    int               `json:"id"`
	Name  string            `json:"name"`
	Tags  []string          `json:"tags"`
	Score float64           `json:"score"`
	Attrs map[string]string `json:"attrs"`
}

func jsonRoundTrip(r *rand.Rand, n int) int {
	recs := make([]Record, n)
	for i := range recs {
		recs[i] = Record{ID: i, Name: words[r.Intn(len(words))],
			Tags:  []string{words[r.Intn(len(words))], words[r.Intn(len(words))]},
			Score: r.Float64(),
			Attrs: map[string]string{"k": words[r.Intn(len(words))], "x": fmt.Sprint(i)}}
	}
	b, err := json.Marshal(recs)
	if err != nil {
		panic(err)
	}
	var back []Record
	if err := json.Unmarshal(b, &back); err != nil {
		panic(err)
	}
	retainedMu.Lock()
	if len(retained) < 64 {
		retained = append(retained, b[:4096])
	}
	retainedMu.Unlock()
	return len(back)
}

func worker(id int, deadline time.Time, wg *sync.WaitGroup, res *int64, mu *sync.Mutex) {
	defer wg.Done()
	r := rand.New(rand.NewSource(int64(id) + 1))
	var sum int64
	for iter := 0; time.Now().Before(deadline); iter++ {
		switch (id + iter) % 4 {
		case 0:
			sum += int64(gzipRoundTrip(genText(r, 1<<20)))
		case 1:
			sum += int64(sortInts(r, 300000))
		case 2:
			sum += int64(regexpScan(genText(r, 1<<19)))
		case 3:
			sum += int64(jsonRoundTrip(r, 5000))
		}
	}
	mu.Lock()
	*res += sum
	mu.Unlock()
}

func main() {
	cpuOut := "go-cpu.pb.gz"
	heapOut := "go-heap.pb.gz"
	if len(os.Args) > 2 {
		cpuOut, heapOut = os.Args[1], os.Args[2]
	}
	runtime.MemProfileRate = 512
	f, err := os.Create(cpuOut)
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	deadline := time.Now().Add(2500 * time.Millisecond)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var res int64
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go worker(i, deadline, &wg, &res, &mu)
	}
	wg.Wait()
	pprof.StopCPUProfile()
	f.Close()
	fmt.Println("result", res)

	h, err := os.Create(heapOut)
	if err != nil {
		panic(err)
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(h); err != nil {
		panic(err)
	}
	h.Close()
	retainedMu.Lock()
	fmt.Println("retained", len(retained))
	retainedMu.Unlock()
}
