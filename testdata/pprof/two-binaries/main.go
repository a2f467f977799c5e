package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
)

type Tree struct {
	L, R *Tree
	V    int
}

func build(d int) *Tree {
	if d == 0 {
		return &Tree{V: 1}
	}
	return &Tree{build(d - 1), build(d - 1), d}
}
func (t *Tree) sum() int {
	if t == nil {
		return 0
	}
	return t.V + t.L.sum() + t.R.sum()
}
func even(n int) bool {
	if n == 0 {
		return true
	}
	return odd(n - 1)
}
func odd(n int) bool {
	if n == 0 {
		return false
	}
	return even(n - 1)
}
func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

var re = regexp.MustCompile(`([a-z]+)-(\d+)`)

func jsonWork(n int) int {
	tot := 0
	for i := 0; i < n; i++ {
		m := map[string]any{"a": i, "b": strings.Repeat("x", i%50), "c": []int{i, i + 1}}
		b, _ := json.Marshal(m)
		var o map[string]any
		json.Unmarshal(b, &o)
		tot += len(b)
	}
	return tot
}
func regexWork(n int) int {
	s := strings.Repeat("abc-123 def-456 ", 50)
	c := 0
	for i := 0; i < n; i++ {
		c += len(re.FindAllStringSubmatch(s, -1))
	}
	return c
}
func hashWork(n int) byte {
	h := [32]byte{}
	for i := 0; i < n; i++ {
		h = sha256.Sum256(h[:])
	}
	return h[0]
}
func sortWork(n int) int {
	a := make([]string, n)
	for i := range a {
		a[i] = fmt.Sprint((i * 7919) % n)
	}
	sort.Strings(a)
	return len(a[0])
}

var sink []*Tree

func main() {
	f, _ := os.Create(os.Args[1])
	pprof.StartCPUProfile(f)
	var wg sync.WaitGroup
	res := make([]int, 6)
	work := []func() int{
		func() int {
			s := 0
			for i := 0; i < 40; i++ {
				t := build(16)
				sink = append(sink, t)
				s += t.sum()
			}
			return s
		},
		func() int {
			c := 0
			for i := 0; i < 200000; i++ {
				if even(1000 + i%3) {
					c++
				}
			}
			return c
		},
		func() int { return fib(33) },
		func() int { return jsonWork(150000) },
		func() int { return regexWork(8000) },
		func() int { return int(hashWork(2000000)) + sortWork(300000) },
	}
	for i, w := range work {
		wg.Add(1)
		go func(i int, w func() int) { defer wg.Done(); res[i] = w() }(i, w)
	}
	wg.Wait()
	pprof.StopCPUProfile()
	f.Close()
	runtime.GC()
	h, _ := os.Create(os.Args[2])
	pprof.WriteHeapProfile(h)
	h.Close()
	a, _ := os.Create(os.Args[3])
	pprof.Lookup("allocs").WriteTo(a, 0)
	a.Close()
	fmt.Println(res, len(sink))
}
